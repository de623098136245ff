"""The Python snippets of the heterogeneous-execution documents (/work/shared/seeds: OpenVINO's
"Heterogeneous execution" page, English and Japanese), as users type them, with `import openvino as ov`
spelled `import mosaic as ov` and "operation_name" replaced by an op of the bundled model. Each runs
on HETERO:GPU,CPU (the GPU device is OpenCL; PoCL where there is no GPU) and must compute what
REFERENCE computes."""
import numpy as np
import pytest

import mosaic as ov
from mosaic import properties


@pytest.fixture
def core():
    """Its own Core: the snippets set device properties."""
    return ov.Core()


@pytest.fixture
def check(reference, image):
    def check(compiled_model, devices=("GPU", "CPU")):
        assert compiled_model.get_property("EXECUTION_DEVICES") == list(devices)
        np.testing.assert_allclose(compiled_model({"data": image})["prob"], reference({"data": image})["prob"],
                                   rtol=1e-4, atol=1e-5)
    return check


def is_gpu_gemm(exec_type):
    """The GPU device's GEMM kernels: its own tiled kernel on OpenCL CPU devices, CLBlast on GPUs."""
    return "gemm_tiled" in exec_type or "clblast" in exec_type


def test_manual_mode(core, model, check):
    for op in model.get_ops():
        rt_info = op.get_rt_info()
        rt_info["affinity"] = "CPU"

    compiled_model = core.compile_model(model, "HETERO:GPU,CPU")
    check(compiled_model, devices=["CPU"])


def test_automatic_mode(core, model, check):
    import mosaic.device as device

    compiled_model = core.compile_model(model, device_name="HETERO:GPU,CPU")
    check(compiled_model)
    # device priorities via configuration property
    compiled_model = core.compile_model(
        model, device_name="HETERO", config={device.priorities: "GPU,CPU"}
    )
    check(compiled_model)
    compiled_model = core.compile_model(model, device_name="HETERO", config={"MULTI_DEVICE_PRIORITIES": "GPU,CPU"})
    check(compiled_model)


def test_manual_and_automatic_modes_combined(core, model, check):
    # This example demonstrates how to perform default affinity initialization and then
    # correct affinity manually for some layers
    device = "HETERO:GPU,CPU"

    # query_model result contains mapping of supported operations to devices
    supported_ops = core.query_model(model, device)

    # update default affinities manually for specific operations
    supported_ops["conv2"] = "CPU"

    # set affinities to a model
    for node in model.get_ops():
        affinity = supported_ops[node.get_friendly_name()]
        node.get_rt_info()["affinity"] = "CPU"

    # load model with manually set affinities
    compiled_model = core.compile_model(model, device)
    # The snippet stores "CPU", not `affinity`, for every op: all runs on the CPU.
    check(compiled_model, devices=["CPU"])


def test_combined_mode_with_the_queried_affinities(core, model, check, image):
    # The C++ version of the snippet stores `affinity`: conv2 moves to the CPU, the rest stays.
    device = "HETERO:GPU,CPU"
    supported_ops = core.query_model(model, device)
    supported_ops["conv2"] = "CPU"
    for node in model.get_ops():
        affinity = supported_ops[node.get_friendly_name()]
        node.get_rt_info()["affinity"] = affinity
    compiled_model = core.compile_model(model, device, {properties.enable_profiling: True})
    check(compiled_model)
    request = compiled_model.create_infer_request()
    request.infer([image])
    kernels = {p.node_name.split(": ")[-1]: p.exec_type for p in request.get_profiling_info()}
    # conv2 runs alone on the CPU (oneDNN); conv1 with its bias and ReLU as one GPU GEMM.
    assert is_gpu_gemm(kernels["conv1/relu"]) and not is_gpu_gemm(kernels["conv2"])


def test_fallback_device_properties(core, model, check):
    import mosaic.device as device
    import mosaic.hint as hints

    core.set_property("HETERO", {device.priorities: "GPU,CPU"})
    core.set_property("GPU", {properties.enable_profiling: True})
    core.set_property("CPU", {hints.inference_precision: ov.Type.f32})
    compiled_model = core.compile_model(model=model, device_name="HETERO")
    check(compiled_model)
    assert core.get_property("GPU", "PERF_COUNT") is True and core.get_property("CPU", "INFERENCE_PRECISION_HINT") == "f32"


def test_fallback_device_properties_as_strings(core, model, check):
    core.set_property("HETERO", {"MULTI_DEVICE_PRIORITIES": "GPU,CPU"})
    core.set_property("GPU", {"PERF_COUNT": "YES"})
    core.set_property("CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    compiled_model = core.compile_model(model=model, device_name="HETERO")
    check(compiled_model)
    request = compiled_model.create_infer_request()
    request.infer([np.zeros((1, 3, 32, 32), dtype=np.float32)])
    assert any(is_gpu_gemm(p.exec_type) for p in request.get_profiling_info())  # GPU profiling is on
