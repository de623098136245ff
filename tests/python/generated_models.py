"""Models the tests generate on first use with an exporter's Python (never committed), as the C++
suite does (tests/onnx/exporter_models.hpp): $MOSAIC_GENERATED_MODELS/<dir>, else
$MOSAIC_BUILD_DIR/<dir>, else build/<dir>. scripts/test.sh runs the C++ suite first, so the folders
are usually there; otherwise one generation at a time (flock), as tests may run in parallel.
"""
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def root(dir_name):
    base = os.environ.get("MOSAIC_GENERATED_MODELS") or os.environ.get("MOSAIC_BUILD_DIR") or REPO / "build"
    return pathlib.Path(base) / dir_name


def venv_python(env, venv_folder):
    """An exporters' venv's python (scripts/install_model_exporters.sh): `env` when set, else the
    venv in the source tree; None when neither exists."""
    found = os.environ.get(env) or str(REPO / venv_folder / "bin" / "python")
    return found if pathlib.Path(found).is_file() else None


def generated(dir_name, folder, script, arguments, python, marker, missing):
    """root(dir_name)/folder, made by `python tools/models/<script> ROOT <arguments>` unless `marker`
    (a file the script writes last) is there; skips the test saying `missing` when `python` is None
    or the script fails."""
    models = root(dir_name)
    found = models / folder
    if (found / marker).is_file():
        return found
    if python is None:
        pytest.skip(missing)
    models.mkdir(parents=True, exist_ok=True)
    made = subprocess.run(["flock", str(models / ".lock"), python, str(REPO / "tools/models" / script), str(models),
                           *arguments], capture_output=True, text=True)
    if made.returncode != 0 or not (found / marker).is_file():
        pytest.skip(f"{missing}; {script} said: {made.stderr.strip()[-400:]}")
    return found
