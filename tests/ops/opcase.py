"""Helpers shared by the op-case generators gen_<group>.py: case tensors, case dicts and a group's JSON
file (the format is described in README.md). Numpy only; the scripts import it from this folder.
"""
import json
import math
import os

import numpy as np

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")

NP_TYPES = {
    "f32": np.float32, "f64": np.float64, "f16": np.float16,
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "boolean": np.bool_,
}
FLOATS = ("f32", "f64", "f16")


def value(v, et):
    """One element of type `et` as JSON: "nan", "inf" and "-inf" for the special floats, f32 / f16 values
    as the shortest text that reads back as the same value, integers and booleans (0/1) as ints."""
    if et in FLOATS:
        v = float(v)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v if et == "f64" else float(str(NP_TYPES[et](v)))
    return int(v)


def tensor(arr, et="f32", const=False, cast=True):
    """A case tensor of element type `et`.

    cast=True: the values are cast to `et` (so they wrap or round as that type does) and written by value().
    cast=False: they are written as given, as float64 for a float type and as int64 otherwise, with no
    rounding to `et` and no special text for nan / inf.
    """
    arr = np.asarray(arr)
    if cast:
        arr = arr.astype(NP_TYPES[et])
        data = [value(v, et) for v in arr.reshape(-1).tolist()]
    else:
        data = arr.astype(np.float64 if et in FLOATS else np.int64).ravel().tolist()
    t = {"type": et, "shape": list(arr.shape), "data": data}
    if const:
        t["const"] = True
    return t


def case(name, op, version, inputs, outputs=None, attrs=None, error=None, rtol=None, atol=None,
         always_attrs=False):
    """A case: the expected `outputs`, or with `error` the text shape inference must fail with.

    Empty attrs are left out unless `always_attrs` (then written as {}); rtol / atol only when given.
    """
    c = {"name": name, "op": op, "version": version}
    if attrs or always_attrs:
        c["attrs"] = attrs or {}
    c["inputs"] = inputs
    if error is not None:
        c["error"] = error
    else:
        c["outputs"] = outputs
    if rtol is not None:
        c["rtol"] = rtol
    if atol is not None:
        c["atol"] = atol
    return c


def write(prefix, group, cases, report=True):
    """Writes cases/<prefix>_<group>.json, one case a line, and returns the number of cases; with
    `report` it prints the path and that number."""
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), f"duplicate case names in {prefix}_{group}"
    path = os.path.join(OUT_DIR, f"{prefix}_{group}.json")
    with open(path, "w") as f:
        f.write('{"cases": [\n' + ",\n".join(json.dumps(c, separators=(",", ":")) for c in cases) + "\n]}\n")
    if report:
        print(f"{path}: {len(cases)} cases")
    return len(cases)
