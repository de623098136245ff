"""Fixtures for the tests of the installed Python package `mosaic`.

The tests run against `mosaic` as `pip install .` installed it (scripts/test.sh uses a fresh venv),
never against python/ in the source tree. They use the bundled default model, which the C++ build
generates: $MOSAIC_TEST_MODELS, else <repo>/build/models (scripts/build.sh).
"""
import os
import pathlib

import numpy as np
import pytest

import mosaic as ov

REPO = pathlib.Path(__file__).resolve().parents[2]


def models_dir():
    found = pathlib.Path(os.environ.get("MOSAIC_TEST_MODELS", REPO / "build" / "models"))
    if not (found / "mosaic_cnn.xml").is_file():
        raise pytest.UsageError(f"the bundled model {found / 'mosaic_cnn.xml'} is missing: build it with "
                                "scripts/build.sh (target mosaic_default_model) or set MOSAIC_TEST_MODELS")
    return found


@pytest.fixture(scope="session")
def model_path():
    return models_dir() / "mosaic_cnn.xml"


@pytest.fixture(scope="session")
def core():
    return ov.Core()


@pytest.fixture
def model(core, model_path):
    """A freshly read model: tests may change its runtime info and shapes."""
    return core.read_model(model_path)


# These two have their own Core, so that tests may replace `core` with one of theirs.
@pytest.fixture(scope="session")
def compiled(model_path):
    return ov.Core().compile_model(model_path, "CPU")


@pytest.fixture(scope="session")
def reference(model_path):
    return ov.Core().compile_model(model_path, "REFERENCE")


@pytest.fixture
def image():
    return np.random.default_rng(7).random((1, 3, 32, 32), dtype=np.float32)
