#!/usr/bin/env python3
"""A survey of real models from the wild: transformers' image classifiers at their real sizes
(default configs, random weights), converted as users convert them, each compared on Mosaic's
devices against the runtime its format comes from. Not a test (2.5 GB of models and minutes of
conversion); docs/real-models.md records what it printed.

Two steps, each in the venv that has what it needs:

    build-torch-exporters-venv/bin/python tools/models/survey_image_classifiers.py export DIR
    build-venv/bin/python tools/models/survey_image_classifiers.py check DIR [--devices "CPU;GPU;HETERO:GPU,CPU"]

`export` writes DIR/ir/<Model>/model.xml by `openvino.convert_model` of the torch module (the
PyTorch front end, f32), with OpenVINO's CPU plugin's output in f32; and DIR/onnx/<Model>/model.onnx
by `torch.onnx.export(..., dynamo=True)`, with ONNX Runtime's output. Both record input.npy and
output.npy and print how far the runtime is from torch. `check` compiles each model on each device
(`;`-separated device strings) with Mosaic's Python package and prints its largest difference
from the recorded output over that output's range, or the error it refused the model with.
"""
import argparse
import os
import re
import sys

import numpy as np

MODELS = ("ResNet", "RegNet", "MobileNetV1", "MobileNetV2", "ConvNext", "ConvNextV2", "Swin", "Swinv2", "ViT",
          "Beit", "PoolFormer", "MobileViT", "MobileViTV2", "Levit", "Cvt", "Dinov2", "Segformer",
          "Data2VecVision", "FocalNet", "EfficientFormer")


def error_of_range(want, got):
    if want.shape != got.shape:
        return "shape %s, expected %s" % (list(got.shape), list(want.shape))
    if not np.all(np.isfinite(got)):
        return "non-finite values"
    return "%.2g" % (float(np.max(np.abs(want - got))) / max(float(np.ptp(want)), 1e-30))


def build(name):
    """(torch module returning the logits, its input)."""
    import torch
    import transformers
    torch.manual_seed(0)
    config = getattr(transformers, name + "Config")()
    cls = getattr(transformers, name + "ForImageClassification", None) or getattr(transformers, name + "Model")
    inner = cls(config).eval()
    # Some initialise their classifier to zeros (MobileViTV2): constant logits would compare as equal
    # whatever ran before them.
    with torch.no_grad():
        for parameter in inner.parameters():
            if parameter.dim() >= 2 and not parameter.any():
                parameter.normal_(0.0, 0.02)
    size = getattr(config, "image_size", 224)
    size = size if isinstance(size, int) else size[0]

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            out = self.inner(pixel_values=x)
            return out.logits if hasattr(out, "logits") else out.last_hidden_state

    return Logits().eval(), torch.randn(1, getattr(config, "num_channels", 3), size, size)


def export(root):
    import onnxruntime
    import openvino as ov
    import torch
    core = ov.Core()
    for name in MODELS:
        for kind in ("ir", "onnx"):
            folder = os.path.join(root, kind, name)
            if os.path.exists(os.path.join(folder, "output.npy")):
                continue
            os.makedirs(folder, exist_ok=True)
            try:
                module, x = build(name)
                with torch.no_grad():
                    want = module(x).numpy()
                if kind == "ir":
                    converted = ov.convert_model(module, example_input=x)
                    ov.save_model(converted, os.path.join(folder, "model.xml"), compress_to_fp16=False)
                    compiled = core.compile_model(converted, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
                    got = compiled(x.numpy())[0]
                else:
                    path = os.path.join(folder, "model.onnx")
                    torch.onnx.export(module, (x,), path, dynamo=True, input_names=["x"], external_data=False)
                    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
                    got = session.run(None, {"x": x.numpy()})[0]
                np.save(os.path.join(folder, "input.npy"), x.numpy())
                np.save(os.path.join(folder, "output.npy"), got)
                print("%-16s %-4s runtime against torch: %s" % (name, kind, error_of_range(want, got)), flush=True)
            except Exception as e:  # a model its converter refuses is a finding, not the end of the survey
                print("%-16s %-4s not converted: %s" % (name, kind, str(e).splitlines()[0][:200]), flush=True)


def check(root, devices):
    import mosaic
    core = mosaic.Core()
    for kind, file in (("ir", "model.xml"), ("onnx", "model.onnx")):
        for name in MODELS:
            folder = os.path.join(root, kind, name)
            if not os.path.exists(os.path.join(folder, "output.npy")):
                continue
            x = np.load(os.path.join(folder, "input.npy"))
            want = np.load(os.path.join(folder, "output.npy"))
            for device in devices:
                try:
                    compiled = core.compile_model(os.path.join(folder, file), device)
                    verdict = error_of_range(want, np.asarray(compiled(x)[0]))
                except Exception as e:
                    text = " ".join(str(e).split())
                    lacking = sorted(set(re.findall(r"\((\w+?)(?:-opset\d+)?\): the \w+ has no kernel", text)))
                    verdict = "refused: no kernel for " + ", ".join(lacking) if lacking else "refused: " + text[:160]
                print("%-16s %-4s %-16s %s" % (name, kind, device, verdict), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("export", "check"))
    parser.add_argument("dir")
    parser.add_argument("--devices", default="CPU;GPU;HETERO:GPU,CPU")
    args = parser.parse_args()
    if args.step == "export":
        export(args.dir)
    else:
        check(args.dir, args.devices.split(";"))


if __name__ == "__main__":
    sys.exit(main())
