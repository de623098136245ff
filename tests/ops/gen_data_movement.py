#!/usr/bin/env python3
"""Generates tests/ops/cases/data_movement_*.json: op cases for the data_movement group (Concat,
Split, VariadicSplit, Reshape, Squeeze, Unsqueeze, Transpose, DepthToSpace, SpaceToDepth, Gather,
StridedSlice, Slice, Pad, Broadcast, Tile, ShapeOf, Range). Expected values come from numpy alone.

Run: python3 tests/ops/gen_data_movement.py
"""
import math
import os

import numpy as np

import opcase
from opcase import FLOATS, NP_TYPES, OUT_DIR, case

RNG = np.random.default_rng(20240611)


def data(shape, type_="f32"):
    """A tensor of the given shape with distinct-looking values of the given type."""
    n = int(np.prod(shape, dtype=np.int64))
    if type_ in FLOATS:
        # Quarter steps are exact in every float type, so f16 cases compare exactly too.
        values = RNG.integers(-40, 40, n) / 4.0
    elif type_ == "boolean":
        values = RNG.integers(0, 2, n)
    elif type_ in ("u8", "u32", "u64"):
        values = RNG.integers(0, 250, n)
    elif type_ == "i8":
        values = RNG.integers(-120, 120, n)
    else:
        values = RNG.integers(-1000, 1000, n)
    return np.asarray(values).astype(NP_TYPES[type_]).reshape(shape)


def tensor(array, type_, const=False):
    """The values as given (float64 for a float type, else int64), not cast to `type_`."""
    return opcase.tensor(array, type_, const, cast=False)


def ints(values, type_="i64", const=True):
    return tensor(np.asarray(values, dtype=np.int64), type_, const)


def scalar(value, type_="i64", const=True):
    return tensor(np.asarray(value, dtype=np.float64 if type_.startswith("f") else np.int64), type_, const)


def write(group, cases):
    return opcase.write("data_movement", group, cases)


# ---------------------------------------------------------------------------------------------
# Concat, Split, VariadicSplit

def gen_concat_split():
    cases = []
    for type_ in ("f32", "i32", "i8", "boolean", "f16"):
        a, b, c = data([2, 3, 2], type_), data([2, 1, 2], type_), data([2, 2, 2], type_)
        cases.append(case("concat_axis1_" + type_, "Concat", "opset1",
                          [tensor(a, type_), tensor(b, type_), tensor(c, type_)],
                          [tensor(np.concatenate([a, b, c], axis=1), type_)], {"axis": 1}))
    a, b = data([2, 3], "f32"), data([2, 4], "f32")
    cases.append(case("concat_negative_axis", "Concat", "opset1", [tensor(a, "f32"), tensor(b, "f32")],
                      [tensor(np.concatenate([a, b], axis=-1), "f32")], {"axis": -1}))
    a, b = data([1, 4], "i64"), data([3, 4], "i64")
    cases.append(case("concat_axis0_i64", "Concat", "opset1", [tensor(a, "i64"), tensor(b, "i64")],
                      [tensor(np.concatenate([a, b], axis=0), "i64")], {"axis": 0}))
    # A KV cache's past on generation's first step: length 0 on the concatenation axis.
    past, new = np.zeros([1, 2, 0, 4]), np.arange(24.0).reshape([1, 2, 3, 4]) / 4  # not drawn: later cases keep their data
    cases.append(case("concat_empty_past_f32", "Concat", "opset1", [tensor(past, "f32"), tensor(new, "f32")],
                      [tensor(new, "f32")], {"axis": 2}))
    a = data([5], "f64")
    cases.append(case("concat_single_f64", "Concat", "opset1", [tensor(a, "f64")], [tensor(a, "f64")], {"axis": 0}))
    cases.append(case("concat_error_mismatch", "Concat", "opset1",
                      [tensor(data([2, 3]), "f32"), tensor(data([3, 3]), "f32")], attrs={"axis": 1},
                      error="only the concatenation axis"))
    cases.append(case("concat_error_axis", "Concat", "opset1",
                      [tensor(data([2, 3]), "f32"), tensor(data([2, 3]), "f32")], attrs={"axis": 2},
                      error="out of range"))
    cases.append(case("concat_error_types", "Concat", "opset1",
                      [tensor(data([2, 3]), "f32"), tensor(data([2, 3], "i32"), "i32")], attrs={"axis": 0},
                      error="element type"))

    for type_, axis in (("f32", 1), ("i32", -1), ("u8", 0)):
        x = data([4, 6, 2] if axis != -1 else [2, 3, 6], type_)
        parts = np.split(x, 2 if axis == 0 else 3, axis=axis)
        cases.append(case("split_%s_axis%s" % (type_, str(axis).replace("-", "m")), "Split", "opset1",
                          [tensor(x, type_), scalar(axis)], [tensor(p, type_) for p in parts],
                          {"num_splits": len(parts)}))
    x = data([2, 6])
    cases.append(case("split_axis_i32_1d", "Split", "opset1", [tensor(x, "f32"), ints([1], "i32")],
                      [tensor(p, "f32") for p in np.split(x, 6, axis=1)], {"num_splits": 6}))
    cases.append(case("split_error_divisible", "Split", "opset1", [tensor(data([2, 5]), "f32"), scalar(1)],
                      attrs={"num_splits": 2}, error="not divisible"))
    cases.append(case("split_error_axis_not_const", "Split", "opset1",
                      [tensor(data([2, 4]), "f32"), scalar(1, const=False)], attrs={"num_splits": 2},
                      error="must be a constant"))

    for type_, lengths, axis in (("f32", [1, 3, 2], 1), ("i64", [2, -1, 0], 0), ("boolean", [-1, 1], -1),
                                 ("f64", [6], 1)):
        x = data([6, 6, 2] if axis == 0 else [2, 6, 3] if axis == -1 else [3, 6], type_)
        dim = x.shape[axis]
        known = sum(l for l in lengths if l >= 0)
        real = [dim - known if l == -1 else l for l in lengths]
        parts = np.split(x, np.cumsum(real)[:-1], axis=axis)
        cases.append(case("variadic_%s_%s" % (type_, "_".join(str(l).replace("-", "m") for l in lengths)),
                          "VariadicSplit", "opset1", [tensor(x, type_), scalar(axis), ints(lengths)],
                          [tensor(p, type_) for p in parts]))
    cases.append(case("variadic_error_sum", "VariadicSplit", "opset1",
                      [tensor(data([2, 6]), "f32"), scalar(1), ints([2, 2])], error="sum to 4"))
    cases.append(case("variadic_error_two_inferred", "VariadicSplit", "opset1",
                      [tensor(data([2, 6]), "f32"), scalar(1), ints([-1, -1])], error="more than one -1"))
    # Lengths computed when the model runs give as many pieces as their list is long; a 2-D list, none.
    cases.append(case("variadic_error_computed_lengths_not_1d", "VariadicSplit", "opset1",
                      [tensor(data([2, 6]), "f32"), scalar(1), ints([[3, 3]], const=False)],
                      error="computed when the model runs"))
    return write("concat_split", cases)


