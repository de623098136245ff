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

__all__ = ["PerformanceMode", "performance_mode", "inference_precision"]
