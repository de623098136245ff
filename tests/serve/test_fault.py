"""A model replica killed under load: Ray Serve starts another, and every request sent is accounted
for: answered (Ray Serve sends requests that had not reached the dead replica to the new one) or 503
(retryable, from the ingress, for one the dead replica held), never lost or another error."""
import asyncio
import json
import threading
import time

import pytest
from conftest import need_serving_packages

need_serving_packages()
import ray  # noqa: E402
import requests  # noqa: E402

from mosaic.serve.load import run_load  # noqa: E402


def replica_actors(deployment):
    return [a for a in ray.util.list_named_actors(all_namespaces=True)
            if a["namespace"] == "serve" and f"#{deployment}#" in a["name"]]


def replica_id(server, model):
    return requests.get(f"{server}/v2/models/{model}/stats").json()["model_stats"][0]["replica"]


def test_killed_replica_is_replaced_and_no_request_is_lost(server):
    model = "cnn_default"
    before = replica_id(server, model)
    (victim,) = replica_actors(f"model-{model}")
    result = {}
    load = threading.Thread(target=lambda: result.update(report=asyncio.run(
        run_load(server, model, concurrency=4, max_requests=100_000, duration_s=8.0, timeout_s=60.0))))
    load.start()
    time.sleep(2.0)
    ray.kill(ray.get_actor(victim["name"], namespace="serve"), no_restart=True)  # as a crash: no clean-up
    load.join(timeout=120)
    report = result["report"]
    print(report.text(), report.errors)
    assert report.sent == report.answered + report.failed_retryable + report.failed_other + report.lost
    assert report.lost == 0 and report.failed_other == 0, report.errors
    assert report.answered > 0
    deadline = time.time() + 60
    while time.time() < deadline and requests.get(f"{server}/v2/models/{model}/ready").status_code != 200:
        time.sleep(0.5)
    after = replica_id(server, model)
    assert after != before, "the model answered from the killed replica"
    assert [a["name"] for a in replica_actors(f"model-{model}")] != [victim["name"]]


def test_the_replacement_replica_serves_without_failures(server):
    report = asyncio.run(run_load(server, "cnn_default", concurrency=2, max_requests=20, duration_s=10.0))
    assert (report.answered, report.failed_retryable, report.lost) == (20, 0, 0), report.errors


@pytest.mark.parametrize("failure", [
    ray.exceptions.ActorDiedError(),
    ray.exceptions.ActorUnavailableError("unavailable", None),
    ray.serve.exceptions.BackPressureError(num_queued_requests=9, max_queued_requests=8),
])
def test_a_lost_or_busy_replica_is_a_retryable_503(failure):
    """The ingress's answer when the model replica holding a request dies (or none can take it)."""
    from mosaic.serve.ingress import answer

    async def failing():
        raise failure

    for raised in (failing(), wrapped(failure)):
        response = asyncio.run(answer(raised))
        assert response.status_code == 503 and response.headers["Retry-After"] == "1"
        assert "retry the request" in json.loads(response.body)["error"]


async def wrapped(cause):
    """As Ray Serve raises a replica's death that happened upstream: a RayServeException from it."""
    try:
        raise cause
    except Exception as e:
        raise ray.serve.exceptions.RayServeException("an upstream actor died") from e


def test_any_other_failure_is_a_500_naming_it():
    from mosaic.serve.ingress import answer

    async def failing():
        raise RuntimeError("compiling the model on device 'GPU': out of memory")

    response = asyncio.run(answer(failing()))
    assert response.status_code == 500
    assert json.loads(response.body)["error"] == "RuntimeError: compiling the model on device 'GPU': out of memory"
