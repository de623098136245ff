"""Backpressure end to end on loopback: a model's max_queued_requests bounds the requests waiting for
it, and a request past the bound gets 503 with Retry-After at once, in its protocol's error shape,
counted in the statistics, while the accepted requests are answered as without the bound and the
model serves on after the burst.

Both waits are held full on purpose rather than by racing the clock: the KServe model is a chain of
2048 x 2048 MatMuls that runs for seconds, one at a time (max_ongoing_requests: 1), so of a burst one
runs, at most one waits in the ingress (Ray Serve's queue) and the rest are refused; the LLM has one
batch row (max_num_seqs: 1), held by a streamed generation far too long to end during the test, so
one request waits in the replica for the row and the next ones are refused until the stream is
closed.
"""
import asyncio
import concurrent.futures
import json
import time
from collections import Counter

import numpy as np
import pytest
from conftest import deployed, error_of, llm_stats, long_context, need_serving_packages

from mosaic.serve.config import parse_config

APP = "mosaic-backpressure-test"
PROMPT = "The quick brown fox"
# The held generation: greedy from HOLD_PROMPT, the test LLM falls into a loop with no end-of-sequence
# (past 6000 tokens, tens of seconds on 2 cores), so it runs until its stream is closed or the
# context (HOLD_CONTEXT) is full; from PROMPT it would end at 1928 tokens, a few seconds.
HOLD_PROMPT, HOLD_CONTEXT = "The", 16384
# About 4 s an inference on one core: every request of the burst must reach the replica while the
# first runs (at 12 layers, 2 s, a CI run under load once saw a third request answered).
SLOW_SIZE, SLOW_LAYERS = 2048, 24
BURST = 6

CONFIG = """\
ray_actor_options: {{num_cpus: 0.25}}
max_queued_requests: 1
models:
  - name: slow
    path: {slow}
    device: CPU
    properties: {{INFERENCE_NUM_THREADS: 1}}
    max_ongoing_requests: 1
  - name: tiny-queue
    task: llm
    path: {llm}
    device: CPU
    properties: {{INFERENCE_NUM_THREADS: 1}}
    max_num_seqs: 1
"""


def slow_model(folder, size: int, layers: int):
    """An IR that takes x [1, size] to x (x^T x) W ... W, with W the identity `layers` times: its
    answer is known (x x^T x) and its time grows with `layers`."""
    (folder / "slow.bin").write_bytes(np.eye(size, dtype=np.float32).tobytes())

    def port(number, rows, name=""):
        names = f' names="{name}"' if name else ""
        return f'<port id="{number}" precision="FP32"{names}><dim>{rows}</dim><dim>{size}</dim></port>'

    def matmul(number, a_rows, b_rows, out_rows, transpose_a="false", name=""):
        return (f'<layer id="{number}" name="matmul{number}" type="MatMul" version="opset1">'
                f'<data transpose_a="{transpose_a}" transpose_b="false"/><input>{port(0, a_rows)}{port(1, b_rows)}'
                f'</input><output>{port(2, out_rows, name)}</output></layer>')

    last = 3 + layers  # x, W, x^T x, the layers, then the projection by x and the result
    xml = [f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,{size}" element_type="f32"/>'
           f'<output>{port(0, 1, "x")}</output></layer>',
           f'<layer id="1" name="w" type="Const" version="opset1"><data element_type="f32" shape="{size},{size}" '
           f'offset="0" size="{size * size * 4}"/><output>{port(0, size)}</output></layer>',
           matmul(2, 1, 1, size, transpose_a="true")]
    xml += [matmul(number, size, size, size) for number in range(3, last)]
    xml += [matmul(last, 1, size, 1, name="y"),
            f'<layer id="{last + 1}" name="y" type="Result" version="opset1"><input>{port(0, 1)}</input></layer>']
    edges = [(0, 0, 2, 0), (0, 0, 2, 1), (0, 0, last, 0), (last - 1, 2, last, 1), (last, 2, last + 1, 0)]
    edges += [(e, 2, e + 1, 0) for e in range(2, last - 1)] + [(1, 0, e, 1) for e in range(3, last)]
    edge_xml = "".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>' for a, b, c, d in edges)
    (folder / "slow.xml").write_text(f'<?xml version="1.0"?>\n<net name="slow" version="11"><layers>{"".join(xml)}'
                                     f'</layers><edges>{edge_xml}</edges></net>\n')
    return folder / "slow.xml"