# ---------------------------------------------------------------------------------------------
# Reshape, Squeeze, Unsqueeze

def reshape_target(in_shape, pattern, special_zero):
    out = [in_shape[i] if (v == 0 and special_zero) else v for i, v in enumerate(pattern)]
    if -1 in out:
        known = int(np.prod([d for d in out if d != -1], dtype=np.int64))
        out[out.index(-1)] = int(np.prod(in_shape, dtype=np.int64)) // known
    return out


def gen_reshape():
    cases = []
    for name, shape, pattern, special_zero, type_ in (
            ("plain", [2, 3, 4], [4, 6], False, "f32"),
            ("minus_one", [2, 3, 4], [-1, 4], False, "i32"),
            ("special_zero", [2, 3, 4], [0, -1], True, "f32"),
            ("special_zero_two", [2, 3, 4], [0, 0, 2, 2], True, "i8"),
            ("zero_dim_no_special", [0, 3], [3, 0], False, "f32"),
            ("to_scalar", [1, 1], [], False, "f64"),
            ("boolean", [6], [3, 2], False, "boolean"),
            ("f16", [4, 2], [2, -1, 2], False, "f16")):
        x = data(shape, type_)
        out = x.reshape(reshape_target(shape, pattern, special_zero))
        cases.append(case("reshape_" + name, "Reshape", "opset1", [tensor(x, type_), ints(pattern)],
                          [tensor(out, type_)], {"special_zero": "true" if special_zero else "false"}))
    x = data([6])
    cases.append(case("reshape_pattern_i32", "Reshape", "opset1", [tensor(x, "f32"), ints([2, 3], "i32")],
                      [tensor(x.reshape(2, 3), "f32")], {"special_zero": "false"}))
    cases.append(case("reshape_error_size", "Reshape", "opset1", [tensor(data([2, 3]), "f32"), ints([4, 2])],
                      attrs={"special_zero": "false"}, error="cannot reshape"))
    cases.append(case("reshape_error_two_minus_one", "Reshape", "opset1", [tensor(data([2, 3]), "f32"), ints([-1, -1])],
                      attrs={"special_zero": "false"}, error="more than one -1"))
    cases.append(case("reshape_error_not_divisible", "Reshape", "opset1", [tensor(data([2, 3]), "f32"), ints([4, -1])],
                      attrs={"special_zero": "false"}, error="cannot reshape"))
    # A target shape computed when the model runs gives the rank its length says; a 2-D one, none.
    cases.append(case("reshape_error_computed_target_not_1d", "Reshape", "opset1",
                      [tensor(data([2, 3]), "f32"), ints([[3, 2]], const=False)], attrs={"special_zero": "false"},
                      error="computed when the model runs, so its length must be static"))

    for name, shape, axes, type_ in (("axes", [1, 3, 1, 2], [0, 2], "f32"), ("negative_axis", [2, 1, 3], [-2], "i32"),
                                     ("scalar_axis", [1, 4], 0, "u8"), ("all_ones", [1, 3, 1, 1], None, "f32"),
                                     ("to_scalar", [1, 1], None, "i64"), ("empty_axes", [1, 2, 1], [], "f32")):
        x = data(shape, type_)
        inputs = [tensor(x, type_)]
        if axes is None or (not np.isscalar(axes) and len(axes) == 0):
            out = np.squeeze(x)
            if axes is not None:
                inputs.append(ints(axes))
        else:
            out = np.squeeze(x, axis=tuple(np.atleast_1d(axes).tolist()))
            inputs.append(scalar(axes) if np.isscalar(axes) else ints(axes))
        cases.append(case("squeeze_" + name, "Squeeze", "opset1", inputs, [tensor(out, type_)]))
    cases.append(case("squeeze_error_not_one", "Squeeze", "opset1", [tensor(data([2, 3]), "f32"), ints([0])],
                      error="its size is not 1"))
    cases.append(case("squeeze_error_axis_range", "Squeeze", "opset1", [tensor(data([1, 3]), "f32"), ints([2])],
                      error="out of range"))
    cases.append(case("squeeze_error_not_const", "Squeeze", "opset1",
                      [tensor(data([1, 3]), "f32"), ints([0], const=False)], error="must be a constant"))

    for name, shape, axes, type_ in (("front_back", [2, 3], [0, 3], "f32"), ("negative", [2, 3], [-1], "i32"),
                                     ("scalar_axis", [4], 1, "boolean"), ("from_scalar", [], [0, 1], "f64"),
                                     ("middle", [2, 3], [1, 2], "i8")):
        x = data(shape, type_)
        out_rank = len(shape) + len(np.atleast_1d(axes))
        norm = sorted(a % out_rank for a in np.atleast_1d(axes).tolist())
        out_shape = list(shape)
        for a in norm:
            out_shape.insert(a, 1)
        cases.append(case("unsqueeze_" + name, "Unsqueeze", "opset1",
                          [tensor(x, type_), scalar(axes) if np.isscalar(axes) else ints(axes)],
                          [tensor(x.reshape(out_shape), type_)]))
    cases.append(case("unsqueeze_error_repeat", "Unsqueeze", "opset1", [tensor(data([2]), "f32"), ints([0, 0])],
                      error="repeat axis"))
    cases.append(case("unsqueeze_error_range", "Unsqueeze", "opset1", [tensor(data([2]), "f32"), ints([3])],
                      error="out of range"))
    cases.append(case("unsqueeze_error_computed_axes_not_1d", "Unsqueeze", "opset1",
                      [tensor(data([2]), "f32"), ints([[0]], const=False)], error="computed when the model runs"))
    # Identity-16 (what OpenVINO's ONNX front end writes for ONNX's Identity): the value unchanged.
    # (Drawn without moving the generator on: later cases keep their committed values.)
    state = RNG.bit_generator.state
    for name, shape, type_ in (("identity_f32", [2, 3, 4], "f32"), ("identity_i64_scalar", [], "i64")):
        x = data(shape, type_)
        cases.append(case(name, "Identity", "opset16", [tensor(x, type_)], [tensor(x, type_)]))
    RNG.bit_generator.state = state
    return write("reshape", cases)


