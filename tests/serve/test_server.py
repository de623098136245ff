"""The server end to end on loopback: deployed from a configuration file on a local Ray instance,
called with tritonclient and with plain HTTP (requests); outputs equal mosaic.Core's run in this
process; bad requests get the protocol's errors and leave the replicas serving; concurrent requests
are merged into batches the replica reports."""
import concurrent.futures
import json

import numpy as np
import pytest

import mosaic as ov
from conftest import need_serving_packages
from mosaic.serve.config import default_device

need_serving_packages()
import requests  # noqa: E402  (after the skip: part of the serving extra)
import tritonclient.http as httpclient  # noqa: E402
from tritonclient.utils import InferenceServerException  # noqa: E402

OUTPUTS = ["prob", "top5_probabilities", "top5_classes"]


@pytest.fixture(scope="module")
def client(server):
    return httpclient.InferenceServerClient(server.split("//")[1])


@pytest.fixture(scope="module")
def expected(model_path, devices):
    """What mosaic.Core gives in this process, for each served model's device and batch."""
    core = ov.Core()

    def run(x, device="CPU", properties=None):
        model = core.read_model(model_path)
        model.reshape([x.shape[0], 3, 32, 32])
        return core.compile_model(model, device, properties or {}).create_infer_request().infer({"data": x})
    return run


def default_run(expected, devices, x):
    return expected(x, default_device(devices), {"DEVICE_PROPERTIES": {"CPU": {"INFERENCE_NUM_THREADS": 1}}})


def test_server_metadata_and_health(server, client):
    meta = requests.get(f"{server}/v2").json()
    assert meta["name"] == "mosaic" and "binary_tensor_data" in meta["extensions"]
    assert requests.get(f"{server}/v2/health/live").status_code == 200
    assert requests.get(f"{server}/v2/health/ready").status_code == 200
    assert client.is_server_live() and client.is_server_ready()
    assert client.is_model_ready("cnn") and client.is_model_ready("cnn_default")
    assert client.get_server_metadata()["version"] == meta["version"]


def test_model_metadata_names_the_protocol_datatypes_and_the_batch_dimension(server, client):
    cnn = client.get_model_metadata("cnn")
    assert cnn["inputs"] == [{"name": "data", "datatype": "FP32", "shape": [-1, 3, 32, 32]}]  # batched: -1
    assert cnn["outputs"] == [{"name": "prob", "datatype": "FP32", "shape": [-1, 10]},
                              {"name": "top5_probabilities", "datatype": "FP32", "shape": [-1, 5]},
                              {"name": "top5_classes", "datatype": "INT32", "shape": [-1, 5]}]
    assert requests.get(f"{server}/v2/models/cnn_default").json()["inputs"][0]["shape"] == [1, 3, 32, 32]
    assert requests.get(f"{server}/v2/models/cnn/versions/1").json()["name"] == "cnn"


def test_json_request_over_plain_http_equals_core(server, expected, devices, image):
    body = {"id": "q1", "inputs": [{"name": "data", "shape": [1, 3, 32, 32], "datatype": "FP32",
                                    "data": image.ravel().tolist()}]}
    for model, want in (("cnn", expected(image)), ("cnn_default", default_run(expected, devices, image))):
        r = requests.post(f"{server}/v2/models/{model}/infer", json=body)
        assert r.status_code == 200, r.text
        answer = r.json()
        assert answer["id"] == "q1" and [o["name"] for o in answer["outputs"]] == OUTPUTS
        for out in answer["outputs"]:
            got = np.array(out["data"], dtype=want[out["name"]].dtype).reshape(out["shape"])
            np.testing.assert_array_equal(got, want[out["name"]])  # float32 survives JSON exactly
        assert answer["outputs"][2]["datatype"] == "INT32"


def test_binary_tensors_with_tritonclient_equal_core(client, expected, devices, image):
    for model, want in (("cnn", expected(image)), ("cnn_default", default_run(expected, devices, image))):
        data = httpclient.InferInput("data", [1, 3, 32, 32], "FP32")
        data.set_data_from_numpy(image, binary_data=True)
        outputs = [httpclient.InferRequestedOutput("prob", binary_data=True),
                   httpclient.InferRequestedOutput("top5_classes", binary_data=False)]
        result = client.infer(model, [data], outputs=outputs)
        np.testing.assert_array_equal(result.as_numpy("prob"), want["prob"])
        np.testing.assert_array_equal(result.as_numpy("top5_classes"), want["top5_classes"])
        kinds = {o["name"]: ("data" in o, o.get("parameters")) for o in result.get_response()["outputs"]}
        assert kinds == {"prob": (False, {"binary_data_size": 40}), "top5_classes": (True, None)}


