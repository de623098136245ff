"""The Python call overhead per inference: the median latency of one synchronous inference through
the Python package against the C++ CLI's `mosaic benchmark -api sync` on the same model, device and
properties, in the same run. Not a test: figures depend on the machine and its load, which are
printed with them.

    python benchmarks/python/overhead.py [--model M.xml] [--device CPU] [--niter 3000] [--mosaic build/bin/mosaic]
"""
import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess
import tempfile
import time

import numpy as np

import mosaic as ov

REPO = pathlib.Path(__file__).resolve().parents[2]
# One thread: the figure is the cost of a call, not of oneDNN's thread pool on a busy machine.
CONFIG = {"INFERENCE_NUM_THREADS": 1}


def cpu_name():
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def cpp_median_ms(args):
    with tempfile.TemporaryDirectory() as tmp:
        config, report = pathlib.Path(tmp, "config.json"), pathlib.Path(tmp, "report.json")
        config.write_text(json.dumps(CONFIG))
        subprocess.run([str(args.mosaic), "benchmark", "-m", str(args.model), "-d", args.device, "--api", "sync",
                        "--niter", str(args.niter), "--config", str(config), "--report", str(report)],
                       check=True, stdout=subprocess.DEVNULL)
        return json.loads(report.read_text())["latency_ms"]["median"]


def python_median_ms(call, niter):
    call()  # warm-up, as the CLI's first inference
    times = []
    for _ in range(niter):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=pathlib.Path, default=REPO / "build" / "models" / "mosaic_cnn.xml")
    parser.add_argument("--device", default="CPU")
    parser.add_argument("--niter", type=int, default=3000)
    parser.add_argument("--mosaic", type=pathlib.Path, default=REPO / "build" / "bin" / "mosaic")
    args = parser.parse_args()

    compiled = ov.Core().compile_model(args.model, args.device, CONFIG)
    port = compiled.input()
    image = np.random.default_rng(0).random(port.get_shape(), dtype=np.float32)
    request = compiled.create_infer_request()
    request.set_tensor(port, ov.Tensor(image))

    cpp = cpp_median_ms(args)
    rows = [
        ("request.infer() (inputs already set)", python_median_ms(request.infer, args.niter)),
        ("request.infer({name: array})", python_median_ms(lambda: request.infer({port.any_name: image}), args.niter)),
        ("compiled_model([array])", python_median_ms(lambda: compiled([image]), args.niter)),
    ]
    print(f"CPU: {cpu_name()} ({os.cpu_count()} cores), load average {os.getloadavg()[0]:.2f}")
    print(f"Model: {args.model.name} on {args.device} {CONFIG}, median of {args.niter} synchronous inferences")
    print(f"  {'C++ mosaic benchmark -api sync':40s} {cpp * 1e3:8.1f} us")
    for name, ms in rows:
        print(f"  {name:40s} {ms * 1e3:8.1f} us  ratio {ms / cpp:5.2f}  overhead {(ms - cpp) * 1e3:6.1f} us")


if __name__ == "__main__":
    main()
