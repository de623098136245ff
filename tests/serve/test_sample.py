"""samples/python/kserve_client: sends an image to the server with tritonclient and prints the same
top classes as mosaic.Core computes in this process from the same pixels."""
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO, need_serving_packages

import mosaic as ov

need_serving_packages()
Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed: pip install pillow")

SAMPLE = REPO / "samples" / "python" / "kserve_client" / "kserve_client.py"
sys.path.insert(0, str(REPO / "samples" / "python" / "hello_classification"))
from hello_classification import image_tensor  # noqa: E402


def rows_of(text):
    return [(int(m[1]), float(m[2])) for m in re.finditer(r"^(\d+)\s+([0-9.]+)\s*$", text, re.M)]


def test_sample_classifies_an_image_as_core_does(server, model_path, tmp_path):
    y, x = np.mgrid[0:48, 0:40]
    picture = tmp_path / "picture.png"
    Image.fromarray(np.stack([(y * 5 + x * 3 + c * 70) % 256 for c in range(3)], -1).astype(np.uint8)).save(picture)
    done = subprocess.run([sys.executable, str(SAMPLE), "--url", server.split("//")[1], "--model", "cnn",
                           "--image", str(picture)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    scores = ov.Core().compile_model(model_path, "CPU")({"data": image_tensor(picture, [1, 3, 32, 32], np.float32)})[0]
    scores = scores.reshape(-1)
    top = np.argsort(scores, kind="stable")[::-1][:10]
    assert rows_of(done.stdout) == [(int(c), round(float(scores[c]), 7)) for c in top]


def test_sample_reports_an_unknown_model(server):
    done = subprocess.run([sys.executable, str(SAMPLE), "--url", server.split("//")[1], "--model", "resnet"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "unknown model 'resnet'" in done.stderr
