"""One benchmark block for ONNX Runtime or OpenVINO, run as its own process by compare.py.

Usage:
    python worker.py ort|ov --model MODEL.onnx --inputs DIR --threads T --iterations N --warmup W --out FILE.json
    python worker.py ort|ov --baseline --out FILE.json

Loads the model, compiles it for the CPU with T threads and batch 1, binds the test inputs once,
runs W warm-up inferences (timed, reported, not counted) and then N timed inferences, and writes
the figures to FILE.json. Peak memory is measured by the parent (wait4 on this process), so it
covers everything this process did. --baseline only imports the runtime and numpy and exits: the
memory an empty worker costs, for reading the peak figures.

Settings are the latency-oriented ones a user would pick for one request at a time:
  ONNX Runtime: intra_op_num_threads=T, inter_op_num_threads=1, ORT_SEQUENTIAL, ORT_ENABLE_ALL.
  OpenVINO: INFERENCE_NUM_THREADS=T, PERFORMANCE_HINT=LATENCY, NUM_STREAMS=1,
            INFERENCE_PRECISION_HINT=f32; a model with dynamic inputs is reshaped to the test
            data's shapes first (as benchmark_app -shape would), so it compiles for static shapes.
"""

import argparse
import json
import os
import sys
import time

import numpy as np


def ms_since(t0):
    return (time.perf_counter() - t0) * 1000.0


def peak_rss_mb():
    """This process's own RSS high-water mark (Linux), a cross-check of the parent's figure."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def load_inputs(folder):
    with open(os.path.join(folder, "inputs.json")) as f:
        manifest = json.load(f)["inputs"]
    with np.load(os.path.join(folder, "inputs.npz")) as data:
        arrays = {spec["name"]: np.ascontiguousarray(data[spec["name"]]) for spec in manifest}
    return manifest, arrays


def time_loop(infer, warmup, iterations):
    warmup_ms = []
    for _ in range(warmup):
        t0 = time.perf_counter()
        infer()
        warmup_ms.append(ms_since(t0))
    latencies = []
    for _ in range(iterations):
        t0 = time.perf_counter()
        infer()
        latencies.append(ms_since(t0))
    return warmup_ms, latencies


def run_ort(args, manifest, arrays):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    t0 = time.perf_counter()
    session = ort.InferenceSession(args.model, sess_options=so, providers=["CPUExecutionProvider"])
    compile_ms = ms_since(t0)  # reading, graph optimisation and kernel creation: ORT does not split them

    feeds = {spec["name"]: arrays[spec["name"]] for spec in manifest}
    warmup_ms, latencies = time_loop(lambda: session.run(None, feeds), args.warmup, args.iterations)
    return {
        "version": ort.__version__,
        "read_model_ms": None,
        "compile_ms": compile_ms,
        "load_ms": compile_ms,
        "settings": {"intra_op_num_threads": args.threads, "inter_op_num_threads": 1,
                     "execution_mode": "ORT_SEQUENTIAL", "graph_optimization_level": "ORT_ENABLE_ALL",
                     "providers": session.get_providers()},
        "warmup_ms": warmup_ms,
        "latencies_ms": latencies,
    }


def run_ov(args, manifest, arrays):
    import openvino as ov

    core = ov.Core()
    t0 = time.perf_counter()
    model = core.read_model(args.model)
    dynamic = {spec["name"]: spec["shape"] for spec in manifest if spec["dynamic"]}
    if dynamic:
        model.reshape({name: ov.PartialShape(shape) for name, shape in dynamic.items()})
    read_ms = ms_since(t0)
    config = {"INFERENCE_NUM_THREADS": args.threads, "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": 1,
              "INFERENCE_PRECISION_HINT": "f32"}
    t0 = time.perf_counter()
    compiled = core.compile_model(model, "CPU", config)
    compile_ms = ms_since(t0)

    request = compiled.create_infer_request()
    for spec in manifest:
        request.set_tensor(spec["name"], ov.Tensor(arrays[spec["name"]]))
    warmup_ms, latencies = time_loop(request.infer, args.warmup, args.iterations)
    actual = {}
    for key in ("INFERENCE_NUM_THREADS", "NUM_STREAMS", "INFERENCE_PRECISION_HINT", "PERFORMANCE_HINT"):
        try:
            value = compiled.get_property(key)
            actual[key] = value.get_type_name() if hasattr(value, "get_type_name") else str(value)
        except Exception:  # a key this version does not report back: not worth failing the run
            pass
    return {
        "version": ov.get_version(),
        "read_model_ms": read_ms,
        "compile_ms": compile_ms,
        "load_ms": read_ms + compile_ms,
        "settings": {"requested": config, "compiled": actual, "reshaped": dynamic},
        "warmup_ms": warmup_ms,
        "latencies_ms": latencies,
    }


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runtime", choices=["ort", "ov"])
    parser.add_argument("--model")
    parser.add_argument("--inputs")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--baseline", action="store_true")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)

    if args.baseline:
        if args.runtime == "ort":
            import onnxruntime
            version = onnxruntime.__version__
        else:
            import openvino
            version = openvino.get_version()
        result = {"baseline": True, "version": version}
    else:
        if not args.model or not args.inputs:
            parser.error("--model and --inputs are required")
        manifest, arrays = load_inputs(args.inputs)
        result = (run_ort if args.runtime == "ort" else run_ov)(args, manifest, arrays)
    result["vm_hwm_mb"] = peak_rss_mb()
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