def test_raw_binary_request_and_response_over_plain_http(server, expected):
    x = np.random.default_rng(3).random((3, 3, 32, 32), dtype=np.float32)  # 3 rows in one request
    header = json.dumps({"inputs": [{"name": "data", "shape": list(x.shape), "datatype": "FP32",
                                     "parameters": {"binary_data_size": x.nbytes}}],
                         "outputs": [{"name": "top5_classes"}, {"name": "prob"}],
                         "parameters": {"binary_data_output": True}}).encode()
    r = requests.post(f"{server}/v2/models/cnn/infer", data=header + x.tobytes(),
                      headers={"Inference-Header-Content-Length": str(len(header))})
    assert r.status_code == 200, r.text
    n = int(r.headers["Inference-Header-Content-Length"])
    outputs = json.loads(r.content[:n])["outputs"]
    assert [(o["name"], o["shape"], o["parameters"]["binary_data_size"]) for o in outputs] == \
        [("top5_classes", [3, 5], 60), ("prob", [3, 10], 120)]
    want = expected(x)
    np.testing.assert_array_equal(np.frombuffer(r.content[n:n + 60], np.int32).reshape(3, 5), want["top5_classes"])
    np.testing.assert_array_equal(np.frombuffer(r.content[n + 60:], np.float32).reshape(3, 10), want["prob"])


def tensor(shape=(1, 3, 32, 32), datatype="FP32", name="data", size=None):
    return {"name": name, "shape": list(shape), "datatype": datatype,
            "data": [0] * (int(np.prod(shape)) if size is None else size)}


@pytest.mark.parametrize("path, body, status, message", [
    ("cnn", {"inputs": [tensor(shape=(1, 3, 16, 16))]}, 400, "has shape [-1, 3, 32, 32]"),
    ("cnn_default", {"inputs": [tensor(shape=(2, 3, 32, 32))]}, 400, "has shape [1, 3, 32, 32]"),
    ("cnn", {"inputs": [tensor(shape=(9, 3, 32, 32))]}, 400, "takes 1 to 8 rows"),
    ("cnn", {"inputs": [tensor(datatype="INT64")]}, 400, "has datatype FP32, the request sent INT64"),
    ("cnn", {"inputs": [tensor(size=5)]}, 400, "'data' has 5 elements"),
    ("cnn", {"inputs": [tensor(name="image")]}, 400, "unknown input 'image'"),
    ("cnn", {"inputs": [tensor()], "outputs": [{"name": "logits"}]}, 400, "unknown output 'logits'"),
    ("cnn", {"inputs": []}, 400, "needs an 'inputs' list"),
    ("resnet", {"inputs": [tensor()]}, 404, "unknown model 'resnet'; served models: ['cnn', 'cnn_default']"),
    ("cnn/versions/2", {"inputs": [tensor()]}, 404, "has no version '2'"),
])
def test_bad_requests_get_the_protocols_errors(server, path, body, status, message):
    r = requests.post(f"{server}/v2/models/{path}/infer", json=body)
    assert r.status_code == status, r.text
    assert message in r.json()["error"]


def test_malformed_bodies_and_unknown_paths(server, client):
    r = requests.post(f"{server}/v2/models/cnn/infer", data=b"\x00\x01 not json")
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]
    r = requests.post(f"{server}/v2/models/cnn/infer", data=b"{}", headers={"Inference-Header-Content-Length": "x"})
    assert r.status_code == 400 and "must be an integer" in r.json()["error"]
    r = requests.get(f"{server}/v2/nothing")
    assert r.status_code == 404 and "error" in r.json()
    assert requests.get(f"{server}/v2/models/resnet/ready").status_code == 404
    with pytest.raises(InferenceServerException, match="datatype FP32, the request sent FP64"):
        data = httpclient.InferInput("data", [1, 3, 32, 32], "FP64")
        data.set_data_from_numpy(np.zeros((1, 3, 32, 32)))
        client.infer("cnn", [data])
    assert client.is_server_ready()  # nothing above took a replica down


def batch_sizes(client, model="cnn"):
    stats = client.get_inference_statistics(model)["model_stats"][0]
    return {b["batch_size"]: b["compute_infer"]["count"] for b in stats["batch_stats"]}


def test_concurrent_requests_are_merged_into_batches(server, client, expected):
    """8 clients at once, each with its own image: the replica runs them as batches of more than one
    row (its batch-size histogram grows there) and each client gets its own image's outputs."""
    before = batch_sizes(client)
    images = [np.random.default_rng(100 + i).random((1, 3, 32, 32), dtype=np.float32) for i in range(8)]

    def call(x):
        own = httpclient.InferenceServerClient(server.split("//")[1])
        data = httpclient.InferInput("data", [1, 3, 32, 32], "FP32")
        data.set_data_from_numpy(x)
        return own.infer("cnn", [data]).as_numpy("prob")

    with concurrent.futures.ThreadPoolExecutor(len(images)) as pool:
        results = list(pool.map(call, images))
    for x, got in zip(images, results):
        np.testing.assert_array_equal(got, expected(x)["prob"])
    after = batch_sizes(client)
    merged = {size: after[size] - before.get(size, 0) for size in after if size > 1 and after[size] > before.get(size, 0)}
    assert merged, f"no execution ran more than one row: batch sizes before {before}, after {after}"
    rows = sum(size * count for size, count in after.items()) - sum(size * count for size, count in before.items())
    assert rows == len(images)


def test_stats_of_every_model(server):
    stats = requests.get(f"{server}/v2/models/stats").json()["model_stats"]
    assert [s["name"] for s in stats] == ["cnn", "cnn_default"]
    assert all(s["inference_count"] > 0 for s in stats)  # every earlier test ran both
