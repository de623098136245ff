"""A Mosaic device in a low precision (bf16 on CPU, f16 on GPU) against the same device in f32: the
speed-up and what it costs in accuracy.

Usage (Debian's python3, which has numpy and onnx):
    /usr/bin/python3 benchmarks/compare/precision.py [--models resnet50,mobilenet_v2,bert_base]
        [--device CPU|GPU] [--precision bf16|f16] [--threads 1] [--iterations 20] [--rounds 2]
        [--mosaic BUILD] [--models-dir DIR] [--out FILE.json]

For each model of the ONNX architectures (tools/models/make_onnx_models.py; test data holds the torch
outputs), with INFERENCE_PRECISION_HINT f32 and then the low precision on the device (the CPU's
INFERENCE_NUM_THREADS set to --threads):
  * accuracy: one `mosaic run` on the test inputs; each output against torch's: the largest absolute
    error, that error relative to the output's largest magnitude, the cosine similarity, and for a
    [1, N] output the top-1 class agreement;
  * speed: `mosaic benchmark -api sync` with the same thread count, f32 and low-precision blocks
    interleaved over the rounds; the median of the per-round medians.
Prints a table (low / f32 latency ratio, below 1: the low precision faster) and writes the figures as JSON.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_pb(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return tensor.name, numpy_helper.to_array(tensor)


def test_data(model_dir):
    """Inputs by graph-input name and outputs in order, from test_data_set_0."""
    model = onnx.load(os.path.join(model_dir, "model.onnx"), load_external_data=False)
    initializers = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    data = os.path.join(model_dir, "test_data_set_0")
    inputs = {name: read_pb(os.path.join(data, "input_%d.pb" % i))[1] for i, name in enumerate(names)}
    outputs = [(o.name, read_pb(os.path.join(data, "output_%d.pb" % i))[1]) for i, o in enumerate(model.graph.output)]
    return inputs, outputs


def accuracy(expected, actual):
    e, a = expected.astype(np.float64).ravel(), actual.astype(np.float64).ravel()
    err = float(np.max(np.abs(a - e)))
    scale = float(np.max(np.abs(e))) or 1.0
    cosine = float(np.dot(a, e) / (np.linalg.norm(a) * np.linalg.norm(e) or 1.0))
    result = {"max_abs_err": err, "max_rel_to_range": err / scale, "cosine": cosine}
    if expected.ndim == 2 and expected.shape[0] == 1 and expected.shape[1] > 1:
        result["top1_agrees"] = bool(np.argmax(expected) == np.argmax(actual))
    return result


def shapes_args(inputs):
    return ["--shape", ",".join("%s[%s]" % (n, ",".join(str(d) for d in a.shape)) for n, a in inputs.items())]


def mosaic_cmd(args, sub, model_path, config_path):
    return [os.path.join(args.mosaic, "bin", "mosaic"), sub, "-m", model_path, "-d", args.device, "--config", config_path]


def run_accuracy(args, model_path, inputs, outputs, config_path, work):
    cmd = mosaic_cmd(args, "run", model_path, config_path) + shapes_args(inputs) + ["-o", work]
    for name, array in inputs.items():
        path = os.path.join(work, "in_%s.npy" % name.replace("/", "_"))
        np.save(path, array)
        cmd += ["-i", "%s=%s" % (name, path)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return {name: accuracy(ref, np.load(os.path.join(work, name + ".npy"))) for name, ref in outputs}


def run_latency(args, model_path, inputs, config_path, report):
    cmd = mosaic_cmd(args, "benchmark", model_path, config_path) + shapes_args(inputs) + [
        "-api", "sync", "-nireq", "1", "-niter", str(args.iterations), "--report", report]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    with open(report) as f:
        return json.load(f)["latency_ms"]["median"]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default="resnet50,mobilenet_v2,bert_base")
    p.add_argument("--device", default="CPU", help="CPU (default) or GPU")
    p.add_argument("--precision", default=None, help="the low precision (default: bf16 on CPU, f16 on GPU)")
    p.add_argument("--threads", type=int, default=1, help="the CPU device's INFERENCE_NUM_THREADS")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--mosaic", default=os.path.join(REPO, "build"), help="Mosaic build folder (default <repo>/build)")
    p.add_argument("--models-dir", default=None, help="default: <build>/onnx_models")
    p.add_argument("--out", default=None, help="default: <build>/benchmarks/precision.json")
    args = p.parse_args(argv)
    low = args.precision or ("f16" if args.device.startswith("GPU") else "bf16")
    precisions = ("f32", low)
    models_dir = args.models_dir or os.path.join(args.mosaic, "onnx_models")
    out = args.out or os.path.join(args.mosaic, "benchmarks", "precision-%s-%s.json" % (args.device.lower(), low))
    os.makedirs(os.path.dirname(out), exist_ok=True)

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        configs = {}
        for precision in precisions:
            configs[precision] = os.path.join(tmp, precision + ".json")
            config = {"INFERENCE_PRECISION_HINT": precision}
            if args.device == "CPU":
                config["INFERENCE_NUM_THREADS"] = args.threads
            with open(configs[precision], "w") as f:
                json.dump(config, f)
        for model in args.models.split(","):
            model_dir = os.path.join(models_dir, model)
            model_path = os.path.join(model_dir, "model.onnx")
            if not os.path.exists(model_path):
                print("precision.py: %s is missing: generate it with tools/models/make_onnx_models.py" % model_path,
                      file=sys.stderr)
                return 1
            inputs, outputs = test_data(model_dir)
            r = {"accuracy": {}, "latency_ms": {precision: [] for precision in precisions}}
            for precision in precisions:
                work = os.path.join(tmp, model + "_" + precision)
                os.makedirs(work)
                r["accuracy"][precision] = run_accuracy(args, model_path, inputs, outputs, configs[precision], work)
            for rnd in range(args.rounds):
                for precision in precisions:
                    report = os.path.join(tmp, "%s_%s_%d.json" % (model, precision, rnd))
                    r["latency_ms"][precision].append(run_latency(args, model_path, inputs, configs[precision], report))
            r["median_ms"] = {k: statistics.median(v) for k, v in r["latency_ms"].items()}
            results[model] = r
            print("done: %s" % model, file=sys.stderr)

    print("%s: %-14s %3s %9s %9s %9s  %-s" % (args.device, "model", "thr", "f32 ms", low + " ms", low + "/f32",
                                               "accuracy vs torch (first output): f32 | " + low))
    for model, r in results.items():
        first = next(iter(r["accuracy"]["f32"]))

        def acc(p):
            a = r["accuracy"][p][first]
            s = "max err %.2g (%.2g of range), cos %.6f" % (a["max_abs_err"], a["max_rel_to_range"], a["cosine"])
            return s + (", top-1 %s" % ("same" if a["top1_agrees"] else "DIFFERS") if "top1_agrees" in a else "")
        m = r["median_ms"]
        print("%s: %-14s %3d %9.2f %9.2f %8.2fx  %s | %s" % (args.device, model, args.threads, m["f32"], m[low],
                                                            m[low] / m["f32"], acc("f32"), acc(low)))
    with open(out, "w") as f:
        json.dump({"device": args.device, "precision": low, "threads": args.threads, "iterations": args.iterations, "rounds": args.rounds, "models": results}, f,
                  indent=2)
    print("Results: %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
