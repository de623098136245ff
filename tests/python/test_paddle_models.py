"""PaddleOCR-shaped models as paddle2onnx exports them (tools/models/make_paddle_models.py), read in
Python as they come: no shapes, a dynamic batch (and width), conv biases as separate Adds and
squeeze-and-excitation blocks in the classifier. Each equals PaddlePaddle's own outputs at both of its
data sets' shapes on every device, one compiled model for both.

The C++ suite generates the models into build/paddle_models (tests/onnx/onnx_paddle_model_test.cpp),
which scripts/test.sh runs first; here they are generated the same way when missing.
"""
import numpy as np
import pytest
from generated_models import generated, venv_python

import mosaic as ov


def model_folder(name):
    folder = generated("paddle_models", f"paddle_{name}", "make_paddle_models.py", ["--only", name],
                       venv_python("MOSAIC_EXPORTERS_PYTHON", "build-exporters-venv"), "model.onnx",
                       "PaddlePaddle and paddle2onnx are needed to export the models "
                       "(bash scripts/install_model_exporters.sh)")
    if not (folder / "output_1.npy").is_file():
        pytest.skip(f"{folder} was made before the generator wrote .npy files; remove it to make it again")
    return folder


@pytest.mark.parametrize("device", ["REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU"])
@pytest.mark.parametrize("name", ["cls", "det"])
def test_read_without_shapes_equals_paddle_on_every_device(name, device):
    folder = model_folder(name)
    core = ov.Core()
    model = core.read_model(folder / "model.onnx")
    assert model.input().get_partial_shape()[0] == -1, "the batch stays dynamic, as exported"
    compiled = core.compile_model(model, device)
    request = compiled.create_infer_request()
    for k in range(2):
        x = np.load(folder / f"input_{k}.npy")
        want = np.load(folder / f"output_{k}.npy")
        got = request.infer({0: x})[0]
        assert got.shape == want.shape
        span = float(want.max() - want.min())
        assert float(np.abs(got - want).max()) <= 1e-4 * span, f"{name} on {device} at {x.shape}"


def test_the_query_answers_on_the_dynamic_classifier():
    core = ov.Core()
    model = core.read_model(model_folder("cls") / "model.onnx")
    supported = core.query_model(model, "HETERO:GPU,CPU")
    conv_ops = [op.get_friendly_name() for op in model.get_ops() if op.get_type_name() == "Convolution"]
    assert conv_ops and all(supported[op] == "GPU" for op in conv_ops)
