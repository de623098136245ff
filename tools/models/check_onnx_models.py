#!/usr/bin/python3
"""Check the models written by make_onnx_models.py.

Usage:
    /usr/bin/python3 tools/models/check_onnx_models.py OUT_DIR [--ops]

For every OUT_DIR/<name>/model.onnx: runs onnx.checker (full check, with shape inference), and for
each test_data_set_* checks that input_<i>.pb / output_<i>.pb exist for every graph input/output,
carry the graph's names and element types, and have shapes compatible with the graph's declared
shapes (symbolic dimensions such as "batch" match anything; fixed ones must be equal). Reference
outputs must be finite. onnx 1.12 has no reference evaluator, so values are not recomputed.
--ops also prints the op types each graph uses (count per type). Exit status 1 if anything failed.
"""

import argparse
import collections
import glob
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def load_tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def declared(value_info):
    tt = value_info.type.tensor_type
    dims = []
    for d in tt.shape.dim:
        if d.HasField("dim_value"):
            dims.append(d.dim_value)
        else:
            dims.append(d.dim_param or "?")
    return tt.elem_type, dims


def check_tensor(kind, path, vi, problems):
    if not os.path.isfile(path):
        problems.append(f"missing {os.path.basename(path)}")
        return None
    t = load_tensor(path)
    elem, dims = declared(vi)
    if t.name != vi.name:
        problems.append(f"{os.path.basename(path)}: name {t.name!r} != graph {kind} {vi.name!r}")
    if t.data_type != elem:
        problems.append(f"{os.path.basename(path)}: type "
                        f"{onnx.TensorProto.DataType.Name(t.data_type)} != "
                        f"{onnx.TensorProto.DataType.Name(elem)}")
    shape = list(t.dims)
    if len(shape) != len(dims) or any(isinstance(d, int) and d != s for d, s in zip(dims, shape)):
        problems.append(f"{os.path.basename(path)}: shape {shape} incompatible with {dims}")
    arr = numpy_helper.to_array(t)
    if kind == "output" and arr.dtype.kind == "f" and not np.isfinite(arr).all():
        problems.append(f"{os.path.basename(path)}: non-finite values")
    return shape


def check_model(model_dir, show_ops):
    name = os.path.basename(model_dir.rstrip("/"))
    path = os.path.join(model_dir, "model.onnx")
    problems = []
    model = onnx.load(path)
    try:
        # Check the in-memory proto, never the path: in onnx <= 1.12, check_model(path,
        # full_check=True) writes the shape-inferred model back over the file (onnx/onnx#4422).
        # All models here are far below protobuf's 2 GB limit.
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # checker raises ValidationError / InferenceError
        problems.append(f"checker: {type(e).__name__}: {str(e).splitlines()[0]}")
    graph = model.graph
    inits = {i.name for i in graph.initializer}
    inputs = [vi for vi in graph.input if vi.name not in inits]
    outputs = list(graph.output)
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)

    sets = sorted(glob.glob(os.path.join(model_dir, "test_data_set_*")))
    if not sets:
        problems.append("no test_data_set_*")
    io_desc = []
    for ds in sets:
        for kind, vis in (("input", inputs), ("output", outputs)):
            for i, vi in enumerate(vis):
                shape = check_tensor(kind, os.path.join(ds, f"{kind}_{i}.pb"), vi, problems)
                if ds == sets[0]:
                    io_desc.append(f"{vi.name}{shape}")
        extra = [p for p in glob.glob(os.path.join(ds, "*.pb"))
                 if not any(os.path.basename(p) == f"{k}_{i}.pb"
                            for k, vis in (("input", inputs), ("output", outputs))
                            for i in range(len(vis)))]
        for p in extra:
            problems.append(f"unexpected {os.path.relpath(p, model_dir)}")

    status = "OK  " if not problems else "FAIL"
    size_mb = os.path.getsize(path) / 1e6
    print(f"{status} {name:20s} opset {opset}  {size_mb:7.1f} MB  {len(graph.node):5d} nodes  "
          f"{len(sets)} set(s)  {' '.join(io_desc)}")
    for p in problems:
        print(f"       {p}")
    if show_ops:
        ops = collections.Counter(n.op_type for n in graph.node)
        print("       ops: " + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())))
    return not problems


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    parser.add_argument("--ops", action="store_true", help="print the op types of each graph")
    args = parser.parse_args(argv)
    dirs = sorted(d for d in glob.glob(os.path.join(args.out_dir, "*"))
                  if os.path.isfile(os.path.join(d, "model.onnx")))
    if not dirs:
        print(f"no */model.onnx under {args.out_dir}")
        return 1
    ok = sum(check_model(d, args.ops) for d in dirs)
    print(f"{ok}/{len(dirs)} models OK")
    return 0 if ok == len(dirs) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
