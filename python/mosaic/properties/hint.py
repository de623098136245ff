"""Hints: mosaic.properties.hint, also importable as mosaic.hint."""
from mosaic.properties.property import Property


class PerformanceMode:
    """Values of performance_mode."""
    LATENCY = "LATENCY"
    THROUGHPUT = "THROUGHPUT"
    CUMULATIVE_THROUGHPUT = "CUMULATIVE_THROUGHPUT"


performance_mode = Property("PERFORMANCE_HINT", str)
# A mosaic.Type (or its name): the Core writes a Type as its name, e.g. "f32".
inference_precision = Property("INFERENCE_PRECISION_HINT")
# CPU: MatMuls by compressed weights quantize their activations to int8 in groups of this many
# values (a multiple of 32); 0 keeps them f32.
dynamic_quantization_group_size = Property("DYNAMIC_QUANTIZATION_GROUP_SIZE", int)

__all__ = ["PerformanceMode", "performance_mode", "inference_precision", "dynamic_quantization_group_size"]
