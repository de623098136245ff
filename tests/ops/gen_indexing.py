#!/usr/bin/env python3
"""Generates tests/ops/cases/data_movement_indexing.json: op cases for the indexing ops (ScatterNDUpdate,
ScatterElementsUpdate, ScatterUpdate, GatherND, GatherElements, OneHot, ReverseSequence, Eye, Roll, NonZero,
CumSum, Einsum). Expected values come from numpy alone: np.einsum, np.roll, np.cumsum, np.nonzero,
np.take_along_axis, or loops written from the OpenVINO specification's formulas.

Run: python3 tests/ops/gen_indexing.py
"""
import os

import numpy as np

import opcase
from opcase import FLOATS, NP_TYPES, OUT_DIR, case

RNG = np.random.default_rng(20240707)


def data(shape, type_="f32", low=-40, high=40):
    """Distinct-looking values of `type_`; floats are quarter steps, exact in every float type."""
    n = int(np.prod(shape, dtype=np.int64))
    if type_ in FLOATS:
        values = RNG.integers(low, high, n) / 4.0
    elif type_ == "boolean":
        values = RNG.integers(0, 2, n)
    elif type_.startswith("u"):
        values = RNG.integers(0, max(high, 2), n)
    else:
        values = RNG.integers(low, high, n)
    return np.asarray(values).astype(NP_TYPES[type_]).reshape(shape)


def tensor(array, type_, const=False):
    return opcase.tensor(np.asarray(array), type_, const)


def ints(values, type_="i64", const=True):
    return tensor(np.asarray(values, dtype=np.int64), type_, const)


def scalar(value, type_="i64", const=True):
    return tensor(np.asarray(value), type_, const)


# ---------------------------------------------------------------------------------------------
# Reductions shared by the scatter ops, as the specification defines them per element type.

def reduce_fn(reduction, type_):
    if type_ == "boolean":
        return {"none": lambda a, b: b, "sum": np.logical_or, "max": np.logical_or, "prod": np.logical_and,
                "min": np.logical_and, "sub": np.logical_xor}[reduction]
    return {"none": lambda a, b: b, "sum": lambda a, b: a + b, "sub": lambda a, b: a - b,
            "prod": lambda a, b: a * b, "min": np.minimum, "max": np.maximum}[reduction]


def identity(reduction, dtype):
    if reduction == "prod":
        return dtype.type(1)
    if reduction in ("min", "max"):
        if dtype == np.bool_:
            return reduction == "min"
        if np.issubdtype(dtype, np.floating):
            return np.inf if reduction == "min" else -np.inf
        info = np.iinfo(dtype)
        return info.max if reduction == "min" else info.min
    return dtype.type(0)


def normalize(index, size):
    return int(index) + size if index < 0 else int(index)


# ---------------------------------------------------------------------------------------------
# ScatterNDUpdate

def scatter_nd(x, idx, upd, reduction, type_):
    out = x.copy()
    fn = reduce_fn(reduction, type_)
    for nd in np.ndindex(*idx.shape[:-1]):
        target = tuple(normalize(i, x.shape[j]) for j, i in enumerate(idx[nd]))
        out[target] = fn(out[target], upd[nd])
    return out


