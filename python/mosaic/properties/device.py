"""Device properties: mosaic.properties.device, also importable as mosaic.device."""
from mosaic.properties.property import Property


def _priorities(*devices):
    """priorities("GPU", "CPU") or priorities("GPU,CPU") -> "GPU,CPU"."""
    if not devices or not all(isinstance(d, str) for d in devices):
        raise TypeError("device.priorities takes device names, e.g. priorities('GPU', 'CPU')")
    return ",".join(devices)


def _properties(*args):
    """properties("GPU", enable_profiling(True), ...) or properties({"GPU": {...}}) -> {"GPU": {...}}."""
    if len(args) == 1 and isinstance(args[0], dict):
        return {str(device): dict(props) for device, props in args[0].items()}
    if not args or not isinstance(args[0], str):
        raise TypeError("device.properties takes a device name and (key, value) pairs, or a dict")
    return {args[0]: {str(key): value for key, value in args[1:]}}


priorities = Property("MULTI_DEVICE_PRIORITIES", _priorities)
properties = Property("DEVICE_PROPERTIES", _properties)
full_name = Property("FULL_DEVICE_NAME")

__all__ = ["priorities", "properties", "full_name"]
