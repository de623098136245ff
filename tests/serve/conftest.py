"""Fixtures for the serving tests: one local Ray instance and one Serve application for the whole
session (starting Ray takes seconds on 2 cores), deployed from a configuration file as mosaic-serve
deploys it, on a free loopback port; a test module's own application is deployed beside it
(deployed()), and the LLM tests share the exported test LLM (llm_folder, pipe).

These tests need Ray Serve and tritonclient[http] (`pip install .[serve] tritonclient[http]`,
scripts/test_serve.sh); the tests that need them are skipped, saying so, where they are missing.
The bundled model comes from the C++ build: $MOSAIC_TEST_MODELS, else <repo>/build/models.
"""
import importlib.util
import json
import pathlib
import socket

import numpy as np
import pytest

import mosaic as ov

REPO = pathlib.Path(__file__).resolve().parents[2]
BATCH_WAIT_S = 0.2


def models_dir():
    """The Python package tests' lookup of the bundled model (their conftest, loaded under another name)."""
    spec = importlib.util.spec_from_file_location("python_tests_conftest", REPO / "tests" / "python" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.models_dir()


def need_serving_packages():
    pytest.importorskip("ray.serve", reason="Ray Serve is not installed: pip install '.[serve]' "
                        "(scripts/test_serve.sh does it in a venv)")
    pytest.importorskip("tritonclient.http", reason="tritonclient is not installed: pip install 'tritonclient[http]'")


@pytest.fixture(scope="session")
def model_path():
    return models_dir() / "mosaic_cnn.xml"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CONFIG = """\
# Two models on one file: cnn merges concurrent requests (batching); cnn_default takes the default
# device (HETERO:GPU,CPU where a GPU exists, else CPU) with per-device properties.
app_name: mosaic-test
ray_actor_options: {{num_cpus: 0.25}}
models:
  - name: cnn
    path: {model}
    device: CPU
    properties: {{INFERENCE_NUM_THREADS: 1}}
    batching: {{max_batch_size: 8, batch_wait_timeout_s: {wait}}}
  - name: cnn_default
    path: {model}
    properties:
      DEVICE_PROPERTIES: {{CPU: {{INFERENCE_NUM_THREADS: 1}}}}
"""


@pytest.fixture(scope="session")
def server(model_path, tmp_path_factory):
    """The base URL of a running server with the models of CONFIG."""
    need_serving_packages()
    import ray
    from ray import serve

    from mosaic.serve.app import app_builder

    config = tmp_path_factory.mktemp("serve") / "serving.yaml"
    config.write_text(CONFIG.format(model=model_path, wait=BATCH_WAIT_S))
    port = free_port()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        serve.run(app_builder({"config": str(config)}), name="mosaic-test", route_prefix="/")
        yield f"http://127.0.0.1:{port}"
    finally:
        serve.shutdown()
        ray.shutdown()


def deployed(config: pathlib.Path, app: str, request):
    """Deploys the application of `config` as `app` for a module's fixture (a generator: yield from
    it) and yields its base URL. On its own it starts Ray and Serve; when the session's server
    already runs them, the application goes beside it under the prefix /<app>."""
    import ray
    from ray import serve

    from mosaic.serve.app import app_builder

    started = not ray.is_initialized()
    if started:
        port = free_port()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        base, prefix = f"http://127.0.0.1:{port}", "/"
    else:
        base, prefix = request.getfixturevalue("server") + f"/{app}", f"/{app}"
    try:
        serve.run(app_builder({"config": str(config)}), name=app, route_prefix=prefix)
        yield base
    finally:
        if started:
            serve.shutdown()
            ray.shutdown()
        else:
            serve.delete(app)


def generated_models():
    """tests/python's lookup and generation of the exported test models (loaded by path: these
    tests run from outside the source tree)."""
    spec = importlib.util.spec_from_file_location("generated_models", REPO / "tests" / "python" / "generated_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def llm_folder():
    """tools/models/make_llm_models.py's Qwen2-shaped model with random weights, as optimum-intel
    exports it."""
    models = generated_models()
    return models.generated("llm_models", "llm_qwen2_ov", "make_llm_models.py", ["--only", "qwen2_ov"],
                            models.venv_python("MOSAIC_TORCH_EXPORTERS_PYTHON", "build-torch-exporters-venv"),
                            "generate.json", "torch, transformers and optimum-intel are needed to export the LLM "
                            "(bash scripts/install_model_exporters.sh)")


@pytest.fixture(scope="session")
def pipe(llm_folder):
    """The test LLM in this process: what the served one must answer."""
    import mosaic.genai as ov_genai
    return ov_genai.LLMPipeline(llm_folder, "CPU")


def llm_stats(app: str, name: str) -> dict:
    """The statistics of LLM `name`'s replica (MosaicLLM.stats) in application `app`."""
    from ray import serve
    return serve.get_deployment_handle(f"llm-{name}", app_name=app).stats.remote().result()


def error_of(response) -> dict:
    """The error of an OpenAI API answer, checked to be in OpenAI's shape."""
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}, body
    return body["error"]


def long_context(folder: pathlib.Path, work: pathlib.Path, tokens: int) -> pathlib.Path:
    """The LLM of `folder` told its context is `tokens` long (its rotary positions are computed, not
    tabled), so that a greedy generation can run seconds: a folder of links beside a new config.json."""
    out = work / f"long_context_{tokens}"
    out.mkdir()
    for item in folder.iterdir():
        if item.name != "config.json":
            (out / item.name).symlink_to(item)
    model_config = json.loads((folder / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({**model_config, "max_position_embeddings": tokens}))
    return out


@pytest.fixture(scope="session")
def devices():
    return ov.Core().available_devices


@pytest.fixture
def image():
    return np.random.default_rng(7).random((1, 3, 32, 32), dtype=np.float32)