def gen_scatter_nd():
    cases = []
    specs = [
        # name, data shape, indices, type, reductions (opset15)
        ("elements_1d", [8], [[4], [3], [1], [7], [-2], [-4]], "f32", ["sum", "sub", "prod", "min", "max"]),
        ("slices_3d", [4, 2, 3], [[0], [2]], "i32", ["sum"]),
        ("points_2d", [3, 4], [[0, 1], [2, -1], [1, 3]], "i64", ["prod", "max"]),
        ("rows_2x1", [3, 4], [[[1]], [[-3]]], "f64", ["min"]),
        ("bool", [5], [[0], [2], [4]], "boolean", ["sum", "sub", "prod"]),
        ("i8_repeat", [4], [[1], [1], [3]], "i8", ["sum", "max"]),
    ]
    for name, shape, idx, type_, reductions in specs:
        x = data(shape, type_, -10, 10)
        idx = np.asarray(idx, dtype=np.int64)
        k = idx.shape[-1]
        upd = data(list(idx.shape[:-1]) + shape[k:], type_, -10, 10)
        index_type = "i32" if type_ == "i64" else "i64"
        inputs = [tensor(x, type_), ints(idx, index_type, const=False), tensor(upd, type_)]
        tuples = [tuple(t) for t in idx.reshape(-1, k).tolist()]
        # Repeated targets are only well defined with a reduction: the order of plain writes is not.
        unique = len(set(tuples)) == len(tuples)
        if unique:
            cases.append(case("scatter_nd3_" + name, "ScatterNDUpdate", "opset3", inputs,
                              [tensor(scatter_nd(x, idx, upd, "none", type_), type_)]))
        for reduction in (["none"] if unique else []) + reductions:
            cases.append(case("scatter_nd15_%s_%s" % (name, reduction), "ScatterNDUpdate", "opset15", inputs,
                              [tensor(scatter_nd(x, idx, upd, reduction, type_), type_)], {"reduction": reduction}))
    # A full index into a 1D tensor: updates may be the one-element tensor standing for the scalar.
    x, upd = data([5], "f32"), data([1], "f32")
    cases.append(case("scatter_nd3_scalar_update", "ScatterNDUpdate", "opset3",
                      [tensor(x, "f32"), ints([2]), tensor(upd, "f32")],
                      [tensor(scatter_nd(x, np.array([2]), upd.reshape(()), "none", "f32"), "f32")]))
    cases.append(case("scatter_nd3_error_updates_shape", "ScatterNDUpdate", "opset3",
                      [tensor(data([4, 3]), "f32"), ints([[1], [2]]), tensor(data([2, 2]), "f32")],
                      error="updates shape [2,2] must be indices.shape[:-1] + data.shape[1:]"))
    cases.append(case("scatter_nd3_error_index_too_long", "ScatterNDUpdate", "opset3",
                      [tensor(data([4]), "f32"), ints([[1, 2]]), tensor(data([1]), "f32")],
                      error="more than the rank of data"))
    cases.append(case("scatter_nd15_error_reduction", "ScatterNDUpdate", "opset15",
                      [tensor(data([4]), "f32"), ints([[1]]), tensor(data([1]), "f32")], attrs={"reduction": "mean"},
                      error="attribute 'reduction' has unsupported value 'mean'"))
    cases.append(case("scatter_nd3_error_types", "ScatterNDUpdate", "opset3",
                      [tensor(data([4]), "f32"), ints([[1]]), tensor(data([1], "i32"), "i32")],
                      error="they must match"))
    return cases


# ---------------------------------------------------------------------------------------------
# ScatterElementsUpdate

def scatter_elements(x, idx, upd, axis, reduction, use_init_val, type_):
    out = x.copy()
    axis %= x.ndim
    targets = []
    for pos in np.ndindex(*idx.shape):
        t = list(pos)
        t[axis] = normalize(idx[pos], x.shape[axis])
        targets.append((tuple(t), upd[pos]))
    if reduction == "none":
        for t, u in targets:
            out[t] = u
        return out
    if reduction == "mean":
        sums, counts = {}, {}
        for t, u in targets:
            if t not in sums:
                sums[t], counts[t] = (x[t].item(), 1) if use_init_val else (0, 0)
            sums[t] += u.item()
            counts[t] += 1
        for t in sums:
            out[t] = sums[t] / counts[t] if type_ in FLOATS else sums[t] // counts[t]
        return out
    fn = reduce_fn(reduction, type_)
    if not use_init_val:
        for t, _ in targets:
            out[t] = identity(reduction, x.dtype)
    for t, u in targets:
        out[t] = fn(out[t], u)
    return out