# ---------------------------------------------------------------------------------------------
# Transpose, DepthToSpace, SpaceToDepth

def depth_to_space(x, bs, mode):
    n, c, spatial = x.shape[0], x.shape[1], list(x.shape[2:])
    k = len(spatial)
    cd = c // bs ** k
    if mode == "blocks_first":
        y = x.reshape([n] + [bs] * k + [cd] + spatial)
        order = [0, k + 1]
        for i in range(k):
            order += [k + 2 + i, 1 + i]
    else:
        y = x.reshape([n, cd] + [bs] * k + spatial)
        order = [0, 1]
        for i in range(k):
            order += [k + 2 + i, 2 + i]
    return y.transpose(order).reshape([n, cd] + [d * bs for d in spatial])


def space_to_depth(x, bs, mode):
    n, c, spatial = x.shape[0], x.shape[1], list(x.shape[2:])
    k = len(spatial)
    split = [n, c]
    for d in spatial:
        split += [d // bs, bs]
    y = x.reshape(split)
    blocks = [3 + 2 * i for i in range(k)]
    dims = [2 + 2 * i for i in range(k)]
    order = [0] + blocks + [1] + dims if mode == "blocks_first" else [0, 1] + blocks + dims
    return y.transpose(order).reshape([n, c * bs ** k] + [d // bs for d in spatial])


def gen_permute():
    cases = []
    for name, shape, order, type_ in (("nchw_nhwc", [1, 2, 3, 4], [0, 2, 3, 1], "f32"),
                                      ("matrix_i32", [3, 5], [1, 0], "i32"), ("identity", [2, 3], [0, 1], "i8"),
                                      ("reverse_empty_order", [2, 3, 4], [], "f32"), ("rank5_bool", [2, 1, 3, 2, 2],
                                                                                     [4, 2, 0, 3, 1], "boolean"),
                                      ("f16", [2, 3, 2], [2, 0, 1], "f16"), ("i64", [2, 2, 3], [1, 2, 0], "i64")):
        x = data(shape, type_)
        out = x.transpose(order if order else None)
        cases.append(case("transpose_" + name, "Transpose", "opset1", [tensor(x, type_), ints(order)],
                          [tensor(out, type_)]))
    cases.append(case("transpose_error_not_permutation", "Transpose", "opset1",
                      [tensor(data([2, 3]), "f32"), ints([0, 0])], error="not a permutation"))
    cases.append(case("transpose_error_length", "Transpose", "opset1",
                      [tensor(data([2, 3]), "f32"), ints([0, 1, 2])], error="has rank 2"))
    cases.append(case("transpose_error_computed_order_length", "Transpose", "opset1",
                      [tensor(data([2, 3]), "f32"), ints([1, 0, 2], const=False)], error="has 3 entries"))

    for mode in ("blocks_first", "depth_first"):
        for name, shape, bs, type_ in (("2d", [1, 8, 2, 3], 2, "f32"), ("1d", [2, 6, 3], 3, "i32"),
                                       ("3d", [1, 16, 1, 2, 2], 2, "u8")):
            x = data(shape, type_)
            cases.append(case("d2s_%s_%s" % (mode, name), "DepthToSpace", "opset1", [tensor(x, type_)],
                              [tensor(depth_to_space(x, bs, mode), type_)], {"mode": mode, "block_size": bs}))
        for name, shape, bs, type_ in (("2d", [1, 2, 4, 6], 2, "f32"), ("1d", [2, 2, 6], 3, "i64"),
                                       ("3d", [1, 2, 2, 4, 2], 2, "boolean")):
            x = data(shape, type_)
            cases.append(case("s2d_%s_%s" % (mode, name), "SpaceToDepth", "opset1", [tensor(x, type_)],
                              [tensor(space_to_depth(x, bs, mode), type_)], {"mode": mode, "block_size": bs}))
    x = data([1, 3, 2, 2])
    cases.append(case("d2s_default_block_size", "DepthToSpace", "opset1", [tensor(x, "f32")], [tensor(x, "f32")],
                      {"mode": "blocks_first"}))
    cases.append(case("d2s_error_channels", "DepthToSpace", "opset1", [tensor(data([1, 6, 2, 2]), "f32")],
                      attrs={"mode": "blocks_first", "block_size": 2}, error="not divisible"))
    cases.append(case("d2s_error_mode", "DepthToSpace", "opset1", [tensor(data([1, 4, 2, 2]), "f32")],
                      attrs={"mode": "sideways", "block_size": 2}, error="mode must be"))
    cases.append(case("s2d_error_spatial", "SpaceToDepth", "opset1", [tensor(data([1, 2, 3, 4]), "f32")],
                      attrs={"mode": "depth_first", "block_size": 2}, error="not divisible"))
    cases.append(case("s2d_error_rank", "SpaceToDepth", "opset1", [tensor(data([2, 4]), "f32")],
                      attrs={"mode": "depth_first", "block_size": 2}, error="rank 3 or more"))
    return write("permute", cases)


# ---------------------------------------------------------------------------------------------
# Gather

def gather(x, idx, axis, batch_dims, zero_out_of_range):
    """Gather by the formula of the spec, one batch at a time."""
    axis %= x.ndim
    if batch_dims < 0:
        batch_dims += idx.ndim
    batch_shape = x.shape[:batch_dims]
    out_shape = list(x.shape[:axis]) + list(idx.shape[batch_dims:]) + list(x.shape[axis + 1:])
    out = np.zeros(out_shape, dtype=x.dtype)
    for b in np.ndindex(*batch_shape):
        xb, ib = x[b], idx[b]
        a = axis - batch_dims
        n = xb.shape[a]
        fixed = np.where(ib < 0, ib + n, ib)
        valid = (fixed >= 0) & (fixed < n)
        taken = np.take(xb, np.where(valid, fixed, 0), axis=a)
        if zero_out_of_range:
            mask = valid.reshape([1] * a + list(ib.shape) + [1] * (xb.ndim - a - 1))
            taken = np.where(mask, taken, np.zeros((), dtype=x.dtype))
        out[b] = taken
    return out


def gen_gather():
    cases = []
    specs = [
        # name, versions, data shape, indices, axis, batch_dims, type, index type
        ("axis0", ("opset1", "opset7", "opset8"), [4, 3], [[0, 2], [3, 1]], 0, None, "f32", "i64"),
        ("axis1_i32", ("opset1", "opset7", "opset8"), [2, 5, 2], [4, 0, 0, 3], 1, None, "i32", "i32"),
        ("scalar_index", ("opset1", "opset7", "opset8"), [3, 4], 2, 1, None, "f32", "i64"),
        ("negative_axis", ("opset1", "opset7", "opset8"), [2, 3, 4], [[1, 0]], -1, None, "u8", "i32"),
        ("bool", ("opset1", "opset8"), [5], [4, 4, 0], 0, None, "boolean", "i64"),
        ("batch1", ("opset7", "opset8"), [2, 4, 3], [[0, 3], [2, 2]], 1, 1, "f32", "i64"),
        ("batch1_axis2", ("opset7", "opset8"), [2, 3, 4], [[1, 0, 3], [3, 3, 2]], 2, 1, "i64", "i32"),
        ("batch_negative", ("opset7", "opset8"), [2, 3, 4, 2], [[[1], [0], [3]], [[2], [2], [0]]], 2, -1, "f64", "i64"),
        ("batch_equals_axis_f16", ("opset7", "opset8"), [2, 3, 2], [[1, 0], [2, 2]], 1, 1, "f16", "i64"),
    ]
    for name, versions, shape, idx, axis, batch_dims, type_, itype in specs:
        x = data(shape, type_)
        idx = np.asarray(idx, dtype=np.int64)
        out = gather(x, idx, axis, batch_dims or 0, False)
        for v in versions:
            attrs = {"batch_dims": batch_dims} if batch_dims is not None else None
            cases.append(case("%s_%s" % (name, v), "Gather", v,
                              [tensor(x, type_), ints(idx, itype, const=False), scalar(axis)], [tensor(out, type_)], attrs))
    # Gather-8: negative indices count from the end, indices out of range give zeros.
    x = data([3, 4])
    idx = np.asarray([[-1, 0], [-3, 2]], dtype=np.int64)
    cases.append(case("negative_indices_opset8", "Gather", "opset8", [tensor(x, "f32"), ints(idx, const=False), scalar(0)],
                      [tensor(gather(x, idx, 0, 0, True), "f32")]))
    x = data([2, 5], "i32")
    idx = np.asarray([[-2, 7], [-6, 4]], dtype=np.int64)
    cases.append(case("out_of_range_zeros_opset8", "Gather", "opset8",
                      [tensor(x, "i32"), ints(idx, const=False), scalar(1)], [tensor(gather(x, idx, 1, 1, True), "i32")],
                      {"batch_dims": 1}))
    # A generation's first, empty KV cache reordered by beam_idx: nothing to gather (not drawn: later
    # cases keep their data).
    cases.append(case("empty_cache_by_beam_opset8", "Gather", "opset8",
                      [tensor(np.zeros([2, 2, 0, 4]), "f32"), ints([1, 0], "i32", const=False), scalar(0)],
                      [tensor(np.zeros([2, 2, 0, 4]), "f32")]))
    cases.append(case("error_axis_range", "Gather", "opset8", [tensor(data([2, 3]), "f32"), ints([0], const=False), scalar(2)],
                      error="out of range"))
    cases.append(case("error_batch_dims_gt_axis", "Gather", "opset7",
                      [tensor(data([2, 3]), "f32"), ints([[0], [1]], const=False), scalar(0)], attrs={"batch_dims": 1},
                      error="must not be greater than axis"))
    cases.append(case("error_batch_mismatch", "Gather", "opset8",
                      [tensor(data([2, 3]), "f32"), ints([[0], [1], [2]], const=False), scalar(1)], attrs={"batch_dims": 1},
                      error="(batch) dimensions"))
    cases.append(case("error_float_indices", "Gather", "opset1",
                      [tensor(data([2, 3]), "f32"), tensor(data([2]), "f32"), scalar(1)], error="integer element type"))
    cases.append(case("error_axis_not_const", "Gather", "opset8",
                      [tensor(data([2, 3]), "f32"), ints([0], const=False), scalar(1, const=False)], error="must be a constant"))
    return write("gather", cases)


# ---------------------------------------------------------------------------------------------
# StridedSlice, Slice

def bit(mask, i):
    return i < len(mask) and mask[i] != 0


def strided_slice(x, begin, end, strides, bm, em, nm, sm, elm):
    index = []
    for i in range(len(begin)):
        if bit(elm, i):
            index.append(Ellipsis)
        elif bit(nm, i):
            index.append(np.newaxis)
        elif bit(sm, i):
            index.append(begin[i])
        else:
            index.append(slice(None if bit(bm, i) else begin[i], None if bit(em, i) else end[i], strides[i]))
    return x[tuple(index)]


def mask_text(mask):
    return ",".join(str(m) for m in mask)


def gen_slice():
    cases = []
    specs = [
        # name, shape, begin, end, strides, begin_mask, end_mask, new_axis, shrink, ellipsis, type
        ("basic", [4, 5], [1, 0], [3, 4], [1, 2], [0, 0], [0, 0], [], [], [], "f32"),
        ("spec_example", [2, 3, 4], [1, 0, 0], [0, 0, 2], [1, 1, 1], [0, 1, 1], [1, 1, 0], [], [], [], "i32"),
        ("negative_stride", [6], [-1], [0], [-2], [0], [0], [], [], [], "f32"),
        ("reverse_all", [3, 4], [0, 0], [0, 0], [-1, -1], [1, 1], [1, 1], [], [], [], "i64"),
        ("negative_indices", [5, 4], [-4, -3], [-1, 10], [1, 1], [0, 0], [0, 0], [], [], [], "u8"),
        ("clamped", [4], [-100], [100], [3], [0], [0], [], [], [], "f32"),
        ("new_axis", [2, 3, 4], [0, 0, 0], [0, 0, 0], [1, 1, 1], [0, 1, 1], [0, 1, 1], [1, 0, 0], [], [], "f32"),
        ("shrink", [3, 4, 2], [0, 2, 0], [0, 3, 0], [1, 1, 1], [1, 0, 1], [1, 0, 1], [], [0, 1, 0], [], "i32"),
        ("shrink_negative", [3, 4], [-1], [0], [1], [0], [0], [], [1], [], "f32"),
        ("ellipsis", [2, 3, 4, 5], [0, 1], [0, 3], [1, 1], [0, 0], [0, 0], [], [], [1, 0], "f32"),
        ("ellipsis_middle", [2, 3, 4, 5], [1, 0, 4], [2, 0, 0], [1, 1, -2], [0, 0, 0], [0, 0, 1], [], [], [0, 1, 0],
         "boolean"),
        ("new_axis_and_ellipsis", [2, 3, 4], [0, 0, 1], [0, 0, 3], [1, 1, 1], [0, 0, 0], [0, 0, 0], [1, 0, 0], [],
         [0, 1, 0], "i8"),
        ("partial_begin", [3, 4, 2], [1], [3], [1], [0], [0], [], [], [], "f64"),
        ("empty_result", [4, 3], [3, 0], [1, 3], [1, 1], [0, 0], [0, 0], [], [], [], "f32"),
        ("f16_stride", [6, 2], [5, 0], [0, 2], [-2, 1], [0, 0], [0, 0], [], [], [], "f16"),
    ]
    for name, shape, begin, end, strides, bm, em, nm, sm, elm, type_ in specs:
        x = data(shape, type_)
        out = strided_slice(x, begin, end, strides, bm, em, nm, sm, elm)
        attrs = {"begin_mask": mask_text(bm), "end_mask": mask_text(em)}
        if nm:
            attrs["new_axis_mask"] = mask_text(nm)
        if sm:
            attrs["shrink_axis_mask"] = mask_text(sm)
        if elm:
            attrs["ellipsis_mask"] = mask_text(elm)
        inputs = [tensor(x, type_), ints(begin), ints(end, "i32"), ints(strides)]
        cases.append(case("strided_" + name, "StridedSlice", "opset1", inputs, [tensor(out, type_)], attrs))
    x = data([4, 3])
    cases.append(case("strided_no_strides_input", "StridedSlice", "opset1", [tensor(x, "f32"), ints([1, 1]), ints([3, 3])],
                      [tensor(x[1:3, 1:3], "f32")], {"begin_mask": "0,0", "end_mask": "0,0"}))
    masks = {"begin_mask": "0", "end_mask": "0"}
    cases.append(case("strided_error_zero_stride", "StridedSlice", "opset1",
                      [tensor(data([4]), "f32"), ints([0]), ints([4]), ints([0])], attrs=masks, error="contain a zero"))
    cases.append(case("strided_error_lengths", "StridedSlice", "opset1",
                      [tensor(data([4, 2]), "f32"), ints([0, 0]), ints([4]), ints([1, 1])], attrs=masks,
                      error="same length"))
    cases.append(case("strided_error_shrink_range", "StridedSlice", "opset1",
                      [tensor(data([4]), "f32"), ints([4]), ints([5]), ints([1])],
                      attrs={"begin_mask": "0", "end_mask": "0", "shrink_axis_mask": "1"}, error="out of range"))
    cases.append(case("strided_error_two_ellipses", "StridedSlice", "opset1",
                      [tensor(data([4, 2]), "f32"), ints([0, 0]), ints([1, 1]), ints([1, 1])],
                      attrs={"begin_mask": "0,0", "end_mask": "0,0", "ellipsis_mask": "1,1"}, error="more than one bit"))
    cases.append(case("strided_error_too_many_axes", "StridedSlice", "opset1",
                      [tensor(data([4]), "f32"), ints([0, 0]), ints([1, 1]), ints([1, 1])],
                      attrs={"begin_mask": "0,0", "end_mask": "0,0"}, error="has rank 1"))
    # Computed bounds keep the rank unless a mask adds or drops axes, which needs the values.
    cases.append(case("strided_error_computed_begin_with_shrink", "StridedSlice", "opset1",
                      [tensor(data([4]), "f32"), ints([0], const=False), ints([2]), ints([1])],
                      attrs=dict(masks, shrink_axis_mask="1"), error="shrink_axis_mask is set"))

    slice_specs = [
        # name, shape, start, stop, step, axes, type
        ("basic", [10], [1], [8], [1], [0], "f32"),
        ("default_step_axes", [10], [1], [8], None, None, "i32"),
        ("step2", [10], [1], [8], [2], [0], "f32"),
        ("clamped", [10], [-100], [100], [1], [0], "u8"),
        ("backward_all", [10], [9], [-11], [-1], [0], "i64"),
        ("backward_stop0", [10], [9], [0], [-1], [0], "f32"),
        ("backward_step2", [10], [9], [-11], [-2], [0], "f32"),
        ("backward_clamped", [10], [100], [-100], [-1], [0], "i8"),
        ("two_axes", [2, 5], [0, 1], [2, 4], [1, 2], [0, 1], "f32"),
        ("negative_axes_unordered", [3, 4, 5], [1, -4], [5, 3], [2, 1], [-1, 0], "boolean"),
        ("int_max_stop", [4, 6], [2], [2 ** 31 - 1], [1], [1], "f64"),
        ("int_min_stop_backward", [4, 6], [-1], [-(2 ** 31)], [-3], [1], "f32"),
        ("empty", [4, 3], [3], [1], [1], [0], "f16"),
    ]
    for name, shape, start, stop, step, axes, type_ in slice_specs:
        x = data(shape, type_)
        index = [slice(None)] * len(shape)
        for i, a in enumerate(axes if axes is not None else range(len(start))):
            index[a] = slice(start[i], stop[i], step[i] if step is not None else 1)
        out = x[tuple(index)]
        inputs = [tensor(x, type_), ints(start), ints(stop, "i32")]
        if step is not None:
            inputs.append(ints(step, "i32"))
        if axes is not None:
            inputs.append(ints(axes))
        cases.append(case("slice_" + name, "Slice", "opset8", inputs, [tensor(out, type_)]))
    cases.append(case("slice_error_zero_step", "Slice", "opset8",
                      [tensor(data([4]), "f32"), ints([0]), ints([4]), ints([0])], error="contains a zero"))
    cases.append(case("slice_error_repeated_axis", "Slice", "opset8",
                      [tensor(data([4, 3]), "f32"), ints([0, 0]), ints([1, 1]), ints([1, 1]), ints([1, -1])],
                      error="repeat axis"))
    cases.append(case("slice_error_axis_range", "Slice", "opset8",
                      [tensor(data([4, 3]), "f32"), ints([0]), ints([1]), ints([1]), ints([2])], error="out of range"))
    return write("slice", cases)


# ---------------------------------------------------------------------------------------------
# Pad

def pad(x, begin, end, mode, value):
    """np.pad for the growing part, then a crop for negative pads (Pad-12)."""
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
    if mode == "constant":
        y = np.pad(x, widths, mode="constant", constant_values=value)
    else:
        y = np.pad(x, widths, mode=mode)
    index = []
    for d, (b, e) in enumerate(zip(begin, end)):
        first = -min(b, 0)
        index.append(slice(first, max(first, y.shape[d] + min(e, 0))))
    return y[tuple(index)]


def gen_pad():
    cases = []
    spec_data = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    for mode in ("constant", "edge", "reflect", "symmetric"):
        for version in ("opset1", "opset12"):
            cases.append(case("spec_%s_%s" % (mode, version), "Pad", version,
                              [tensor(spec_data, "f32"), ints([0, 1]), ints([2, 3])],
                              [tensor(pad(spec_data, [0, 1], [2, 3], mode, 0), "f32")], {"pad_mode": mode}))
        cases.append(case("negative_%s" % mode, "Pad", "opset12",
                          [tensor(spec_data, "f32"), ints([-1, -1]), ints([-1, -1])],
                          [tensor(pad(spec_data, [-1, -1], [-1, -1], mode, 0), "f32")], {"pad_mode": mode}))
        cases.append(case("mixed_%s" % mode, "Pad", "opset12",
                          [tensor(spec_data, "f32"), ints([2, -1]), ints([-1, 3])],
                          [tensor(pad(spec_data, [2, -1], [-1, 3], mode, 0), "f32")], {"pad_mode": mode}))
    for type_, mode, version in (("i32", "constant", "opset1"), ("u8", "reflect", "opset1"), ("i64", "edge", "opset12"),
                                 ("boolean", "symmetric", "opset12"), ("f64", "constant", "opset12"),
                                 ("f16", "reflect", "opset12"), ("i8", "symmetric", "opset1")):
        x = data([2, 3, 4], type_)
        begin, end = [1, 2, 0], [0, 1, 3]
        inputs = [tensor(x, type_), ints(begin, "i32"), ints(end)]
        value = 0
        if mode == "constant" and type_ != "boolean":
            value = data([], type_)
            inputs.append(tensor(value, type_))
        cases.append(case("rank3_%s_%s_%s" % (type_, mode, version), "Pad", version, inputs,
                          [tensor(pad(x, begin, end, mode, value), type_)], {"pad_mode": mode}))
    x = data([3, 2])
    cases.append(case("pad_value_f32", "Pad", "opset1", [tensor(x, "f32"), ints([1, 1]), ints([1, 0]), scalar(2.5, "f32", False)],
                      [tensor(pad(x, [1, 1], [1, 0], "constant", 2.5), "f32")], {"pad_mode": "constant"}))
    cases.append(case("crop_to_empty", "Pad", "opset12", [tensor(x, "f32"), ints([-2, 0]), ints([-2, 0])],
                      [tensor(np.zeros([0, 2], np.float32), "f32")], {"pad_mode": "constant"}))
    cases.append(case("error_negative_opset1", "Pad", "opset1", [tensor(x, "f32"), ints([-1, 0]), ints([0, 0])],
                      attrs={"pad_mode": "constant"}, error="must not be negative"))
    cases.append(case("error_reflect_too_far", "Pad", "opset12", [tensor(x, "f32"), ints([0, 2]), ints([0, 0])],
                      attrs={"pad_mode": "reflect"}, error="exceeds"))
    cases.append(case("error_symmetric_too_far", "Pad", "opset1", [tensor(x, "f32"), ints([4, 0]), ints([0, 0])],
                      attrs={"pad_mode": "symmetric"}, error="exceeds"))
    cases.append(case("error_mode", "Pad", "opset1", [tensor(x, "f32"), ints([0, 0]), ints([0, 0])],
                      attrs={"pad_mode": "wrap"}, error="pad_mode must be"))
    cases.append(case("error_pads_length", "Pad", "opset12", [tensor(x, "f32"), ints([0]), ints([0, 0])],
                      attrs={"pad_mode": "constant"}, error="one entry per axis"))
    cases.append(case("error_computed_pads_length", "Pad", "opset12",
                      [tensor(x, "f32"), ints([0], const=False), ints([0, 0])],
                      attrs={"pad_mode": "constant"}, error="one entry per axis"))
    return write("pad", cases)


# ---------------------------------------------------------------------------------------------
# Broadcast, Tile

def gen_broadcast():
    cases = []
    for version in ("opset1", "opset3"):
        for name, shape, target, type_ in (("numpy_spec", [16, 1, 1], [1, 16, 3, 3], "f32"),
                                           ("numpy_same_rank", [2, 1, 3], [2, 4, 3], "i32"),
                                           ("numpy_scalar", [], [2, 3], "boolean"),
                                           ("numpy_f16", [3], [2, 3], "f16")):
            x = data(shape, type_)
            cases.append(case("%s_%s" % (name, version), "Broadcast", version, [tensor(x, type_), ints(target)],
                              [tensor(np.broadcast_to(x, target), type_)], {"mode": "numpy"}))
        for name, shape, target, mapping, type_ in (("explicit_c", [3], [1, 3, 2, 2], [1], "f32"),
                                                    ("explicit_hw", [2, 3], [1, 2, 3, 4], [1, 2], "i64"),
                                                    ("explicit_ones", [1, 3], [2, 4, 3], [0, 2], "u8")):
            x = data(shape, type_)
            aligned = [1] * len(target)
            for i, a in enumerate(mapping):
                aligned[a] = shape[i]
            out = np.broadcast_to(x.reshape(aligned), target)
            cases.append(case("%s_%s" % (name, version), "Broadcast", version,
                              [tensor(x, type_), ints(target), ints(mapping, "i32")], [tensor(out, type_)],
                              {"mode": "explicit"}))
    x = data([2, 1])
    cases.append(case("default_mode_opset3", "Broadcast", "opset3", [tensor(x, "f32"), ints([3, 2, 4])],
                      [tensor(np.broadcast_to(x, [3, 2, 4]), "f32")]))
    cases.append(case("numpy_ignores_axes_input_opset1", "Broadcast", "opset1",
                      [tensor(x, "f32"), ints([2, 5]), tensor(np.asarray(0, np.uint8), "u8", True)],
                      [tensor(np.broadcast_to(x, [2, 5]), "f32")], {"mode": "numpy"}))
    for name, shape, target, type_ in (("bidirectional_spec", [4, 1, 1], [1, 1, 3, 3], "f32"),
                                       ("bidirectional_data_bigger", [2, 3], [1], "i32"),
                                       ("bidirectional_both", [3, 1], [1, 4], "i8")):
        x = data(shape, type_)
        out = x * np.ones(target, dtype=x.dtype)
        cases.append(case(name, "Broadcast", "opset3", [tensor(x, type_), ints(target)], [tensor(out, type_)],
                          {"mode": "bidirectional"}))
    cases.append(case("error_numpy_incompatible", "Broadcast", "opset3", [tensor(data([3]), "f32"), ints([2, 4])],
                      attrs={"mode": "numpy"}, error="cannot broadcast"))
    cases.append(case("error_numpy_rank", "Broadcast", "opset1", [tensor(data([2, 3]), "f32"), ints([3])],
                      attrs={"mode": "numpy"}, error="higher rank"))
    cases.append(case("error_bidirectional_opset1", "Broadcast", "opset1", [tensor(data([3]), "f32"), ints([2, 3])],
                      attrs={"mode": "bidirectional"}, error="mode must be"))
    cases.append(case("error_bidirectional_incompatible", "Broadcast", "opset3", [tensor(data([3]), "f32"), ints([2])],
                      attrs={"mode": "bidirectional"}, error="cannot be broadcast"))
    cases.append(case("error_explicit_unsorted", "Broadcast", "opset3",
                      [tensor(data([2, 2]), "f32"), ints([2, 2, 3]), ints([1, 0])], attrs={"mode": "explicit"},
                      error="strictly increasing"))
    cases.append(case("error_explicit_size", "Broadcast", "opset1",
                      [tensor(data([3]), "f32"), ints([2, 4]), ints([1])], attrs={"mode": "explicit"},
                      error="of a different size"))
    # A target given when the model runs is no longer an error: the model runs in stages around the
    # op (framework/src/graph/cut_model.hpp, tests/runtime/data_dependent_test.cpp).

    for name, shape, repeats, type_ in (("same_rank", [2, 3], [2, 2], "f32"), ("more_repeats", [3], [2, 1, 2], "i32"),
                                        ("fewer_repeats", [2, 1, 3], [3], "u8"), ("zero", [2, 2], [0, 3], "f32"),
                                        ("bool", [2, 2], [1, 3], "boolean"), ("scalar", [], [4], "i64"),
                                        ("f16", [1, 2], [3, 1], "f16")):
        x = data(shape, type_)
        cases.append(case("tile_" + name, "Tile", "opset1", [tensor(x, type_), ints(repeats)],
                          [tensor(np.tile(x, repeats), type_)]))
    cases.append(case("tile_error_negative", "Tile", "opset1", [tensor(data([2]), "f32"), ints([-1])],
                      error="must not be negative"))
    cases.append(case("tile_error_computed_repeats_not_1d", "Tile", "opset1",
                      [tensor(data([2]), "f32"), ints([[2]], const=False)], error="computed when the model runs"))
    return write("broadcast", cases)


# ---------------------------------------------------------------------------------------------
# ShapeOf, Range

def gen_shape():
    cases = []
    for name, shape, type_ in (("4d", [2, 3, 1, 4], "f32"), ("scalar", [], "i32"), ("empty_dim", [0, 3], "u8"),
                               ("bool", [5], "boolean")):
        x = data(shape, type_)
        cases.append(case("shapeof_%s_opset1" % name, "ShapeOf", "opset1", [tensor(x, type_)],
                          [ints(shape, "i64", False)]))
        for out_type in ("i32", "i64"):
            cases.append(case("shapeof_%s_opset3_%s" % (name, out_type), "ShapeOf", "opset3", [tensor(x, type_)],
                              [ints(shape, out_type, False)], {"output_type": out_type}))
    x = data([2, 2])
    cases.append(case("shapeof_opset3_default_type", "ShapeOf", "opset3", [tensor(x, "f32")], [ints([2, 2], "i64", False)]))
    cases.append(case("shapeof_error_output_type", "ShapeOf", "opset3", [tensor(x, "f32")], attrs={"output_type": "f32"},
                      error="output_type must be"))

    for name, start, stop, step, type_ in (("i32", 2, 23, 3, "i32"), ("negative_step_i64", 23, 2, -3, "i64"),
                                           ("f32", 1.0, 2.5, 0.5, "f32"), ("f64_negative", 1.0, -1.0, -0.25, "f64"),
                                           ("empty", 5, 1, 1, "i32"), ("i8", -4, 4, 3, "i8")):
        out = np.arange(start, stop, step).astype(NP_TYPES[type_])
        cases.append(case("range1_" + name, "Range", "opset1",
                          [scalar(start, type_), scalar(stop, type_), scalar(step, type_)], [tensor(out, type_)]))
    for name, start, stop, step, in_types, out_type in (
            ("i32_spec", 2, 23, 3, ("i32", "i32", "i32"), "i32"),
            ("negative_step", 23, 2, -3, ("i64", "i64", "i64"), "i32"),
            ("f32_spec", 1.0, 2.5, 0.5, ("f32", "f32", "f32"), "f32"),
            ("mixed_inputs_f32", 1, 2.5, 0.5, ("i32", "f32", "f64"), "f32"),
            ("int_inputs_f64", -3, 3, 2, ("i64", "i32", "i64"), "f64"),
            ("float_inputs_truncated_i64", 1.7, 9.9, 2.9, ("f32", "f32", "f32"), "i64"),
            ("i8_output", 0, 10, 4, ("i64", "i64", "i64"), "i8"),
            ("empty", 3.0, 3.0, 1.0, ("f32", "f32", "f32"), "f32")):
        if out_type.startswith("f"):
            out = np.arange(start, stop, step, dtype=np.float64).astype(NP_TYPES[out_type])
        else:
            t = [math.trunc(v) for v in (start, stop, step)]
            out = np.arange(t[0], t[1], t[2]).astype(NP_TYPES[out_type])
        inputs = [scalar(v, t_) for v, t_ in zip((start, stop, step), in_types)]
        cases.append(case("range4_" + name, "Range", "opset4", inputs, [tensor(out, out_type)], {"output_type": out_type}))
    cases.append(case("range1_error_zero_step", "Range", "opset1", [scalar(0), scalar(4), scalar(0)],
                      error="must not be zero"))
    cases.append(case("range1_error_types", "Range", "opset1", [scalar(0, "i32"), scalar(4, "i64"), scalar(1, "i32")],
                      error="needs one type"))
    cases.append(case("range4_error_step_truncates_to_zero", "Range", "opset4",
                      [scalar(0.0, "f32"), scalar(4.0, "f32"), scalar(0.5, "f32")], attrs={"output_type": "i32"},
                      error="must not be zero"))
    cases.append(case("range4_error_not_scalar", "Range", "opset4", [ints([0, 1]), scalar(4), scalar(1)],
                      attrs={"output_type": "i64"}, error="must be a scalar"))
    # A bound computed when the model runs gives a dynamic length (tests/onnx/onnx_dynamic_translators_test.cpp).
    return write("shape", cases)


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    total = sum(gen() for gen in (gen_concat_split, gen_reshape, gen_permute, gen_gather, gen_slice, gen_pad,
                                  gen_broadcast, gen_shape))
    print("total: %d cases" % total)


if __name__ == "__main__":
    main()
