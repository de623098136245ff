#!/usr/bin/env python3
"""OpenVINO IR as OpenVINO's own converter writes it, from the torch models of torch_zoo.py, by both
of its front ends:

- `ovc_<name>_f32`: `openvino.convert_model(torch_model, example_input=..., input=...)` (the PyTorch
  front end, tracing the module) saved with `save_model(..., compress_to_fp16=False)`: f32 constants.
- `ovc_<name>_fp16`: the `ovc` command on the model exported by torch.onnx (TorchScript exporter,
  opset 17) with its default `--compress_to_fp16=True`: every large f32 constant stored as f16 and
  decompressed by a `Convert` that OpenVINO marks `decompression` in its runtime info.

Dynamic dimensions as torch_zoo.py names them (`-1` in the IR). The references are OpenVINO's CPU
plugin's outputs with INFERENCE_PRECISION_HINT f32 on each IR as written (so the f16 weights' rounding
is in them); the script checks them against torch and prints the difference.

    python tools/models/make_ovc_models.py OUT_DIR [--only vit_f32,bert_fp16,...] [--force]

writes OUT_DIR/ovc_<model>/model.xml (+ .bin, written last) and case_<k>/input_<i>.npy,
output_<i>.npy for the two data sets (inputs and outputs in the IR's order). Needs torch,
transformers and openvino (the torch exporters' venv of scripts/install_model_exporters.sh).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

import torch_zoo
from exported_models import error_of_range, main

# Three models are left out through ONNX and `ovc`:
# - fold_mixer: torch.onnx's TorchScript exporter at opset 17 has no col2im (ONNX's Col2Im is opset 18).
# - pool_cnn: OpenVINO's ONNX front end (2026.4) converts ceil_mode max pooling to MaxPool-8 with
#   rounding "ceil", which keeps a last window lying wholly in the end padding (ONNX Runtime and
#   torch drop it), and OpenVINO's CPU plugin answers NaN for that model.
# - token_split: torch.onnx guards the class token's squeeze with an If on `shape[1] == 1` of a
#   Slice of a dynamic axis; OpenVINO knows from dimension intervals that the slice is 1 long and
#   the branches (of different ranks) agree, Mosaic, with no intervals, cannot read it.
NAMES = tuple("%s_%s" % (n, kind) for n in torch_zoo.NAMES for kind in ("f32", "fp16")
              if (n, kind) not in (("pool_cnn", "fp16"), ("token_split", "fp16"), ("fold_mixer", "fp16")))


def convert(name, kind, tmp):
    """The ov.Model for `name` as `kind` is converted, the torch module and its data sets."""
    import openvino as ov
    import torch
    model, input_names, dynamic_axes, sets = torch_zoo.build(name)
    example = tuple(torch.from_numpy(v) for v in sets[-1].values())
    shapes = [[-1 if axis in dynamic_axes[n] else size for axis, size in enumerate(v.shape)]
              for n, v in zip(input_names, sets[-1].values())]
    if kind == "f32":
        # Shapes by position: the traced forward takes *args, which have no names.
        converted = ov.convert_model(model, example_input=example, input=[ov.PartialShape(s) for s in shapes])
        for port, n in zip(converted.inputs, input_names):
            port.get_tensor().set_names({n})
        return converted, model, sets, False
    onnx_path = os.path.join(tmp, "model.onnx")
    torch.onnx.export(model, example, onnx_path, dynamo=False, opset_version=17, input_names=input_names,
                      dynamic_axes=dynamic_axes)
    out = os.path.join(tmp, "ovc")
    subprocess.run(["ovc", onnx_path, "--output_model", os.path.join(out, "model.xml")], check=True,
                   stdout=subprocess.DEVNULL, env=dict(os.environ, PATH=os.path.dirname(sys.executable) + ":" +
                                                       os.environ.get("PATH", "")))
    return ov.Core().read_model(os.path.join(out, "model.xml")), model, sets, True


def export(name, out_dir, force):
    import openvino as ov
    target = os.path.join(out_dir, "ovc_" + name)
    xml = os.path.join(target, "model.xml")
    if os.path.exists(xml) and not force:
        return "exists"
    base, kind = name.rsplit("_", 1)
    with tempfile.TemporaryDirectory() as tmp:
        converted, module, sets, compressed = convert(base, kind, tmp)
        compiled = ov.Core().compile_model(converted, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        worst = 0.0
        for k, inputs in enumerate(sets):
            case = os.path.join(target, "case_%d" % k)
            os.makedirs(case, exist_ok=True)
            result = compiled(list(inputs.values()))
            outputs = [result[port] for port in compiled.outputs]
            for i, value in enumerate(inputs.values()):
                np.save(os.path.join(case, "input_%d.npy" % i), value)
            for i, value in enumerate(outputs):
                np.save(os.path.join(case, "output_%d.npy" % i), np.ascontiguousarray(value))
            for want, got in zip(torch_zoo.reference(module, inputs), outputs):
                worst = max(worst, error_of_range(want, got))
        # f16 weights move the outputs by about f16's epsilon of their range; f32 ones by f32 rounding.
        if worst > (2e-2 if compressed else 1e-4):
            raise SystemExit("ovc_%s: OpenVINO differs from torch by %.3g of the range" % (name, worst))
        staged = os.path.join(target, "staged.xml")
        ov.save_model(converted, staged, compress_to_fp16=compressed)
        f16 = sum(1 for op in converted.get_ops() if op.get_type_name() == "Constant" and
                  op.get_element_type() == ov.Type.f16)
        # The .bin first, the .xml last: the .xml's presence marks a complete folder.
        os.replace(os.path.join(target, "staged.bin"), os.path.join(target, "model.bin"))
        os.replace(staged, xml)
    return "%d ops (%d f16 constants), OpenVINO within %.2g of torch's range" % (len(converted.get_ops()), f16, worst)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], __doc__, "ovc_", NAMES, export))