def gen_scatter_elements():
    cases = []
    # The specification's example 1: sum with negative indices and use_init_val.
    x = np.array([2, 3, 4, 6], dtype=np.float32)
    idx = np.array([1, 0, 0, -2, -1, 2])
    upd = np.array([10, 20, 30, 40, 70, 60], dtype=np.float32)
    for use_init in (True, False):
        cases.append(case("scatter_elements12_spec_sum_init_%d" % use_init, "ScatterElementsUpdate", "opset12",
                          [tensor(x, "f32"), ints(idx, const=False), tensor(upd, "f32"), scalar(0)],
                          [tensor(scatter_elements(x, idx, upd, 0, "sum", use_init, "f32"), "f32")],
                          {"reduction": "sum", "use_init_val": "true" if use_init else "false"}))
    specs = [
        # name, data shape, indices shape, axis, type
        ("axis1_2d", [3, 5], [3, 4], 1, "f32"),
        ("axis0_3d", [4, 2, 3], [6, 2, 2], 0, "i32"),
        ("axis_neg1_i64", [2, 6], [2, 8], -1, "i64"),
        ("u8", [3, 4], [2, 4], 0, "u8"),
    ]
    for name, shape, ishape, axis, type_ in specs:
        x = data(shape, type_, -9, 9)
        n = shape[axis]
        idx = RNG.integers(-n, n, ishape)
        upd = data(ishape, type_, -9, 9)
        inputs = [tensor(x, type_), ints(idx, "i32", const=False), tensor(upd, type_), scalar(axis, "i64")]
        for reduction in ("sum", "prod", "min", "max", "mean"):
            for use_init in (True, False):
                attrs = {"reduction": reduction, "use_init_val": "true" if use_init else "false"}
                cases.append(case("scatter_elements12_%s_%s_init%d" % (name, reduction, use_init),
                                  "ScatterElementsUpdate", "opset12", inputs,
                                  [tensor(scatter_elements(x, idx, upd, axis, reduction, use_init, type_), type_)],
                                  attrs))
    # Without repeated targets, "none" is well defined: one distinct index per column.
    x, upd = data([4, 3], "f32"), data([2, 3], "f32")
    idx = np.array([[3, -4, 1], [0, 2, -1]])
    for version in ("opset3", "opset12"):
        cases.append(case("scatter_elements%s_none" % version[len("opset"):], "ScatterElementsUpdate", version,
                          [tensor(x, "f32"), ints(idx), tensor(upd, "f32"), scalar(0, "i32")],
                          [tensor(scatter_elements(x, idx, upd, 0, "none", True, "f32"), "f32")]))
    xb, ub = data([2, 4], "boolean"), data([2, 2], "boolean")
    ib = np.array([[0, 3], [-1, 1]])
    for reduction in ("sum", "prod"):
        cases.append(case("scatter_elements12_bool_" + reduction, "ScatterElementsUpdate", "opset12",
                          [tensor(xb, "boolean"), ints(ib), tensor(ub, "boolean"), scalar(1)],
                          [tensor(scatter_elements(xb, ib, ub, 1, reduction, True, "boolean"), "boolean")],
                          {"reduction": reduction}))
    cases.append(case("scatter_elements3_error_rank", "ScatterElementsUpdate", "opset3",
                      [tensor(data([4, 3]), "f32"), ints([1, 2]), tensor(data([2]), "f32"), scalar(0)],
                      error="must have the rank of data"))
    cases.append(case("scatter_elements12_error_updates", "ScatterElementsUpdate", "opset12",
                      [tensor(data([4, 3]), "f32"), ints([[1, 2]]), tensor(data([1, 3]), "f32"), scalar(0)],
                      error="must equal the indices shape"))
    cases.append(case("scatter_elements12_error_mean_bool", "ScatterElementsUpdate", "opset12",
                      [tensor(xb, "boolean"), ints(ib), tensor(ub, "boolean"), scalar(1)], attrs={"reduction": "mean"},
                      error="not defined for boolean"))
    cases.append(case("scatter_elements12_error_axis", "ScatterElementsUpdate", "opset12",
                      [tensor(data([4, 3]), "f32"), ints([[1, 2]]), tensor(data([1, 2]), "f32"), scalar(2)],
                      error="axis 2 is out of range for rank 2"))
    return cases


# ---------------------------------------------------------------------------------------------
# ScatterUpdate

def scatter_update(x, idx, upd, axis):
    out = x.copy()
    axis %= x.ndim
    for pos in np.ndindex(*idx.shape):
        target = (slice(None),) * axis + (normalize(idx[pos], x.shape[axis]),)
        source = (slice(None),) * axis + pos
        out[target] = upd[source]
    return out


def gen_scatter_update():
    cases = []
    specs = [
        # name, data shape, indices, axis, type
        ("axis1_spec", [3, 5], [0, 2], 1, "f32"),
        ("axis0_2d_indices", [5, 3], [[4, 0], [-2, 2]], 0, "i32"),
        ("scalar_index", [3, 4], 3, -1, "i64"),
        ("axis1_3d", [2, 4, 3], [[1], [3]], 1, "boolean"),
        ("u8", [6], [5, 0, 3], 0, "u8"),
    ]
    for name, shape, idx, axis, type_ in specs:
        x = data(shape, type_)
        idx = np.asarray(idx, dtype=np.int64)
        a = axis % len(shape)
        upd = data(shape[:a] + list(idx.shape) + shape[a + 1:], type_)
        cases.append(case("scatter_update_" + name, "ScatterUpdate", "opset3",
                          [tensor(x, type_), ints(idx, "i32", const=False), tensor(upd, type_), scalar(axis)],
                          [tensor(scatter_update(x, idx, upd, axis), type_)]))
    cases.append(case("scatter_update_error_updates", "ScatterUpdate", "opset3",
                      [tensor(data([3, 5]), "f32"), ints([0, 2]), tensor(data([2, 5]), "f32"), scalar(1)],
                      error="must be data.shape[:axis] + indices.shape + data.shape[axis+1:] = [3,2]"))
    return cases


