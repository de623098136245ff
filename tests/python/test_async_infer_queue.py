"""AsyncInferQueue: a pool of requests with a completion callback."""
import sys

import numpy as np
import pytest

import mosaic as ov


def test_queue_runs_every_job_and_calls_back_with_userdata(compiled, reference):
    queue = ov.AsyncInferQueue(compiled, 2)
    assert len(queue) == 2 and queue[0] is list(queue)[0]
    images = [np.random.default_rng(i).random((1, 3, 32, 32), dtype=np.float32) for i in range(8)]
    got = {}
    queue.set_callback(lambda request, index: got.__setitem__(index, request.results["prob"]))
    for i, image in enumerate(images):
        queue.start_async({"data": image}, i)
    queue.wait_all()
    assert queue.is_ready()
    assert sorted(got) == list(range(8))
    for i, image in enumerate(images):
        np.testing.assert_allclose(got[i], reference([image])["prob"], rtol=1e-4, atol=1e-6)


def test_a_raising_callback_leaves_the_queue_working(compiled, image, monkeypatch):
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: reported.append(u.exc_value))
    queue = ov.AsyncInferQueue(compiled, 1)

    def callback(request, userdata):
        raise ValueError("raised in a queue callback")

    queue.set_callback(callback)
    for _ in range(3):  # one request: each start waits for the previous one to become idle
        queue.start_async([image])
    queue.wait_all()
    assert queue.is_ready()
    assert len(reported) == 3 and all(isinstance(e, ValueError) for e in reported)


def test_bad_input_is_raised_by_start_async_and_the_request_stays_idle(compiled):
    queue = ov.AsyncInferQueue(compiled, 1)
    with pytest.raises(TypeError):
        queue.start_async({"data": "text"})
    assert queue.is_ready()


def test_zero_jobs_means_the_optimal_number(compiled):
    assert len(ov.AsyncInferQueue(compiled)) == compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS")
