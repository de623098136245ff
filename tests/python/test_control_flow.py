"""Control flow from OpenVINO IR in Python: If-8 (branches of different shapes), Loop-5 (a trip count
given as an input) and TensorIterator-1 (an RNN cell over a dynamic sequence axis), as OpenVINO's
ov.save_model writes them (tools/models/make_ir_control_flow_models.py), read and run as they come,
equal to OpenVINO's own outputs at both of each model's cases, on every device; the profiling
counters show the Loop's iterations.

The C++ suite generates the models into build/ir_models_control_flow (tests/ir/ir_control_flow_test.cpp),
which scripts/test.sh runs first; here they are generated the same way when missing.
"""
import os

import numpy as np
import pytest
from generated_models import generated

import mosaic as ov


def model_folder():
    return generated("ir_models_control_flow", "ir_control_flow", "make_ir_control_flow_models.py", [],
                     os.environ.get("MOSAIC_PYTHON", "python3"), "done",
                     "OpenVINO's Python package is needed to write the models (scripts/install_python_tools.sh)")


@pytest.mark.parametrize("device", ["REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU"])
@pytest.mark.parametrize("name", ["if", "loop", "tensor_iterator"])
def test_equals_openvino_on_every_device(name, device):
    folder = model_folder()
    core = ov.Core()
    compiled = core.compile_model(core.read_model(folder / f"{name}.xml"), device)
    request = compiled.create_infer_request()
    for k in range(2):
        case = folder / f"{name}_case_{k}"
        inputs = {port.get_any_name(): np.load(case / f"{port.get_any_name()}.npy") for port in compiled.inputs}
        results = request.infer(inputs)
        for i, port in enumerate(compiled.outputs):
            want = np.load(case / f"{port.get_any_name()}.npy")
            got = results[i]
            assert got.shape == want.shape, f"{name} on {device}, case {k}, {port.get_any_name()}"
            assert float(np.abs(got - want).max()) < 1e-5, f"{name} on {device}, case {k}, {port.get_any_name()}"


def test_profiling_shows_the_loop_iterations():
    folder = model_folder()
    core = ov.Core()
    compiled = core.compile_model(core.read_model(folder / "loop.xml"), "CPU", {"PERF_COUNT": True})
    request = compiled.create_infer_request()
    case = folder / "loop_case_1"
    request.infer({"n": np.load(case / "n.npy"), "x": np.load(case / "x.npy")})
    loops = [p for p in request.get_profiling_info() if p.node_type == "Loop"]
    assert [p.exec_type for p in loops] == ["host: 6 iterations of the body"]