# ---------------------------------------------------------------------------------------------
# GatherND

def gather_nd(x, idx, batch_dims, fuse_batch):
    k = idx.shape[-1]
    batch_shape = idx.shape[:batch_dims]
    results = []
    for b in np.ndindex(*batch_shape):
        xb, ib = x[b], idx[b]
        rows = [xb[tuple(normalize(i, xb.shape[j]) for j, i in enumerate(ib[t]))] for t in np.ndindex(*ib.shape[:-1])]
        results.append(np.asarray(rows).reshape(ib.shape[:-1] + xb.shape[k:]))
    out = np.asarray(results)
    lead = [int(np.prod(batch_shape))] if fuse_batch and batch_dims > 1 else list(batch_shape)
    return out.reshape(lead + list(out.shape[1:]))


def gen_gather_nd():
    cases = []
    specs = [
        # name, data shape, indices, batch_dims, type
        ("elements", [2, 2], [[0, 0], [1, 0]], 0, "f32"),
        ("slices", [2, 2], [[1], [0]], 0, "i32"),
        ("leading", [2, 3], [[[1]], [[-2]]], 0, "f64"),
        ("negative", [3, 4, 2], [[-1, 2], [0, -4]], 0, "i64"),
        ("batch1_elements", [2, 2], [[1], [0]], 1, "f32"),
        ("batch1_slices", [2, 3, 4], [[1], [-3]], 1, "i8"),
        ("batch2", [2, 3, 4], [[[1], [0], [2]], [[0], [2], [2]]], 2, "f32"),
        ("batch2_slices", [2, 3, 4, 2], [[[[1], [3]], [[0], [2]], [[2], [1]]], [[[0], [0]], [[3], [2]], [[1], [1]]]], 2,
         "boolean"),
        ("batch3", [1, 2, 2, 4], [[[[1], [0]], [[3], [2]]]], 3, "u8"),
    ]
    for name, shape, idx, b, type_ in specs:
        x = data(shape, type_)
        idx = np.asarray(idx, dtype=np.int64)
        for version, fuse in (("opset5", True), ("opset8", False)):
            cases.append(case("gather_nd%s_%s" % (version[-1], name), "GatherND", version,
                              [tensor(x, type_), ints(idx, "i32", const=False)],
                              [tensor(gather_nd(x, idx, b, fuse), type_)], {"batch_dims": b}))
    cases.append(case("gather_nd8_error_batch_mismatch", "GatherND", "opset8",
                      [tensor(data([2, 3]), "f32"), ints([[1], [0], [1]])], attrs={"batch_dims": 1},
                      error="batch dimension 0 differs"))
    cases.append(case("gather_nd8_error_index_too_long", "GatherND", "opset8",
                      [tensor(data([2, 3]), "f32"), ints([[1, 0, 1]])],
                      error="address more than the 2 non-batch axes"))
    cases.append(case("gather_nd5_error_batch_dims", "GatherND", "opset5",
                      [tensor(data([2, 3]), "f32"), ints([1, 0])], attrs={"batch_dims": 1},
                      error="batch_dims 1 must be in [0, min(rank(data), rank(indices)))"))
    return cases


# ---------------------------------------------------------------------------------------------
# GatherElements

