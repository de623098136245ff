"""RemoteContext (OpenVINO's ov.RemoteContext): tensors in a device's own memory, which a request on
that device reads and writes in place; copy_to / copy_from move their elements; a device without
memory of its own hands out host tensors."""
import numpy as np
import pytest

import mosaic as ov

from small_models import RUNNING_SUM  # y = x + h, h_out = y: h_out of one inference is h of the next


@pytest.fixture
def running_sum(tmp_path):
    path = tmp_path / "running_sum.xml"
    path.write_text(RUNNING_SUM)
    return str(path)


def test_a_value_carried_on_the_gpu_never_crosses_to_the_host(running_sum):
    core = ov.Core()
    # GPU_ZERO_COPY off: PoCL copies host tensors in and out as a discrete GPU does, and records it.
    compiled = core.compile_model(running_sum, "GPU", {"GPU_ZERO_COPY": False, "PERF_COUNT": True})
    context = compiled.get_context()
    assert context.has_device_memory() and context.get_device_name() == "GPU"
    h, h_next = context.create_tensor(ov.Type.f32, [1, 4]), context.create_tensor(ov.Type.f32, [1, 4], {})
    assert h.is_remote() and h.get_device_name() == "GPU" and "in GPU" in repr(h)
    x = np.array([[1, 2, 3, 4]], dtype=np.float32)
    request = compiled.create_infer_request()
    request.set_tensor("x", ov.Tensor(x))
    for step in range(1, 4):
        request.set_tensor("h", h)
        request.set_tensor("h_out", h_next)
        results = request.infer()
        np.testing.assert_array_equal(results["y"], step * x)  # y comes to the host as numpy
        # h_out came to the host for the results, not for the next inference
        np.testing.assert_array_equal(results["h_out"], step * x)
        h, h_next = h_next, h
        # x goes in, y comes out (the device names the copy of the one value by either Result);
        # h and h_out stay on the device.
        crossed = sorted((p.exec_type, p.node_name) for p in request.profiling_info if p.node_type == "Transfer")
        assert [kind for kind, _ in crossed] == ["read_buffer", "write_buffer"] and crossed[1][1] == "x", crossed
    out = ov.Tensor(np.zeros((1, 4), dtype=np.float32))
    h.copy_to(out)
    np.testing.assert_array_equal(out.data, 3 * x)
    h.copy_from(np.full((1, 4), 7, dtype=np.float32))
    h.copy_to(out)
    np.testing.assert_array_equal(out.data, np.full((1, 4), 7, dtype=np.float32))
    with pytest.raises(RuntimeError, match="memory of device 'GPU'"):
        h.data
    with pytest.raises(ValueError, match="same element type and shape"):
        h.copy_from(np.zeros((1, 5), dtype=np.float32))
    with pytest.raises(ValueError, match="no tensor properties"):
        context.create_tensor(ov.Type.f32, [1, 4], {"SHARED_BUFFER": 1})


def test_a_cpu_context_makes_host_tensors_and_refuses_gpu_ones(running_sum):
    core = ov.Core()
    compiled = core.compile_model(running_sum, "CPU")
    context = compiled.get_context()
    assert not context.has_device_memory()
    t = context.create_tensor(ov.Type.f32, [1, 4])
    assert not t.is_remote() and t.get_device_name() == ""
    np.testing.assert_array_equal(t.data, np.zeros((1, 4), dtype=np.float32))
    gpu = core.get_default_context("GPU").create_tensor(ov.Type.f32, [1, 4])
    request = compiled.create_infer_request()
    request.set_tensor("x", gpu)
    request.set_tensor("h", t)
    with pytest.raises(RuntimeError, match="copy it first"):
        request.infer()
    with pytest.raises(RuntimeError, match="does not exist"):
        core.get_default_context("GPU.9")
