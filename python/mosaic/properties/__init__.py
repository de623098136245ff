"""Mosaic's properties under OpenVINO's names: mosaic.properties.enable_profiling is "PERF_COUNT", and
so on (see framework/include/mosaic/properties.hpp). Values go to the devices as JSON; a mosaic.Type
becomes its name ("f32"); the devices read "YES"/"NO" for a switch as true/false."""
from mosaic.properties.property import Property
from mosaic.properties import device, hint



def _switch(value):
    """True/False, or OpenVINO's "YES"/"NO" (which the devices read as true/false)."""
    if not isinstance(value, (bool, str)):
        raise TypeError(f"a switch property takes True/False or 'YES'/'NO', not {type(value).__name__}")
    return value


enable_profiling = Property("PERF_COUNT", _switch)
cache_dir = Property("CACHE_DIR", str)
num_streams = Property("NUM_STREAMS", int)
inference_num_threads = Property("INFERENCE_NUM_THREADS", int)
full_device_name = Property("FULL_DEVICE_NAME")
supported_properties = Property("SUPPORTED_PROPERTIES")
optimal_number_of_infer_requests = Property("OPTIMAL_NUMBER_OF_INFER_REQUESTS")
execution_devices = Property("EXECUTION_DEVICES")
model_name = Property("NETWORK_NAME")

__all__ = [
    "Property", "device", "hint", "enable_profiling", "cache_dir", "num_streams", "inference_num_threads",
    "full_device_name", "supported_properties", "optimal_number_of_infer_requests", "execution_devices",
    "model_name",
]
