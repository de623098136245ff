#!/usr/bin/env python3
"""torch models exported by torch.onnx's dynamo exporter (`torch.onnx.export(..., dynamo=True)`),
the exporter torch recommends since 2.5 and its default since 2.9. It writes what the TorchScript
exporter does not: opset 18 and later, torch's decompositions (LayerNormalization, GELU by its
formula, attention as MatMul/Softmax with the scale split over Q and K), shapes computed from
symbolic dimensions (`Shape` → `Gather` → `Concat` feeding Reshape and Expand), dynamic axes named by
torch.export's constraints, and its own value names.

    python tools/models/make_dynamo_models.py OUT_DIR [--only vit,convnext,bert,conv_lstm,pool_cnn,token_split,...] [--force]

writes OUT_DIR/dynamo_<name>/model.onnx and test_data_set_<k>/input_<i>.pb, output_<i>.pb for the
two data sets of tools/models/torch_zoo.py (ONNX's backend-test layout), the outputs computed by
torch itself; the script checks that ONNX Runtime agrees and prints the largest difference. Needs
torch, transformers, onnxscript and onnxruntime (scripts/install_model_exporters.sh puts them into
the torch exporters' venv).
"""
import os
import sys
import tempfile

import numpy as np

import torch_zoo
from exported_models import error_of_range, main, save_last, write_data_set


def export(name, out_dir, force):
    import onnx
    import onnxruntime
    import torch
    target = os.path.join(out_dir, "dynamo_" + name)
    model_path = os.path.join(target, "model.onnx")
    if os.path.exists(model_path) and not force:
        return "exists"
    model, input_names, dynamic_axes, sets = torch_zoo.build(name)
    # torch.export specializes a dimension of size 1 in its example: the larger data set is traced.
    example = sets[-1]
    dims = {}  # one torch.export.Dim per label, shared by the inputs that name it
    shapes = tuple({axis: dims.setdefault(label, torch.export.Dim(label)) for axis, label in dynamic_axes[n].items()}
                   for n in input_names)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        torch.onnx.export(model, tuple(torch.from_numpy(v) for v in example.values()), path, dynamo=True,
                          input_names=input_names, dynamic_shapes=(shapes,), external_data=False)
        exported = onnx.load(path)
    session = onnxruntime.InferenceSession(exported.SerializeToString(), providers=["CPUExecutionProvider"])
    worst = 0.0
    for k, inputs in enumerate(sets):
        outputs = torch_zoo.reference(model, inputs)
        ort = session.run(None, inputs)
        for want, got in zip(outputs, ort):
            worst = max(worst, error_of_range(want, got))
        write_data_set(target, k, [(spec.name, inputs[spec.name]) for spec in session.get_inputs()],
                       [(spec.name, value) for spec, value in zip(session.get_outputs(), outputs)])
    if worst > 1e-4:
        raise SystemExit("dynamo_%s: ONNX Runtime differs from torch by %.3g of the range" % (name, worst))
    opset = max(o.version for o in exported.opset_import if o.domain in ("", "ai.onnx"))
    return "opset %d, %d nodes, ONNX Runtime within %.2g of torch's range, %s" % (
        opset, len(exported.graph.node), worst, save_last(exported, model_path))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], __doc__, "dynamo_", torch_zoo.NAMES, export))
