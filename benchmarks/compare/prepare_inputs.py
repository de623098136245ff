"""Convert a model's ONNX test inputs into a form the benchmark workers read without onnx.

Usage: python prepare_inputs.py MODEL_DIR OUT_DIR

Reads MODEL_DIR/model.onnx (graph inputs only) and MODEL_DIR/test_data_set_0/input_<i>.pb, writes
OUT_DIR/inputs.npz (one array per graph input, by name) and OUT_DIR/inputs.json:

    {"inputs": [{"name": ..., "dtype": "float32", "shape": [1, 3, 224, 224], "dynamic": false}, ...]}

"dynamic" says whether the graph declares a symbolic or unknown dimension for that input, in which
case Mosaic is given the concrete shape with --shape and OpenVINO's model is reshaped to it.

Needs onnx and numpy; run by whichever interpreter has them (see compare.py), so the workers that
time ONNX Runtime and OpenVINO need only numpy.
"""

import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def graph_inputs(model):
    """The model's real inputs: graph inputs that are not initializers (older exporters list both)."""
    initializers = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in initializers]


def is_dynamic(value_info):
    dims = value_info.type.tensor_type.shape.dim
    return any(d.HasField("dim_param") or not d.HasField("dim_value") or d.dim_value <= 0 for d in dims)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    model_dir, out_dir = argv
    # load_external_data=False: only the graph's declarations are needed, not the weights.
    model = onnx.load(os.path.join(model_dir, "model.onnx"), load_external_data=False)
    inputs = graph_inputs(model)
    data_dir = os.path.join(model_dir, "test_data_set_0")

    arrays, manifest = {}, []
    for i, info in enumerate(inputs):
        path = os.path.join(data_dir, "input_%d.pb" % i)
        if not os.path.exists(path):
            print("prepare_inputs: %s is missing (the model has %d inputs); regenerate the model with "
                  "tools/models/make_onnx_models.py --force" % (path, len(inputs)), file=sys.stderr)
            return 1
        tensor = onnx.TensorProto()
        with open(path, "rb") as f:
            tensor.ParseFromString(f.read())
        array = numpy_helper.to_array(tensor)
        name = tensor.name or info.name
        if name != info.name:
            print("prepare_inputs: %s holds '%s', but graph input %d is '%s'" % (path, name, i, info.name),
                  file=sys.stderr)
            return 1
        arrays[name] = np.ascontiguousarray(array)
        manifest.append({"name": name, "dtype": str(array.dtype), "shape": list(array.shape),
                         "dynamic": is_dynamic(info)})

    os.makedirs(out_dir, exist_ok=True)
    np.savez(os.path.join(out_dir, "inputs.npz"), **arrays)
    with open(os.path.join(out_dir, "inputs.json"), "w") as f:
        json.dump({"model": os.path.abspath(os.path.join(model_dir, "model.onnx")), "inputs": manifest}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