@pytest.fixture(scope="module")
def server(llm_folder, tmp_path_factory, request):
    """The base URL of the application (conftest.deployed)."""
    need_serving_packages()
    work = tmp_path_factory.mktemp("serve-backpressure")
    config = work / "serving.yaml"
    config.write_text(CONFIG.format(slow=slow_model(work, SLOW_SIZE, SLOW_LAYERS),
                                    llm=long_context(llm_folder, work, HOLD_CONTEXT)))
    yield from deployed(config, APP, request)


def test_the_bound_is_ray_serves_deployment_option():
    """Ray Serve's handle enforces the bound on requests waiting for a replica: the option reaches it."""
    need_serving_packages()
    from mosaic.serve.llm_deployment import llm_deployment
    from mosaic.serve.model_deployment import model_deployment

    config = parse_config({"max_queued_requests": 4, "models": [
        {"name": "cnn", "path": "cnn.xml"}, {"name": "qwen", "task": "llm", "path": "qwen", "max_queued_requests": 2},
        {"name": "open", "path": "cnn.xml", "max_queued_requests": None}]})
    cnn, qwen, unbounded = config.models
    assert model_deployment(cnn).max_queued_requests == 4
    assert llm_deployment(qwen).max_queued_requests == 2
    assert model_deployment(unbounded).max_queued_requests == -1  # null undoes the default: Ray's "no bound"


def test_ray_serves_refusal_of_an_llm_request_is_503_before_the_stream():
    """The ingress's answer when Ray Serve's queue for the LLM's replicas is full, streamed or not."""
    need_serving_packages()
    from ray.serve.exceptions import BackPressureError

    from mosaic.serve.ingress import RETRYABLE
    from mosaic.serve.openai_ingress import OpenAIFront

    class Refused:  # a deployment handle whose queue is full, as Ray Serve's raises at the first item
        cancelled = 0

        def options(self, stream):
            return self

        @property
        def generate(self):
            return self

        def remote(self, request):
            return self

        async def __anext__(self):
            raise BackPressureError(num_queued_requests=3, max_queued_requests=3)

        def cancel(self):
            Refused.cancelled += 1

    class Body:
        def __init__(self, data):
            self.data = data

        async def body(self):
            return json.dumps(self.data).encode()

    refused = Counter()
    front = OpenAIFront({"qwen": Refused()}, RETRYABLE, refused)
    for stream in (False, True):
        response = asyncio.run(front.completions(Body({"model": "qwen", "prompt": PROMPT, "stream": stream})))
        assert response.status_code == 503 and response.headers["Retry-After"] == "1"
        error = json.loads(response.body)["error"]
        assert (error["code"], error["type"]) == ("queue_full", "server_error")
        assert "model 'qwen'" in error["message"] and "waiting for a replica" in error["message"]
        assert "max_queued_requests: 3" in error["message"] and "retry after 1 s" in error["message"]
    assert refused == {"qwen": 2} and Refused.cancelled == 2


def kserve_stats(server) -> dict:
    import requests
    return requests.get(f"{server}/v2/models/slow/stats").json()["model_stats"][0]