def gen_gather_elements():
    cases = []
    specs = [
        # name, data shape, indices shape, axis, type
        ("axis0_spec", [2, 2], [[0, 1], [0, 0]], 0, "f32"),
        ("axis1_longer", [2, 2], [[1, 1, 0], [1, 0, 1]], 1, "i32"),
        ("axis0_shorter", [3, 3], [[1, 0, 1], [1, 2, 0]], 0, "i64"),
    ]
    for name, shape, idx, axis, type_ in specs:
        x = data(shape, type_)
        idx = np.asarray(idx)
        cases.append(case("gather_elements_" + name, "GatherElements", "opset6",
                          [tensor(x, type_), ints(idx, "i32", const=False)],
                          [tensor(np.take_along_axis(x, idx, axis), type_)], {"axis": axis}))
    x = data([2, 5, 3], "boolean")
    idx = RNG.integers(-5, 5, [2, 7, 3])
    cases.append(case("gather_elements_negative_3d", "GatherElements", "opset6", [tensor(x, "boolean"), ints(idx)],
                      [tensor(np.take_along_axis(x, np.where(idx < 0, idx + 5, idx), 1), "boolean")], {"axis": -2}))
    cases.append(case("gather_elements_error_rank", "GatherElements", "opset6",
                      [tensor(data([2, 3]), "f32"), ints([1, 0])], attrs={"axis": 0}, error="must have the rank of data"))
    cases.append(case("gather_elements_error_shape", "GatherElements", "opset6",
                      [tensor(data([2, 3]), "f32"), ints([[1, 0], [0, 0]])], attrs={"axis": 0},
                      error="only the gather axis 0 may differ"))
    return cases


# ---------------------------------------------------------------------------------------------
# OneHot

def one_hot(idx, depth, on, off, axis, normalize_negative):
    fixed = np.where((idx < 0) & normalize_negative, idx + depth, idx)
    hot = fixed[..., None] == np.arange(depth)
    out = np.where(hot, on, off)
    return np.moveaxis(out, -1, axis % (idx.ndim + 1))


def gen_one_hot():
    cases = []
    specs = [
        # name, indices, depth, axis, on/off type, mode
        ("axis_last_normalize", [0, -5, -2, 2], 3, -1, "i32", "normalize"),
        ("axis1", [[0, 3, 1], [1, 2, 4]], 3, 1, "f32", None),
        ("axis0_negative_ignored", [[-1, 2], [1, 0]], 4, 0, "f64", "ignore-negative"),
        ("scalar_index", 2, 5, 0, "boolean", None),
        ("axis_neg2_i8", [[1, -3, 0]], 3, -2, "i8", "normalize"),
    ]
    for name, idx, depth, axis, type_, mode in specs:
        idx = np.asarray(idx, dtype=np.int64)
        on, off = (1, 0) if type_ == "boolean" else (5, -2) if type_ != "f64" else (1.5, -0.25)
        attrs = {"axis": axis}
        if mode:
            attrs["negative_indices_mode"] = mode
        expected = one_hot(idx, depth, on, off, axis, mode == "normalize").astype(NP_TYPES[type_])
        cases.append(case("one_hot_" + name, "OneHot", "opset1",
                          [ints(idx, "i32", const=False), scalar(depth, "i32"), scalar(on, type_), scalar(off, type_)],
                          [tensor(expected, type_)], attrs))
    cases.append(case("one_hot_error_value_types", "OneHot", "opset1",
                      [ints([1, 2]), scalar(3), scalar(1.0, "f32"), scalar(0, "i32")], attrs={"axis": -1},
                      error="they must match"))
    return cases


# ---------------------------------------------------------------------------------------------
# ReverseSequence

def reverse_sequence(x, lengths, batch_axis, seq_axis):
    out = x.copy()
    xb = np.moveaxis(x, (batch_axis, seq_axis), (0, 1))
    ob = np.moveaxis(out, (batch_axis, seq_axis), (0, 1))
    for b, n in enumerate(lengths):
        n = int(n)
        ob[b, :n] = xb[b, :n][::-1]
    return out


def gen_reverse_sequence():
    cases = []
    specs = [
        # name, data shape, lengths, batch_axis, seq_axis, type, lengths type
        ("default_axes", [4, 5, 2], [1, 2, 5, 0], 0, 1, "f32", "i32"),
        ("seq0_batch1", [3, 4], [3, 1, 2, 3], 1, 0, "i64", "i64"),
        ("negative_axes_float_lengths", [2, 3, 4], [4, 2], -3, -1, "boolean", "f32"),
    ]
    for name, shape, lengths, batch_axis, seq_axis, type_, ltype in specs:
        x = data(shape, type_)
        cases.append(case("reverse_sequence_" + name, "ReverseSequence", "opset1",
                          [tensor(x, type_), tensor(np.asarray(lengths), ltype)],
                          [tensor(reverse_sequence(x, lengths, batch_axis, seq_axis), type_)],
                          {"batch_axis": batch_axis, "seq_axis": seq_axis}))
    cases.append(case("reverse_sequence_error_lengths", "ReverseSequence", "opset1",
                      [tensor(data([4, 5]), "f32"), ints([1, 2, 3])], attrs={"batch_axis": 0, "seq_axis": 1},
                      error="seq_lengths has 3 values"))
    cases.append(case("reverse_sequence_error_same_axis", "ReverseSequence", "opset1",
                      [tensor(data([4, 5]), "f32"), ints([1, 2, 3, 4])], attrs={"batch_axis": 1, "seq_axis": -1},
                      error="both name axis 1"))
    return cases


