"""Stateful models: Model.make_stateful (ov.pass.MakeStateful) and the request's variables
(query_state, reset_state, VariableState), as OpenVINO's Python API has them."""
import numpy as np
import pytest

import mosaic as ov

from small_models import RUNNING_SUM


@pytest.fixture
def stateful(tmp_path):
    path = tmp_path / "running_sum.xml"
    path.write_text(RUNNING_SUM)
    model = ov.Core().read_model(path)
    model.make_stateful({"h": "h_out"})
    return model


@pytest.mark.parametrize("device", ["CPU", "HETERO:CPU,REFERENCE"])
def test_the_request_keeps_the_state_and_resets_it(stateful, device):
    request = ov.Core().compile_model(stateful, device).create_infer_request()
    x = np.array([[1, 2, 3, 4]], np.float32)
    assert len(stateful.inputs) == 1
    for k in range(1, 4):
        out = request.infer({"x": x})
        np.testing.assert_array_equal(out[0], k * x)
    request.reset_state()
    np.testing.assert_array_equal(request.infer({"x": x})[0], x)


def test_query_state_reads_and_sets_a_variable(stateful):
    request = ov.Core().compile_model(stateful, "CPU").create_infer_request()
    (state,) = request.query_state()
    assert state.name == "h" and state.get_name() == "h"
    np.testing.assert_array_equal(state.state.data, np.zeros((1, 4), np.float32))
    state.state = np.full((1, 4), 10, np.float32)
    np.testing.assert_array_equal(request.infer({"x": np.ones((1, 4), np.float32)})[0], np.full((1, 4), 11))
    np.testing.assert_array_equal(state.get_state().data, np.full((1, 4), 11))
    state.reset()
    np.testing.assert_array_equal(request.infer({"x": np.ones((1, 4), np.float32)})[0], np.ones((1, 4)))
    with pytest.raises(ValueError, match=r"variable 'h' holds f32 \[1,4\]"):
        state.set_state(np.zeros((4,), np.float32))


def test_make_stateful_names_a_missing_port(tmp_path):
    path = tmp_path / "running_sum.xml"
    path.write_text(RUNNING_SUM)
    model = ov.Core().read_model(path)
    with pytest.raises(RuntimeError, match="make_stateful"):
        model.make_stateful({"h": "nope"})
