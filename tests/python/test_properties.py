"""mosaic.properties: keys that are strings and callables."""
import mosaic as ov
from mosaic import properties
import mosaic.device as device
import mosaic.hint as hints


def test_keys_are_their_strings():
    assert properties.enable_profiling == "PERF_COUNT" and {properties.enable_profiling: 1} == {"PERF_COUNT": 1}
    assert device.priorities == "MULTI_DEVICE_PRIORITIES" and device.properties == "DEVICE_PROPERTIES"
    assert hints.inference_precision == "INFERENCE_PRECISION_HINT" and hints.performance_mode == "PERFORMANCE_HINT"
    assert properties.cache_dir == "CACHE_DIR" and properties.num_streams == "NUM_STREAMS"
    assert properties.inference_num_threads == "INFERENCE_NUM_THREADS"


def test_calling_a_key_makes_a_pair():
    assert properties.enable_profiling(True) == ("PERF_COUNT", True)
    assert device.priorities("GPU", "CPU") == ("MULTI_DEVICE_PRIORITIES", "GPU,CPU")
    assert device.priorities("GPU,CPU") == ("MULTI_DEVICE_PRIORITIES", "GPU,CPU")
    assert device.properties("GPU", properties.enable_profiling(True)) == ("DEVICE_PROPERTIES", {"GPU": {"PERF_COUNT": True}})
    assert hints.inference_precision(ov.Type.f32) == ("INFERENCE_PRECISION_HINT", ov.Type.f32)
    assert properties.inference_num_threads(1) == ("INFERENCE_NUM_THREADS", 1)
    assert hints.dynamic_quantization_group_size(32) == ("DYNAMIC_QUANTIZATION_GROUP_SIZE", 32)


def test_typed_values_reach_the_devices(core, model_path):
    core.set_property("CPU", {hints.inference_precision: ov.Type.f32})
    assert core.get_property("CPU", hints.inference_precision) == "f32"
    compiled = core.compile_model(model_path, "HETERO", dict([
        device.priorities("GPU", "CPU"),
        device.properties({"GPU": dict([properties.enable_profiling("YES")]),
                           "CPU": dict([hints.inference_precision(ov.Type.f32)])}),
    ]))
    assert compiled.get_property("EXECUTION_DEVICES") == ["GPU", "CPU"]