# ---------------------------------------------------------------------------------------------
# Eye

def gen_eye():
    cases = []
    specs = [
        # name, rows, columns, diagonal, batch shape, output type, index type
        ("square_f32", 4, 4, 0, None, "f32", "i64"),
        ("upper_i32", 3, 4, 2, None, "i32", "i32"),
        ("lower_f64", 3, 4, -1, None, "f64", "i64"),
        ("outside_batch_f16", 2, 2, 5, [1, 2], "f16", "i64"),
        ("batch_u8", 2, 3, 1, [3], "u8", "i32"),
        ("bool", 3, 2, -2, None, "boolean", "i64"),
    ]
    for name, rows, cols, diag, batch, out_type, itype in specs:
        matrix = np.eye(rows, cols, k=diag)
        expected = np.broadcast_to(matrix, (batch or []) + [rows, cols]).astype(NP_TYPES[out_type])
        inputs = [scalar(rows, itype), scalar(cols, itype), scalar(diag, itype, const=False)]
        if batch is not None:
            inputs.append(ints(batch, itype))
        cases.append(case("eye_" + name, "Eye", "opset9", inputs, [tensor(expected, out_type)],
                          {"output_type": out_type}))
    cases.append(case("eye_error_negative_rows", "Eye", "opset9", [scalar(-1), scalar(3), scalar(0)],
                      attrs={"output_type": "f32"}, error="must not be negative"))
    # Rows computed when the model runs are no error (EyeLike of a dynamic shape); rows that are not a scalar are.
    cases.append(case("eye_error_rows_not_scalar", "Eye", "opset9", [ints([2, 2], const=False), scalar(3), scalar(0)],
                      attrs={"output_type": "f32"}, error="input 0 (num_rows) must be a scalar, got shape [2]"))
    return cases


# ---------------------------------------------------------------------------------------------
# Roll

def gen_roll():
    cases = []
    specs = [
        # name, data shape, shift, axes, type
        ("1d", [7], 3, 0, "f32"),
        ("2d_two_axes", [3, 4], [1, -2], [0, 1], "i32"),
        ("scalar_shift_many_axes", [2, 3, 4], 5, [0, 2], "i64"),
        ("repeated_axis", [5, 2], [2, 4], [0, -2], "boolean"),
        ("negative_axis_large_shift", [2, 6], [-13], [-1], "u8"),
    ]
    for name, shape, shift, axes, type_ in specs:
        x = data(shape, type_)
        expected = np.roll(x, shift, tuple(np.atleast_1d(axes).tolist()))
        cases.append(case("roll_" + name, "Roll", "opset7",
                          [tensor(x, type_), ints(shift, "i32"), ints(axes, "i64", const=False)],
                          [tensor(expected, type_)]))
    # Shift and axes constant, as models hold them (Swin's shifted windows: a [B, H, W, C] map rolled
    # by -window/2 on H and W): the GPU runs these as strided copies. (Drawn without moving the
    # generator on: the cases generated after these keep their committed values.)
    state = RNG.bit_generator.state
    for name, shape, shift, axes, type_ in [("constant_swin_windows", [2, 4, 6, 3], [-2, -2], [1, 2], "f32"),
                                            ("constant_three_axes", [3, 2, 5, 2], [1, 7, -1], [0, 2, 3], "f32"),
                                            ("constant_repeated_axis", [6, 2], [2, 3], [0, 0], "i64")]:
        x = data(shape, type_)
        expected = np.roll(x, shift, tuple(axes))
        cases.append(case("roll_" + name, "Roll", "opset7", [tensor(x, type_), ints(shift, "i64"), ints(axes, "i64")],
                          [tensor(expected, type_)]))
    RNG.bit_generator.state = state
    cases.append(case("roll_error_lengths", "Roll", "opset7", [tensor(data([3, 4]), "f32"), ints([1, 2]), ints([0, 1, 1])],
                      error="must have the same length"))
    cases.append(case("roll_error_axis", "Roll", "opset7", [tensor(data([3, 4]), "f32"), ints([1]), ints([2])],
                      error="roll axis 2 is out of range"))
    return cases


