#!/usr/bin/env python3
"""The real-model suite's models compared value by value under lower precision: the CPU with
INFERENCE_PRECISION_HINT bf16 and the GPU with f16, each against REFERENCE in f32, by `mosaic
compare` (every value each op computes observed; the first op whose error exceeds the tolerance
while its inputs were within it named). Prints a Markdown table: per model and device, the first
such op and its error over its value's range, and the largest error over the range among the model's
outputs, run as the model is.

    python3 tools/models/precision_sweep.py BUILD_DIR [--models DIR] [--rtol 0.02] [--json OUT]

BUILD_DIR holds bin/mosaic and lib/mosaic/plugins.json; the models are the ones the tests generated
(MOSAIC_GENERATED_MODELS, build-generated-models beside the build by default): each ONNX folder's
first data set (test_data_set_0/input_<i>.pb, turned into .npy) and each IR folder's case_0 are the
inputs. Needs numpy and onnx. A value counts as wrong past atol + rtol * max |value| (rtol 2e-2: bf16
keeps 8 bits of mantissa, f16 11, and errors add up over a dot product's terms); the documented
output-level figures are in docs/benchmarks.md ("bf16 against f32").
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

# (folder under the generated models, model file, inputs' folder, reader of its tensors)
SUITES = [
    ("paddle_models/paddle_cls", "model.onnx", "test_data_set_0", "pb"),
    ("paddle_models/paddle_det", "model.onnx", "test_data_set_0", "pb"),
    ("tf_models/tf_resnet50", "model.onnx", "test_data_set_0", "pb"),
    ("tf_models/tf_mobilenetv3", "model.onnx", "test_data_set_0", "pb"),
    ("tf_models/tf_efficientnet", "model.onnx", "test_data_set_0", "pb"),
    ("tf_models/tf_text", "model.onnx", "test_data_set_0", "pb"),
    ("dynamo_models/dynamo_vit", "model.onnx", "test_data_set_0", "pb"),
    ("dynamo_models/dynamo_convnext", "model.onnx", "test_data_set_0", "pb"),
    ("dynamo_models/dynamo_bert", "model.onnx", "test_data_set_0", "pb"),
    ("dynamo_models/dynamo_conv_lstm", "model.onnx", "test_data_set_0", "pb"),
    ("optimum_models/optimum_bert", "model.onnx", "test_data_set_0", "pb"),
    ("ovc_models/ovc_vit_fp16", "model.xml", "case_0", "npy"),
    ("ovc_models/ovc_bert_fp16", "model.xml", "case_0", "npy"),
]
DEVICES = [("CPU", "bf16"), ("GPU", "f16")]


def input_args(folder, data, kind, tmp):
    """`-i NAME=FILE.npy` arguments for the data set's inputs (ONNX tensors by their names, IR cases
    by position)."""
    args = []
    if kind == "pb":
        import onnx
        from onnx import numpy_helper
        for path in sorted(glob.glob(os.path.join(folder, data, "input_*.pb"))):
            tensor = onnx.TensorProto()
            with open(path, "rb") as f:
                tensor.ParseFromString(f.read())
            target = os.path.join(tmp, "%s_%s.npy" % (os.path.basename(folder), os.path.basename(path)[:-3]))
            np.save(target, numpy_helper.to_array(tensor))
            args += ["-i", "%s=%s" % (tensor.name, target)]
    else:
        # An IR case's inputs are in the order of the IR's Parameters, which name them.
        import xml.etree.ElementTree as ET
        names = [layer.get("name") for layer in ET.parse(os.path.join(folder, "model.xml")).getroot().iter("layer")
                 if layer.get("type") == "Parameter"]
        for name, path in zip(names, sorted(glob.glob(os.path.join(folder, data, "input_*.npy")))):
            args += ["-i", "%s=%s" % (name, path)]
    return args


def compare(mosaic, model, inputs, device, precision, rtol, tmp):
    config = os.path.join(tmp, "%s.json" % device)
    with open(config, "w") as f:
        json.dump({device: {"INFERENCE_PRECISION_HINT": precision}}, f)
    run = subprocess.run([mosaic, "compare", "-m", model, "-d", device, "--config", config, "--json",
                          "--rtol", str(rtol), "--atol", "1e-5"] + inputs, capture_output=True, text=True)
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError:
        return {"error": (run.stderr.strip().splitlines() or ["no output"])[-1]}
    first = report.get("first_divergence")
    worst = max((float(o["of_range"]) if o["of_range"] != "inf" else float("inf")) for o in report["outputs"])
    return {
        "first": None if first is None else "%s (%s)" % (first["node"], first["type"]),
        "first_of_range": None if first is None else first["of_range"],
        "bisection": report.get("found_by_bisection", False),
        "outputs_of_range": worst,
        "values": len(report["values"]),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build")
    parser.add_argument("--models", default=None)
    parser.add_argument("--rtol", type=float, default=2e-2)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    models = args.models or os.environ.get("MOSAIC_GENERATED_MODELS") or os.path.join(os.path.dirname(build), "build-generated-models")
    os.environ.setdefault("MOSAIC_PLUGINS", os.path.join(build, "lib", "mosaic", "plugins.json"))
    mosaic = os.path.join(build, "bin", "mosaic")
    rows = []
    print("| model | device, precision | values | first op past rtol %g (error of its range) | largest output error of range |" % args.rtol)
    print("| --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for folder, model_file, data, kind in SUITES:
            path = os.path.join(models, folder)
            if not os.path.exists(os.path.join(path, model_file)):
                print("| %s | | | not generated (run its test first) | |" % os.path.basename(folder), flush=True)
                continue
            inputs = input_args(path, data, kind, tmp)
            for device, precision in DEVICES:
                r = compare(mosaic, os.path.join(path, model_file), inputs, device, precision, args.rtol, tmp)
                r.update(model=os.path.basename(folder), device=device, precision=precision)
                rows.append(r)
                if "error" in r:
                    cell = "refused: " + r["error"][:120]
                    print("| %s | %s %s | | %s | |" % (r["model"], device, precision, cell), flush=True)
                    continue
                first = "none" if r["first"] is None else "%s, %.2g%s" % (
                    r["first"], float(r["first_of_range"]), " (in a fusion)" if r["bisection"] else "")
                print("| %s | %s %s | %d | %s | %.2g |" % (r["model"], device, precision, r["values"], first,
                                                         r["outputs_of_range"]), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
