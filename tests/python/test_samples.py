"""The Python samples (samples/python) run as a user runs them: hello_classification classifies a
PNG and a JPEG, printing the scores the package computes from the same pixels and, for an image at
the input's size, the same table as the C++ sample; a file that is not an image is one clear error.
hello_query_device lists every device with its properties."""
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import mosaic as ov

REPO = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples" / "python"
CPP_SAMPLE = REPO / "build" / "bin" / "hello_classification"


def run_sample(name, *args):
    return subprocess.run([sys.executable, str(SAMPLES / name / f"{name}.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def rows_of(text):
    """(class id, score) rows of a sample's top-10 table, C++ or Python."""
    return [(int(m[1]), float(m[2])) for m in re.finditer(r"^(?:\[ INFO \] )?(\d+)\s+([0-9.]+)\s*$", text, re.M)]


def picture(path, size):
    """A test picture, distinct in every channel, row and column."""
    y, x = np.mgrid[0:size[1], 0:size[0]]
    rgb = np.stack([(y * 7 + x * 3 + c * 85) % 256 for c in range(3)], axis=-1).astype(np.uint8)
    Image.fromarray(rgb, "RGB").save(path, quality=95)
    return path


def expected_scores(model_path, path):
    """What the model gives for the image, laid out as the samples document (BGR, NCHW, 0..255)."""
    with Image.open(path) as image:
        rgb = np.asarray(image.convert("RGB").resize((32, 32), Image.BILINEAR), dtype=np.float32)
    data = np.ascontiguousarray(rgb[:, :, ::-1].transpose(2, 0, 1)[np.newaxis])
    compiled = ov.Core().compile_model(model_path, "REFERENCE")
    return np.asarray(compiled({0: data})[0]).reshape(-1)


@pytest.mark.parametrize("name,size,device", [("picture.png", (48, 40), "HETERO:GPU,CPU"),
                                              ("picture.jpg", (64, 64), "CPU")])
def test_hello_classification_classifies(tmp_path, model_path, name, size, device):
    path = picture(tmp_path / name, size)
    r = run_sample("hello_classification", model_path, path, device)
    assert r.returncode == 0, r.stderr
    assert "Top 10 results:" in r.stdout and f"Image path: {path}" in r.stdout
    rows = rows_of(r.stdout)
    scores = expected_scores(model_path, path)
    assert len(rows) == 10
    ranked = np.sort(scores)[::-1]
    for i, (class_id, score) in enumerate(rows):
        assert score == pytest.approx(scores[class_id], abs=1e-5)
        assert score == pytest.approx(ranked[i], abs=1e-5)


def test_hello_classification_agrees_with_the_cpp_sample(tmp_path, model_path):
    if not CPP_SAMPLE.is_file():
        pytest.skip(f"{CPP_SAMPLE} is not built")
    path = picture(tmp_path / "exact.png", (32, 32))  # no resizing: both read the same pixels
    py = run_sample("hello_classification", model_path, path, "CPU")
    cpp = subprocess.run([str(CPP_SAMPLE), str(model_path), str(path), "CPU"], capture_output=True, text=True,
                         timeout=300)
    assert py.returncode == 0 and cpp.returncode == 0, py.stderr + cpp.stderr
    py_rows, cpp_rows = rows_of(py.stdout), rows_of(cpp.stdout)
    assert len(py_rows) == len(cpp_rows) == 10
    for (_, ps), (_, cs) in zip(py_rows, cpp_rows):
        assert ps == pytest.approx(cs, abs=1e-5)


def test_hello_classification_runs_a_dynamic_batch_at_batch_one(tmp_path, model_path):
    # The bundled IR with its batch made dynamic, as torch exports models: [?,3,32,32].
    xml = model_path.read_text().replace('shape="1,3,32,32"', 'shape="?,3,32,32"', 1)
    xml = xml.replace("<dim>1</dim>", "<dim>-1</dim>", 1)
    (tmp_path / "dynamic.xml").write_text(xml)
    (tmp_path / "dynamic.bin").write_bytes(model_path.with_suffix(".bin").read_bytes())
    assert ov.Core().read_model(tmp_path / "dynamic.xml").input(0).get_partial_shape().is_dynamic
    path = picture(tmp_path / "picture.png", (32, 32))
    r = run_sample("hello_classification", tmp_path / "dynamic.xml", path, "CPU")
    assert r.returncode == 0, r.stderr
    scores = expected_scores(model_path, path)
    rows = rows_of(r.stdout)
    assert len(rows) == 10
    for class_id, score in rows:
        assert score == pytest.approx(scores[class_id], abs=1e-5)


def test_hello_classification_refuses_a_file_that_is_not_an_image(tmp_path, model_path):
    path = tmp_path / "notes.png"
    path.write_text("these are not pixels\n")
    r = run_sample("hello_classification", model_path, path, "CPU")
    assert r.returncode == 1
    assert str(path) in r.stderr and "not a readable JPEG or PNG image" in r.stderr
    assert "Traceback" not in r.stderr
    missing = run_sample("hello_classification", model_path, tmp_path / "missing.jpg", "CPU")
    assert missing.returncode == 1 and "does not exist" in missing.stderr


def test_hello_query_device_lists_devices_and_properties():
    r = run_sample("hello_query_device")
    assert r.returncode == 0, r.stderr
    for device in ("REFERENCE", "CPU", "HETERO"):
        assert f"[ INFO ] {device} :" in r.stdout
    assert "Immutable: FULL_DEVICE_NAME: Mosaic reference device" in r.stdout
    assert re.search(r"Mutable: PERF_COUNT: (NO|False)", r.stdout)