# ---------------------------------------------------------------------------------------------
# NonZero

def gen_non_zero():
    cases = []
    specs = [
        # name, values, type, output type
        ("2d_spec", [[1, 0], [1, 1]], "f32", "i64"),
        ("3d_i32_out", (RNG.integers(-1, 2, [2, 3, 4])), "i32", "i32"),
        ("1d_bool", [0, 1, 1, 0, 1], "boolean", "i64"),
        ("all_zero", np.zeros([2, 3]), "f64", "i64"),
        ("nan_is_non_zero", [0.0, float("nan"), -0.0, 2.5], "f32", "i32"),
    ]
    for name, values, type_, out_type in specs:
        x = np.asarray(values).astype(NP_TYPES[type_])
        expected = np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)
        attrs = {} if out_type == "i64" else {"output_type": out_type}
        cases.append(case("non_zero_" + name, "NonZero", "opset3", [tensor(x, type_, const=True)],
                          [tensor(expected, out_type)], attrs))
    # NonZero of data computed when the model runs is no longer an error: the model runs in stages
    # around it (framework/src/graph/cut_model.hpp, tests/runtime/data_dependent_test.cpp).
    cases.append(case("non_zero_error_output_type", "NonZero", "opset3", [tensor(data([2]), "f32", const=True)],
                      attrs={"output_type": "f32"}, error="output_type 'f32' is not supported"))
    return cases


# ---------------------------------------------------------------------------------------------
# CumSum

def cum_sum(x, axis, exclusive, reverse):
    y = np.flip(x, axis) if reverse else x
    out = np.cumsum(y, axis=axis, dtype=x.dtype)
    if exclusive:
        out = out - y
    return np.flip(out, axis) if reverse else out


def gen_cum_sum():
    cases = []
    x = np.array([1, 2, 3, 4, 5], dtype=np.float32)
    for exclusive in (False, True):
        for reverse in (False, True):
            attrs = {"exclusive": "true" if exclusive else "false", "reverse": "true" if reverse else "false"}
            cases.append(case("cum_sum_spec_ex%d_rev%d" % (exclusive, reverse), "CumSum", "opset3",
                              [tensor(x, "f32"), scalar(0)], [tensor(cum_sum(x, 0, exclusive, reverse), "f32")], attrs))
    specs = [
        # name, shape, axis (None: input absent), type, exclusive, reverse
        ("axis1_i32", [3, 4], 1, "i32", False, False),
        ("axis_neg1_f64_rev_ex", [2, 3, 4], -1, "f64", True, True),
        ("no_axis_i64", [4, 2], None, "i64", False, True),
        ("axis0_i8_exclusive", [5, 2], 0, "i8", True, False),
        ("axis2_f16", [2, 2, 3], 2, "f16", False, False),
    ]
    for name, shape, axis, type_, exclusive, reverse in specs:
        x = data(shape, type_, -10, 10)
        inputs = [tensor(x, type_)]
        if axis is not None:
            inputs.append(scalar(axis, "i32", const=False))
        attrs = {"exclusive": int(exclusive), "reverse": int(reverse)}
        cases.append(case("cum_sum_" + name, "CumSum", "opset3", inputs,
                          [tensor(cum_sum(x, axis or 0, exclusive, reverse), type_)], attrs))
    cases.append(case("cum_sum_error_bool", "CumSum", "opset3", [tensor(data([3], "boolean"), "boolean")],
                      error="must have a numeric element type"))
    cases.append(case("cum_sum_error_axis", "CumSum", "opset3", [tensor(data([3, 2]), "f32"), scalar(2)],
                      error="axis 2 is out of range for rank 2"))
    return cases


# ---------------------------------------------------------------------------------------------
# Einsum

