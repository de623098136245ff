"""infer() runs without the GIL. Shown by what another Python thread does meanwhile, not by wall
time: how much two inferences overlap is a figure for a benchmark, not a test, and on a shared
2-core machine a timed ratio failed whenever other work took the second core."""
import threading

import numpy as np


def batched_request(core, model_path, batch, device, config=None):
    model = core.read_model(model_path)
    model.reshape([batch, 3, 32, 32])
    request = core.compile_model(model, device, config or {}).create_infer_request()
    image = np.random.default_rng(batch).random((batch, 3, 32, 32), dtype=np.float32)
    request.infer([image])  # warm up
    return request, image


def test_python_runs_while_another_thread_infers(core, model_path):
    # One inference of tens of milliseconds: were the GIL held through it, this thread could not
    # run a single Python statement until it returned.
    request, image = batched_request(core, model_path, 32, "REFERENCE")
    started, done = threading.Event(), threading.Event()

    def run():
        started.set()
        request.infer([image])
        done.set()

    thread = threading.Thread(target=run)
    thread.start()
    started.wait()
    spins = 0
    while not done.is_set():
        spins += 1
    thread.join()
    assert spins > 1000