def test_a_full_kserve_queue_is_503_with_retry_after(server):
    import requests
    from ray import serve

    x = np.random.default_rng(3).random((1, SLOW_SIZE), dtype=np.float32)
    expected = x @ (x.T @ x)
    body = {"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, SLOW_SIZE], "data": x.ravel().tolist()}]}

    def infer():
        return requests.post(f"{server}/v2/models/slow/infer", json=body, timeout=120)

    def answered(response) -> bool:
        output = response.json()["outputs"][0]
        return output["shape"] == [1, SLOW_SIZE] and np.allclose(output["data"], expected.ravel(), rtol=1e-4)

    first = infer()  # the ingress reads the model's metadata once, before the burst
    assert first.status_code == 200 and answered(first)
    before = kserve_stats(server)
    with concurrent.futures.ThreadPoolExecutor(BURST) as pool:
        answers = list(pool.map(lambda _: infer(), range(BURST)))
    statuses = Counter(a.status_code for a in answers)
    assert set(statuses) == {200, 503}, statuses
    # One request runs; while it does (seconds), at most one waits for the replica.
    assert 1 <= statuses[200] <= 2, statuses
    assert all(answered(a) for a in answers if a.status_code == 200)
    for refused in (a for a in answers if a.status_code == 503):
        assert refused.headers["Retry-After"] == "1"
        message = refused.json()["error"]
        assert "model 'slow'" in message and "waiting for a replica is full" in message, message
        assert "max_queued_requests: 1" in message and "retry after 1 s" in message, message

    after = kserve_stats(server)
    assert after["queue_full"] - before["queue_full"] == statuses[503]
    assert after["inference_stats"]["success"]["count"] - before["inference_stats"]["success"]["count"] \
        == statuses[200]
    ingress = serve.get_deployment_handle("kserve-ingress", app_name=APP)
    assert ingress.refusals.remote().result() == {"slow": after["queue_full"]}
    again = infer()  # nothing is left behind: the next request is answered
    assert again.status_code == 200 and answered(again)
    print(f"a burst of {BURST}: {dict(statuses)}")


def test_a_full_llm_queue_is_503_before_any_event(server, pipe):
    import requests

    url = f"{server}/v1/completions"
    request = {"model": "tiny-queue", "prompt": PROMPT, "max_tokens": 16, "temperature": 0}
    expected = pipe.generate(PROMPT, max_new_tokens=16, do_sample=False).texts[0]
    before = llm_stats(APP, "tiny-queue")
    assert before["max_queued_requests"] == 1  # the top-level default
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        hold = {**request, "prompt": HOLD_PROMPT, "max_tokens": HOLD_CONTEXT, "stream": True}
        with requests.post(url, json=hold, stream=True, timeout=60) as running:
            assert running.status_code == 200
            lines = running.iter_lines()  # kept: a dropped iterator would close the connection
            assert next(line for line in lines if line.startswith(b"data: "))  # it has the row
            waiting = pool.submit(requests.post, url, json=request, timeout=120)
            deadline = time.monotonic() + 30
            while llm_stats(APP, "tiny-queue")["running"] < 2 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert llm_stats(APP, "tiny-queue")["running"] == 2  # one generating, one waiting for the row
            for stream in (False, True):  # a stream too: the status, not an error event
                r = requests.post(url, json={**request, "stream": stream}, stream=stream, timeout=30)
                assert r.status_code == 503 and r.headers["Retry-After"] == "1", (r.status_code, r.text)
                assert r.headers["Content-Type"] == "application/json"
                error = error_of(r)
                assert (error["code"], error["type"]) == ("queue_full", "server_error")
                assert "model 'tiny-queue'" in error["message"] and "waiting for a batch row is full" in error["message"]
                assert "max_queued_requests: 1" in error["message"] and "retry after 1 s" in error["message"]
        # The held stream is closed: its generation stops and the waiting request gets the row.
        answer = waiting.result()
    assert answer.status_code == 200, answer.text
    assert answer.json()["choices"][0]["text"] == expected
    again = requests.post(url, json=request, timeout=120)
    assert again.status_code == 200 and again.json()["choices"][0]["text"] == expected
    deadline = time.monotonic() + 30  # a generation's end is counted once the ingress has let go of it
    while (stats := llm_stats(APP, "tiny-queue"))["running"] and time.monotonic() < deadline:
        time.sleep(0.02)
    counts = {k: stats[k] - before[k] for k in ("requests", "queue_full", "completed", "cancelled", "failed", "running")}
    assert counts == {"requests": 5, "queue_full": 2, "completed": 2, "cancelled": 1, "failed": 0, "running": 0}, counts