def gen_einsum():
    cases = []
    specs = [
        # name, equation, input shapes, type
        ("matmul", "ij,jk->ik", [[2, 3], [3, 4]], "f32"),
        ("batch_matmul", "bij,bjk->bik", [[2, 2, 3], [2, 3, 2]], "f32"),
        ("transpose", "ijk->kij", [[1, 3, 3]], "i32"),
        ("trace", "ii->", [[4, 4]], "f64"),
        ("batch_trace", "kii->k", [[2, 3, 3]], "f32"),
        ("batch_diagonal", "kii->ki", [[2, 3, 3]], "i64"),
        ("diagonal_dot", "ijkj->ij", [[2, 4, 5, 4]], "f32"),
        ("sum_out", "ijk->i", [[2, 3, 4]], "f32"),
        ("dot", "i,i->", [[3], [3]], "i32"),
        ("matvec", "ij,j->i", [[2, 3], [3]], "f64"),
        ("outer", "i,j->ij", [[3], [2]], "f32"),
        ("three_inputs", "ab,bcd,bc->ca", [[2, 5], [5, 3, 6], [5, 3]], "f32"),
        ("implicit_matmul", "ij,jk", [[2, 3], [3, 4]], "f32"),
        ("implicit_case", "AbC", [[1, 2, 3]], "f32"),
        ("implicit_trace", "ii", [[3, 3]], "i64"),
        ("implicit_ellipsis", "...ij,...jk", [[2, 2, 3], [3, 4]], "f32"),
        ("ellipsis_sum", "a...->...", [[3, 3]], "f32"),
        ("ellipsis_broadcast", "a...,...->a...", [[3, 3], [1]], "f32"),
        ("ellipsis_spec", "a...b,b...->a...", [[9, 1, 4, 3], [3, 11, 7, 1]], "f32"),
        ("ellipsis_middle", "ab...,ac...,ade->...bc", [[2, 3, 4], [2, 7, 1], [2, 4, 7]], "f32"),
        ("ellipsis_batch_matmul", "...ij,...jk->...ik", [[2, 1, 2, 3], [3, 3, 2]], "i32"),
        ("spaces", " ij , jk -> ki ", [[2, 3], [3, 2]], "f32"),
        ("scalar_operand", ",ij->ij", [[], [2, 2]], "f32"),
    ]
    for name, equation, shapes, type_ in specs:
        operands = [data(s, type_, -8, 8) for s in shapes]
        expected = np.einsum(equation.replace(" ", ""), *operands)
        if type_ in FLOATS:
            expected = np.einsum(equation.replace(" ", ""), *[o.astype(np.float64) for o in operands])
        cases.append(case("einsum_" + name, "Einsum", "opset7", [tensor(o, type_) for o in operands],
                          [tensor(np.asarray(expected).astype(NP_TYPES[type_]), type_)], {"equation": equation},
                          rtol=1e-5, atol=1e-5))
    errors = [
        ("bad_character", "ij-jk", [[2, 3], [3, 4]], "unexpected character '-'"),
        ("two_arrows", "ij->j->i", [[2, 3]], "unexpected character '-'"),
        ("two_ellipses", "...i...->i", [[2, 3]], "more than one ellipsis"),
        ("subscript_count", "ij,jk->ik", [[2, 3]], "has 2 input subscripts but the op has 1 inputs"),
        ("rank", "ijk->i", [[2, 3]], "do not match the rank 2"),
        ("label_size", "ij,jk->ik", [[2, 3], [4, 5]], "label 'j' has size 4 here but 3 elsewhere"),
        ("diagonal_size", "ii->i", [[2, 3]], "label 'i' has size 3 here but 2 elsewhere"),
        ("output_label", "ij->ik", [[2, 3]], "output label 'k' that no input subscript has"),
        ("output_repeat", "ij->ii", [[2, 3]], "repeats label 'i'"),
        ("ellipsis_broadcast", "...i,...i->...", [[2, 3], [4, 3]], "cannot be broadcast"),
    ]
    for name, equation, shapes, message in errors:
        cases.append(case("einsum_error_" + name, "Einsum", "opset7", [tensor(data(s), "f32") for s in shapes],
                          attrs={"equation": equation}, error=message))
    cases.append(case("einsum_error_types", "Einsum", "opset7", [tensor(data([2]), "f32"), tensor(data([2], "i32"), "i32")],
                      attrs={"equation": "i,i->"}, error="Einsum needs one type"))
    return cases


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    cases = []
    for gen in (gen_scatter_nd, gen_scatter_elements, gen_scatter_update, gen_gather_nd, gen_gather_elements,
                gen_one_hot, gen_reverse_sequence, gen_eye, gen_roll, gen_non_zero, gen_cum_sum, gen_einsum):
        cases += gen()
    opcase.write("data_movement", "indexing", cases)


if __name__ == "__main__":
    main()
