"""What the exporters' scripts (make_paddle_models.py, make_optimum_models.py) share: ONNX's
backend-test layout, the model written last so that its presence marks a complete set, and the
command line `SCRIPT OUT_DIR [--only a,b] [--force]`."""
import argparse
import os

import numpy as np


def write_tensor(path, array, name):
    from onnx import numpy_helper
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(array), name=name).SerializeToString())


def write_data_set(target, k, named_inputs, named_outputs):
    """target/test_data_set_<k>/input_<i>.pb and output_<i>.pb from (name, array) pairs, in the
    graph's order."""
    data = os.path.join(target, "test_data_set_%d" % k)
    os.makedirs(data, exist_ok=True)
    for i, (name, value) in enumerate(named_inputs):
        write_tensor(os.path.join(data, "input_%d.pb" % i), value, name)
    for i, (name, value) in enumerate(named_outputs):
        write_tensor(os.path.join(data, "output_%d.pb" % i), value, name)


def error_of_range(want, got):
    """The largest difference of `got` from `want` over `want`'s range; infinite where the shapes
    differ or `got` holds a NaN or infinity `want` does not (a plain max of NaN differences is NaN,
    which no threshold refuses)."""
    want, got = np.asarray(want, np.float64), np.asarray(got, np.float64)
    if want.shape != got.shape or not np.array_equal(np.isfinite(want), np.isfinite(got)):
        return float("inf")
    finite = np.isfinite(want)
    if not finite.any():
        return 0.0
    return float(np.max(np.abs(want[finite] - got[finite]))) / max(float(np.ptp(want[finite])), 1e-30)


def save_last(model, model_path):
    """Writes the ONNX model to model_path through a temporary file; returns a line for the log."""
    import onnx
    tmp = "%s.%d.tmp" % (model_path, os.getpid())
    onnx.save(model, tmp)
    os.replace(tmp, model_path)
    return "%d bytes" % os.path.getsize(model_path)


def main(argv, doc, prefix, names, export):
    """Runs export(name, out_dir, force) for each name asked for, printing '<prefix><name>: <result>'."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    parser.add_argument("--only", default=",".join(names))
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)
    for name in args.only.split(","):
        if name not in names:
            parser.error("unknown model '%s' (known: %s)" % (name, ", ".join(names)))
        print("%s%s: %s" % (prefix, name, export(name, args.out_dir, args.force)), flush=True)
    return 0
