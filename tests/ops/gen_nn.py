#!/usr/bin/env python3
"""Generates the op cases of the nn group (tests/ops/cases/nn_*.json) with numpy only.

Ops: Convolution, GroupConvolution, ConvolutionBackpropData, GroupConvolutionBackpropData, MatMul,
MaxPool-1/-8/-14, AvgPool-1/-14/-16, Softmax-1/-8, LogSoftmax-5, MVN-2/-6, BatchNormInference-1/-5,
NormalizeL2-1, LRN-1, GroupNormalization-12, Interpolate-4/-11, TopK-1/-3/-11 and Col2Im-15, each
with f32 plus f64 or an integer type where the op allows one, every attribute mode, and error cases for bad inputs and attributes.
Expected values follow the OpenVINO opset specification (and OpenVINO's reference implementation
where the specification leaves a detail open, e.g. Interpolate's single-precision coordinates).
Run: python3 tests/ops/gen_nn.py  (deterministic: fixed seed).
"""
import itertools
import math

import numpy as np

import opcase
from opcase import FLOATS, NP_TYPES, OUT_DIR

rng = np.random.default_rng(7031)
F32 = np.float32


# ---------------------------------------------------------------------------------------------
# Case helpers (shared ones in opcase.py)


T = opcase.tensor  # T(arr, et="f32", const=False): the values are cast to `et`


def Z(shape, et="f32", const=False):
    """A zero tensor, for error cases where only the shape matters."""
    return T(np.zeros(shape), et, const)


def case(name, op, version, inputs, outputs, attrs=None, rtol=None, atol=None):
    return opcase.case(name, op, version, inputs, outputs, attrs, rtol=rtol, atol=atol, always_attrs=True)


def error(name, op, version, inputs, attrs, text):
    return opcase.case(name, op, version, inputs, attrs=attrs, error=text, always_attrs=True)


def rand(shape, et="f32", lo=-1.0, hi=1.0):
    if et in FLOATS:
        return rng.uniform(lo, hi, size=shape).astype(NP_TYPES[et])
    return rng.integers(int(lo), int(hi), size=shape, endpoint=True).astype(NP_TYPES[et])


def write(group, cases):
    return opcase.write("nn", group, cases, report=False)


def csv(values):
    return ",".join(str(v) for v in values)


def cast(y, et):
    """Casts a float64 result to `et`, rounding to nearest for integer types."""
    if et in FLOATS:
        return y.astype(NP_TYPES[et])
    return np.rint(y).astype(np.int64).astype(NP_TYPES[et])


# ---------------------------------------------------------------------------------------------
# Sliding windows


def same_pads(in_sp, kernel, strides, dilations, upper):
    begin, end = [], []
    for i, k, s, d in zip(in_sp, kernel, strides, dilations):
        out = -(-i // s)
        total = max(0, (out - 1) * s + d * (k - 1) + 1 - i)
        b = total // 2 if upper else total - total // 2
        begin.append(b)
        end.append(total - b)
    return begin, end


def resolve_pads(auto_pad, in_sp, kernel, strides, dilations, pads_begin, pads_end):
    n = len(in_sp)
    if auto_pad in ("same_upper", "same_lower"):
        return same_pads(in_sp, kernel, strides, dilations, auto_pad == "same_upper")
    if auto_pad == "valid":
        return [0] * n, [0] * n
    return list(pads_begin), list(pads_end)


def conv_nd(x, w, strides, dilations, pads_begin, pads_end, groups=1):
    """x [N, C, *sp], w [C_out, C_in/groups, *k] -> float64 [N, C_out, *out]."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(b, e) for b, e in zip(pads_begin, pads_end)])
    k = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - dilations[i] * (k[i] - 1) - 1) // strides[i] + 1 for i in range(nd)]
    c_out, c_in_g = w.shape[0], w.shape[1]
    c_out_g = c_out // groups
    y = np.zeros([x.shape[0], c_out] + out_sp)
    for g in range(groups):
        wg = w[g * c_out_g:(g + 1) * c_out_g]
        xg = xp[:, g * c_in_g:(g + 1) * c_in_g]
        for pos in np.ndindex(*out_sp):
            win = tuple(slice(p * s, p * s + d * (kk - 1) + 1, d) for p, s, d, kk in zip(pos, strides, dilations, k))
            patch = xg[(slice(None), slice(None)) + win]
            y[(slice(None), slice(g * c_out_g, (g + 1) * c_out_g)) + pos] = np.tensordot(
                patch, wg, axes=(list(range(1, 2 + nd)), list(range(1, 2 + nd))))
    return y


def deconv_nd(x, w, strides, dilations, pads_begin, out_sp, groups=1):
    """Transposed convolution: x [N, C_in, *sp], w [C_in, C_out/groups, *k] -> float64 [N, C_out, *out_sp]."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    c_in_g, c_out_g = w.shape[0] // groups, w.shape[1]
    k = w.shape[2:]
    y = np.zeros([x.shape[0], c_out_g * groups] + list(out_sp))
    for g in range(groups):
        for pos in np.ndindex(*x.shape[2:]):
            for kp in np.ndindex(*k):
                o = [p * s + q * d - b for p, q, s, d, b in zip(pos, kp, strides, dilations, pads_begin)]
                if all(0 <= oi < n for oi, n in zip(o, out_sp)):
                    xin = x[(slice(None), slice(g * c_in_g, (g + 1) * c_in_g)) + pos]           # [N, Cin_g]
                    wk = w[(slice(g * c_in_g, (g + 1) * c_in_g), slice(None)) + kp]             # [Cin_g, Cout_g]
                    y[(slice(None), slice(g * c_out_g, (g + 1) * c_out_g)) + tuple(o)] += xin @ wk
    return y


# ---------------------------------------------------------------------------------------------
# Convolution, GroupConvolution, ConvolutionBackpropData, GroupConvolutionBackpropData


def gen_convolution():
    cases = []

    def conv(name, xs, ws, strides, pads_begin=None, pads_end=None, dilations=None, auto_pad=None, et="f32",
             grouped=False):
        nd = len(xs) - 2
        # Small integers keep integer sums exact and inside the type's range.
        x_range = {"f32": (-1, 1), "f64": (-1, 1), "u8": (0, 3)}.get(et, (-2, 2))
        w_range = {"u8": (0, 1)}.get(et, (-1, 1))
        x, w = rand(xs, et, *x_range), rand(ws, et, *w_range)
        dil = dilations or [1] * nd
        pb, pe = pads_begin or [0] * nd, pads_end or [0] * nd
        rb, re = resolve_pads(auto_pad or "explicit", xs[2:], ws[-nd:], strides, dil, pb, pe)
        groups = ws[0] if grouped else 1
        wf = w.reshape((ws[0] * ws[1],) + tuple(ws[2:])) if grouped else w
        y = conv_nd(x, wf, strides, dil, rb, re, groups)
        attrs = {"strides": csv(strides), "dilations": csv(dil), "pads_begin": csv(pb), "pads_end": csv(pe)}
        if auto_pad:
            attrs["auto_pad"] = auto_pad
        op = "GroupConvolution" if grouped else "Convolution"
        cases.append(case(name, op, "opset1", [T(x, et), T(w, et, const=True)], [T(cast(y, et), et)], attrs))

    conv("conv2d_pads", [1, 2, 5, 5], [3, 2, 3, 3], [1, 1], [1, 1], [1, 1])
    conv("conv2d_strides_asymmetric_pads", [2, 2, 6, 5], [2, 2, 3, 2], [2, 1], [1, 0], [0, 1])
    conv("conv2d_dilations", [1, 1, 7, 7], [2, 1, 3, 3], [1, 1], dilations=[2, 2])
    conv("conv2d_dilations_strides_pads", [1, 2, 8, 7], [2, 2, 2, 3], [2, 2], [1, 2], [2, 0], [2, 1])
    conv("conv2d_same_upper", [1, 2, 6, 5], [2, 2, 3, 3], [2, 2], auto_pad="same_upper")
    conv("conv2d_same_lower", [1, 2, 6, 5], [2, 2, 3, 3], [2, 2], auto_pad="same_lower")
    conv("conv2d_same_upper_dilated", [1, 1, 7, 6], [1, 1, 3, 2], [1, 2], dilations=[2, 2], auto_pad="same_upper")
    conv("conv2d_same_lower_even_kernel", [1, 1, 5, 6], [2, 1, 2, 4], [1, 1], auto_pad="same_lower")
    conv("conv2d_valid_ignores_pads", [1, 2, 6, 6], [1, 2, 3, 3], [2, 1], [3, 3], [3, 3], auto_pad="valid")
    conv("conv2d_notset_is_explicit", [1, 1, 4, 4], [1, 1, 3, 3], [1, 1], [1, 0], [0, 1], auto_pad="notset")
    conv("conv2d_explicit_auto_pad", [1, 1, 4, 5], [2, 1, 2, 2], [1, 2], [1, 1], [1, 1], auto_pad="explicit")
    conv("conv1d", [2, 3, 8], [4, 3, 3], [2], [1], [2])
    conv("conv1d_same_upper", [1, 2, 7], [2, 2, 4], [3], auto_pad="same_upper")
    conv("conv3d", [1, 2, 4, 4, 4], [2, 2, 2, 2, 2], [1, 2, 1], [0, 1, 0], [1, 0, 0])
    conv("conv3d_same_lower", [1, 1, 5, 4, 3], [2, 1, 3, 3, 3], [2, 1, 2], auto_pad="same_lower")
    conv("conv2d_f64", [1, 2, 4, 4], [2, 2, 2, 2], [1, 1], [1, 1], [0, 0], et="f64")
    conv("conv2d_i32", [1, 2, 5, 4], [3, 2, 3, 2], [1, 1], [1, 0], [1, 1], et="i32")
    conv("conv2d_i8", [1, 2, 4, 4], [2, 2, 2, 2], [2, 2], et="i8")
    conv("conv1d_u8", [1, 2, 6], [2, 2, 3], [1], [1], [1], et="u8")
    conv("conv1d_i64", [1, 1, 5], [1, 1, 2], [1], et="i64")

    conv("group2", [1, 4, 5, 5], [2, 3, 2, 3, 3], [1, 1], [1, 1], [1, 1], grouped=True)
    conv("depthwise_same_upper", [1, 3, 6, 6], [3, 1, 1, 3, 3], [2, 2], auto_pad="same_upper", grouped=True)
    conv("depthwise_same_lower_dilated", [1, 2, 5, 5], [2, 2, 1, 2, 2], [1, 1], dilations=[2, 2],
         auto_pad="same_lower", grouped=True)
    conv("group3_1d_i32", [2, 6, 7], [3, 2, 2, 3], [2], [1], [0], et="i32", grouped=True)
    conv("group2_3d", [1, 4, 3, 3, 3], [2, 1, 2, 2, 2, 2], [1, 1, 1], grouped=True)
    conv("group2_valid_f64", [1, 4, 5, 4], [2, 2, 2, 2, 2], [1, 1], [2, 2], [2, 2], auto_pad="valid", et="f64",
         grouped=True)

    base = {"strides": "1,1", "dilations": "1,1", "pads_begin": "0,0", "pads_end": "0,0"}
    c = "Convolution"
    cases += [
        error("conv_channel_mismatch", c, "opset1", [Z([1, 3, 5, 5]), Z([2, 2, 3, 3], const=True)], base,
              "do not match the filter's input channels"),
        error("conv_filter_rank", c, "opset1", [Z([1, 2, 5, 5]), Z([2, 2, 3], const=True)], base, "must have rank 4"),
        error("conv_bad_auto_pad", c, "opset1", [Z([1, 2, 5, 5]), Z([2, 2, 3, 3])], dict(base, auto_pad="same"),
              "attribute 'auto_pad' has unsupported value 'same'"),
        error("conv_strides_count", c, "opset1", [Z([1, 2, 5, 5]), Z([2, 2, 3, 3])], dict(base, strides="1"),
              "attribute 'strides' has 1 values"),
        error("conv_zero_stride", c, "opset1", [Z([1, 2, 5, 5]), Z([2, 2, 3, 3])], dict(base, strides="0,1"),
              "has a value below 1"),
        error("conv_negative_pad", c, "opset1", [Z([1, 2, 5, 5]), Z([2, 2, 3, 3])], dict(base, pads_begin="-1,0"),
              "attribute 'pads_begin' = -1,0 has a value below 0"),
        error("conv_kernel_too_large", c, "opset1", [Z([1, 1, 3, 3]), Z([1, 1, 5, 5])], base,
              "larger than the padded input"),
        error("conv_type_mismatch", c, "opset1", [Z([1, 2, 5, 5]), Z([2, 2, 3, 3], "i32")], base,
              "must have the same element type"),
        error("conv_data_rank", c, "opset1", [Z([2, 3]), Z([2, 3])], base, "must have rank at least 3"),
        error("conv_missing_pads", c, "opset1", [Z([1, 2, 5, 5]), Z([2, 2, 3, 3])],
              {"strides": "1,1", "dilations": "1,1"}, "missing attribute 'pads_begin'"),
        error("group_channel_mismatch", "GroupConvolution", "opset1", [Z([1, 5, 4, 4]), Z([2, 3, 2, 3, 3])], base,
              "do not match the filter's input channels"),
        error("group_filter_rank", "GroupConvolution", "opset1", [Z([1, 4, 4, 4]), Z([2, 2, 3, 3])], base,
              "must have rank 5"),
    ]

    def deconv(name, xs, ws, strides, pads_begin=None, pads_end=None, dilations=None, output_padding=None,
               auto_pad=None, output_shape=None, et="f32", grouped=False):
        nd = len(xs) - 2
        is_float = et in ("f32", "f64")
        x = rand(xs, et, -1 if is_float else -3, 1 if is_float else 3)
        w = rand(ws, et, -1 if is_float else -2, 1 if is_float else 2)
        dil = dilations or [1] * nd
        op_pad = output_padding or [0] * nd
        pb, pe = pads_begin or [0] * nd, pads_end or [0] * nd
        k = ws[-nd:]
        full = [s * (i - 1) + d * (kk - 1) + 1 for i, s, d, kk in zip(xs[2:], strides, dil, k)]
        if output_shape is not None:
            out_sp = output_shape
            if auto_pad in ("same_upper", "same_lower"):
                totals = [max(0, f - o + p) for f, o, p in zip(full, out_sp, op_pad)]
                rb = [t - t // 2 if auto_pad == "same_upper" else t // 2 for t in totals]
            elif auto_pad == "valid":
                rb = [0] * nd
            else:
                rb = pb
        else:
            rb, re = (pb, pe) if auto_pad in (None, "explicit") else ([0] * nd, [0] * nd)
            out_sp = [f - b - e + p for f, b, e, p in zip(full, rb, re, op_pad)]
        groups = ws[0] if grouped else 1
        wf = w.reshape((ws[0] * ws[1],) + tuple(ws[2:])) if grouped else w
        y = deconv_nd(x, wf, strides, dil, rb, out_sp, groups)
        attrs = {"strides": csv(strides), "dilations": csv(dil), "pads_begin": csv(pb), "pads_end": csv(pe)}
        if output_padding:
            attrs["output_padding"] = csv(op_pad)
        if auto_pad:
            attrs["auto_pad"] = auto_pad
        inputs = [T(x, et), T(w, et, const=True)]
        if output_shape is not None:
            inputs.append(T(np.array(output_shape), "i64", const=True))
        op = "GroupConvolutionBackpropData" if grouped else "ConvolutionBackpropData"
        cases.append(case(name, op, "opset1", inputs, [T(cast(y, et), et)], attrs))

    deconv("backprop2d_output_padding", [1, 2, 3, 3], [2, 3, 3, 3], [2, 2], [1, 1], [1, 1], output_padding=[1, 1])
    deconv("backprop2d_dilations_asymmetric", [2, 2, 4, 3], [2, 2, 2, 3], [1, 2], [1, 0], [0, 2], dilations=[2, 1])
    deconv("backprop2d_output_shape", [1, 2, 3, 3], [2, 1, 3, 3], [2, 2], output_shape=[6, 8])
    deconv("backprop2d_output_shape_explicit_pads", [1, 2, 3, 3], [2, 2, 3, 3], [2, 2], [1, 1], [1, 1],
           output_shape=[5, 5])
    deconv("backprop2d_same_upper_output_shape", [1, 2, 3, 3], [2, 2, 3, 3], [2, 2], auto_pad="same_upper",
           output_shape=[6, 5])
    deconv("backprop2d_same_lower_output_shape", [1, 2, 3, 3], [2, 2, 3, 3], [2, 2], auto_pad="same_lower",
           output_shape=[6, 5])
    deconv("backprop2d_same_upper_output_padding", [1, 1, 3, 4], [1, 2, 3, 3], [2, 2], output_padding=[1, 0],
           auto_pad="same_upper", output_shape=[6, 7])
    deconv("backprop2d_same_upper_no_output_shape", [1, 2, 3, 3], [2, 2, 3, 3], [2, 2], [1, 1], [1, 1],
           auto_pad="same_upper")
    deconv("backprop2d_valid", [1, 2, 3, 3], [2, 2, 2, 2], [2, 2], [1, 1], [1, 1], auto_pad="valid")
    deconv("backprop1d", [2, 3, 4], [3, 2, 3], [3], [1], [0], output_padding=[2])
    deconv("backprop3d", [1, 2, 2, 3, 2], [2, 1, 2, 2, 3], [2, 1, 2], output_padding=[1, 0, 0])
    deconv("backprop2d_f64", [1, 1, 3, 3], [1, 2, 2, 2], [1, 1], [0, 1], [1, 0], et="f64")
    deconv("backprop2d_i32", [1, 2, 3, 2], [2, 2, 2, 2], [2, 1], [1, 0], [0, 0], et="i32")
    deconv("group_backprop2d", [1, 4, 3, 3], [2, 2, 3, 2, 2], [2, 2], grouped=True)
    deconv("group_backprop2d_same_lower_output_shape", [1, 2, 3, 3], [2, 1, 2, 3, 3], [2, 2],
           auto_pad="same_lower", output_shape=[6, 6], grouped=True)
    deconv("group_backprop1d_f64", [2, 6, 4], [3, 2, 1, 3], [2], [1], [1], output_padding=[1], et="f64",
           grouped=True)
    deconv("group_backprop2d_output_shape_i32", [1, 4, 2, 2], [2, 2, 2, 2, 2], [2, 2], output_shape=[5, 4],
           et="i32", grouped=True)

    b = "ConvolutionBackpropData"
    cases += [
        error("backprop_channel_mismatch", b, "opset1", [Z([1, 3, 3, 3]), Z([2, 2, 3, 3])], base,
              "do not match the filter's input channels"),
        error("backprop_output_shape_length", b, "opset1",
              [Z([1, 2, 3, 3]), Z([2, 2, 3, 3]), T(np.array([5]), "i64", const=True)], base,
              "must have one value per spatial axis"),
        error("backprop_output_shape_not_constant", b, "opset1",
              [Z([1, 2, 3, 3]), Z([2, 2, 3, 3]), T(np.array([5, 5]), "i64")], base, "must be a constant"),
        error("backprop_output_shape_float", b, "opset1",
              [Z([1, 2, 3, 3]), Z([2, 2, 3, 3]), T(np.array([5, 5]), "f32", const=True)], base,
              "must have an integer type"),
        error("backprop_empty_output", b, "opset1", [Z([1, 2, 1, 3]), Z([2, 2, 1, 1])],
              dict(base, pads_begin="1,0", pads_end="0,0"), "would have size 0"),
        error("group_backprop_channel_mismatch", "GroupConvolutionBackpropData", "opset1",
              [Z([1, 3, 3, 3]), Z([2, 2, 3, 2, 2])], base, "do not match the filter's input channels"),
    ]
    return write("convolution", cases)


# ---------------------------------------------------------------------------------------------
# MatMul


def gen_matmul():
    cases = []

    def mm(name, a_shape, b_shape, ta=False, tb=False, et="f32"):
        lo, hi = (-1, 1) if et in FLOATS else ((0, 3) if et == "u8" else (-3, 3))
        a, b = rand(a_shape, et, lo, hi), rand(b_shape, et, lo, hi)
        A, B = a.astype(np.float64), b.astype(np.float64)
        if ta and A.ndim > 1:
            A = np.swapaxes(A, -1, -2)
        if tb and B.ndim > 1:
            B = np.swapaxes(B, -1, -2)
        y = np.asarray(np.matmul(A, B))
        attrs = {"transpose_a": "true" if ta else "false", "transpose_b": "true" if tb else "false"}
        tol = {"rtol": 2e-3, "atol": 2e-3} if et == "f16" else {}
        cases.append(case(name, "MatMul", "opset1", [T(a, et), T(b, et, const=True)], [T(cast(y, et), et)], attrs,
                          **tol))

    mm("matrix", [3, 4], [4, 5])
    mm("transpose_a", [4, 3], [4, 2], ta=True)
    mm("transpose_b", [3, 4], [5, 4], tb=True)
    mm("transpose_both", [4, 3], [2, 4], ta=True, tb=True)
    mm("vector_matrix", [4], [4, 3])
    mm("matrix_vector", [3, 4], [4])
    mm("vector_vector", [5], [5])
    mm("vector_transpose_ignored", [4], [3, 4], ta=True, tb=True)
    mm("vector_batched_matrix", [4], [2, 4, 3])
    mm("batched_matrix_vector", [2, 3, 4], [4])
    mm("batch_broadcast", [2, 1, 3, 4], [3, 4, 5])
    mm("matrix_times_batch", [3, 4], [2, 4, 2])
    mm("batched_transpose_a", [2, 4, 3], [2, 4, 5], ta=True)
    mm("batch_broadcast_transpose_b", [1, 2, 3, 4], [3, 1, 5, 4], tb=True)
    mm("matrix_f64", [2, 3], [3, 2], et="f64")
    mm("batched_i32", [2, 2, 3], [2, 3, 2], et="i32")
    mm("matrix_i64", [3, 2], [2, 3], ta=False, tb=False, et="i64")
    mm("matrix_u8", [2, 3], [3, 2], et="u8")
    mm("transpose_b_i8", [2, 3], [2, 3], tb=True, et="i8")
    mm("batched_f16_widened", [2, 2, 3], [3, 2], et="f16")

    m = "MatMul"
    cases += [
        error("inner_mismatch", m, "opset1", [Z([3, 4]), Z([5, 2])], {}, "inner dimensions do not match"),
        error("inner_mismatch_transposed", m, "opset1", [Z([3, 4]), Z([4, 2])], {"transpose_b": "true"},
              "inner dimensions do not match"),
        error("batch_mismatch", m, "opset1", [Z([2, 3, 4]), Z([3, 4, 5])], {}, "cannot be broadcast"),
        error("type_mismatch", m, "opset1", [Z([3, 4]), Z([4, 2], "i32")], {}, "must have the same element type"),
        error("scalar_operand", m, "opset1", [Z([]), Z([4, 2])], {}, "must have rank at least 1"),
        error("bad_transpose_value", m, "opset1", [Z([3, 4]), Z([4, 2])], {"transpose_a": "yes"},
              "attribute 'transpose_a' has value 'yes'"),
    ]
    return write("matmul", cases)


# ---------------------------------------------------------------------------------------------
# MaxPool-1, MaxPool-8, MaxPool-14, AvgPool-1, AvgPool-14, AvgPool-16


def pool_geometry(shape, kernel, strides, dilations, pads_begin, pads_end, auto_pad, rounding):
    """rounding: "floor", "ceil", or "ceil_torch" (the last window, rounded up, is kept only when it
    starts before the end padding: PyTorch's ceil_mode, OpenVINO's pooling-14 shape rules)."""
    in_sp = shape[2:]
    pb, pe = resolve_pads(auto_pad, in_sp, kernel, strides, dilations, pads_begin, pads_end)
    out = []
    for i, k, s, d, b, e in zip(in_sp, kernel, strides, dilations, pb, pe):
        span = i + b + e - (d * (k - 1) + 1)
        if rounding in (None, "floor"):
            out.append(span // s + 1)
            continue
        last = -(-span // s)
        out.append(last if rounding == "ceil_torch" and last * s >= i + b else last + 1)
    return pb, pe, out


def window_taps(pos, kernel, strides, dilations, pads_begin, in_sp):
    """Input coordinates (or None in the padding) of each kernel tap, in row-major kernel order."""
    taps = []
    for kp in np.ndindex(*kernel):
        c = [p * s - b + q * d for p, q, s, d, b in zip(pos, kp, strides, dilations, pads_begin)]
        taps.append(tuple(c) if all(0 <= ci < n for ci, n in zip(c, in_sp)) else None)
    return taps


def max_pool(x, kernel, strides, dilations, pads_begin, pads_end, auto_pad, rounding, axis):
    pb, _, out_sp = pool_geometry(x.shape, kernel, strides, dilations, pads_begin, pads_end, auto_pad, rounding)
    n, c = x.shape[:2]
    in_sp = x.shape[2:]
    values = np.zeros([n, c] + out_sp, dtype=x.dtype)
    indices = np.zeros([n, c] + out_sp, dtype=np.int64)
    index_range = int(np.prod(x.shape[axis:]))
    for b, ch in np.ndindex(n, c):
        for pos in np.ndindex(*out_sp):
            best = None
            for tap in window_taps(pos, kernel, strides, dilations, pb, in_sp):
                if tap is not None and (best is None or x[(b, ch) + tap] > x[(b, ch) + best]):
                    best = tap
            values[(b, ch) + pos] = x[(b, ch) + best]
            flat = np.ravel_multi_index((b, ch) + best, x.shape)
            indices[(b, ch) + pos] = flat % index_range
    return values, indices


def avg_pool(x, kernel, strides, pads_begin, pads_end, auto_pad, rounding, exclude_pad, dilations=None):
    dil = dilations or [1] * len(kernel)
    pb, pe, out_sp = pool_geometry(x.shape, kernel, strides, dil, pads_begin, pads_end, auto_pad, rounding)
    count_padding = not exclude_pad and any(v != 0 for v in pb + pe)
    n, c = x.shape[:2]
    y = np.zeros([n, c] + out_sp)
    for b, ch in np.ndindex(n, c):
        for pos in np.ndindex(*out_sp):
            taps = window_taps(pos, kernel, strides, dil, pb, x.shape[2:])
            valid = [float(x[(b, ch) + t]) for t in taps if t is not None]
            count = len(taps) if count_padding else len(valid)
            y[(b, ch) + pos] = sum(valid) / count if count else 0.0
    return y


def gen_pooling():
    cases = []

    def attrs_of(kernel, strides, pads_begin, pads_end, auto_pad, rounding_type, extra):
        nd = len(kernel)
        a = {"kernel": csv(kernel), "strides": csv(strides), "pads_begin": csv(pads_begin or [0] * nd),
             "pads_end": csv(pads_end or [0] * nd)}
        if auto_pad:
            a["auto_pad"] = auto_pad
        if rounding_type:
            a["rounding_type"] = rounding_type
        a.update(extra)
        return a

    def distinct(shape, et):
        # Distinct values so the argmax is unique.
        n = int(np.prod(shape))
        if et in ("f32", "f64"):
            return (rng.permutation(n).reshape(shape) * 0.25 - n * 0.1).astype(NP_TYPES[et])
        lo = 0 if et == "u8" else -(n // 2)
        return (rng.permutation(n).reshape(shape) + lo).astype(NP_TYPES[et])

    def maxpool(name, shape, kernel, strides, pads_begin=None, pads_end=None, auto_pad=None, rounding_type=None,
                et="f32", version="opset1", dilations=None, axis=None, index_type=None):
        nd = len(kernel)
        x = distinct(shape, et)
        dil = dilations or [1] * nd
        values, indices = max_pool(x, kernel, strides, dil, pads_begin or [0] * nd, pads_end or [0] * nd,
                                   auto_pad or "explicit", rounding_type, (axis or 0) % len(shape))
        extra = {}
        if version in ("opset8", "opset14"):
            if dilations:
                extra["dilations"] = csv(dilations)
            if axis is not None:
                extra["axis"] = str(axis)
            if index_type:
                extra["index_element_type"] = index_type
        attrs = attrs_of(kernel, strides, pads_begin, pads_end, auto_pad, rounding_type, extra)
        outputs = [T(values, et)]
        if version in ("opset8", "opset14"):
            outputs.append(T(indices, index_type or "i64"))
        cases.append(case(name, "MaxPool", version, [T(x, et)], outputs, attrs))

    maxpool("max2d_pads", [1, 2, 5, 5], [3, 3], [2, 2], [1, 1], [1, 1])
    maxpool("max2d_no_pads", [2, 1, 4, 6], [2, 2], [2, 2])
    maxpool("max2d_ceil", [1, 1, 5, 6], [2, 3], [2, 2], rounding_type="ceil")
    maxpool("max2d_floor_explicit", [1, 1, 5, 6], [2, 3], [2, 2], rounding_type="floor")
    maxpool("max2d_same_upper", [1, 2, 5, 4], [3, 2], [2, 1], auto_pad="same_upper")
    maxpool("max2d_same_lower", [1, 2, 5, 4], [3, 2], [2, 1], auto_pad="same_lower")
    maxpool("max2d_valid_ignores_pads", [1, 1, 5, 5], [2, 2], [1, 2], [2, 2], [2, 2], auto_pad="valid")
    maxpool("max1d", [2, 3, 7], [3], [2], [1], [0])
    maxpool("max3d", [1, 2, 4, 3, 4], [2, 2, 2], [2, 1, 2], [0, 1, 0], [1, 0, 1])
    maxpool("max2d_i32", [1, 2, 4, 4], [2, 2], [1, 1], [0, 1], [1, 0], et="i32")
    maxpool("max2d_u8", [1, 1, 5, 4], [3, 2], [2, 2], rounding_type="ceil", et="u8")
    maxpool("max1d_f64", [1, 2, 6], [2], [2], [1], [1], et="f64")
    maxpool("v8_indices_axis0", [2, 2, 4, 4], [2, 2], [2, 2], version="opset8")
    maxpool("v8_dilations_pads", [1, 2, 6, 6], [2, 3], [1, 2], [1, 1], [0, 1], version="opset8",
            dilations=[2, 2])
    maxpool("v8_indices_axis2_i32", [2, 2, 5, 5], [3, 3], [2, 2], [1, 1], [1, 1], version="opset8", axis=2,
            index_type="i32")
    maxpool("v8_indices_negative_axis", [2, 3, 4, 5], [2, 2], [2, 2], rounding_type="ceil", version="opset8",
            axis=-3)
    maxpool("v8_same_lower_dilated", [1, 1, 6, 5], [2, 2], [2, 1], auto_pad="same_lower", version="opset8",
            dilations=[2, 2])
    maxpool("v8_same_upper_3d", [1, 1, 3, 4, 5], [2, 2, 3], [1, 2, 2], auto_pad="same_upper", version="opset8",
            index_type="i64")
    maxpool("v8_1d_i32_data", [2, 2, 8], [3], [3], [1], [1], et="i32", version="opset8", axis=1)
    maxpool("v8_ceil_dilated_u8", [1, 2, 7, 6], [2, 2], [2, 2], rounding_type="ceil", et="u8", version="opset8",
            dilations=[2, 1])
    # (The opset-14 cases draw their values without moving the generator on: the cases of the ops
    # generated after them keep the values they were committed with.)
    state = rng.bit_generator.state
    # MaxPool-14: ceil_torch drops a last window that would start in the end padding (8 + 1 + 1 - 3
    # over stride 3: ceil gives 4 windows, the 4th starting at 9 of the padded row, past the data).
    maxpool("v14_ceil_torch_drops_window_in_padding", [1, 2, 8, 8], [3, 3], [3, 3], [1, 1], [1, 1],
            rounding_type="ceil_torch", version="opset14")
    maxpool("v14_ceil_torch_keeps_window_in_data", [1, 2, 6, 7], [3, 3], [2, 2], [1, 1], [1, 1],
            rounding_type="ceil_torch", version="opset14")
    maxpool("v14_ceil_torch_one_axis_each", [1, 1, 8, 6], [3, 3], [3, 2], [1, 1], [1, 1],
            rounding_type="ceil_torch", version="opset14", axis=2, index_type="i32")
    maxpool("v14_ceil_torch_whole_window_in_padding", [1, 1, 4, 5], [2, 2], [2, 2], [0, 0], [2, 2],
            rounding_type="ceil_torch", version="opset14")
    maxpool("v14_ceil_torch_dilated_1d", [2, 2, 9], [2], [3], [1], [1], rounding_type="ceil_torch",
            version="opset14", dilations=[2])
    maxpool("v14_ceil", [1, 2, 6, 7], [3, 3], [2, 2], [1, 1], [1, 1], rounding_type="ceil", version="opset14")
    maxpool("v14_floor", [1, 2, 7, 7], [3, 3], [2, 2], [1, 1], [1, 1], version="opset14")
    rng.bit_generator.state = state

    def avgpool(name, shape, kernel, strides, exclude_pad, pads_begin=None, pads_end=None, auto_pad=None,
                rounding_type=None, et="f32", version="opset1", dilations=None):
        nd = len(kernel)
        x = rand(shape, et)
        y = avg_pool(x, kernel, strides, pads_begin or [0] * nd, pads_end or [0] * nd, auto_pad or "explicit",
                     rounding_type, exclude_pad, dilations)
        extra = {"exclude-pad": "true" if exclude_pad else "false"}
        if dilations:
            extra["dilations"] = csv(dilations)
        attrs = attrs_of(kernel, strides, pads_begin, pads_end, auto_pad, rounding_type, extra)
        cases.append(case(name, "AvgPool", version, [T(x, et)], [T(cast(y, et), et)], attrs))

    avgpool("avg2d_exclude_pad", [1, 2, 5, 5], [3, 3], [2, 2], True, [1, 1], [1, 1])
    avgpool("avg2d_include_pad", [1, 2, 5, 5], [3, 3], [2, 2], False, [1, 1], [1, 1])
    avgpool("avg2d_no_pads", [2, 1, 4, 6], [2, 3], [2, 3], False)
    avgpool("avg2d_ceil_exclude", [1, 1, 5, 5], [2, 2], [2, 2], True, rounding_type="ceil")
    avgpool("avg2d_ceil_include_no_pads", [1, 1, 5, 5], [2, 2], [2, 2], False, rounding_type="ceil")
    avgpool("avg2d_ceil_include_pads", [1, 1, 6, 5], [3, 2], [2, 2], False, [1, 0], [0, 1], rounding_type="ceil")
    avgpool("avg2d_same_upper_exclude", [1, 2, 5, 4], [3, 3], [2, 1], True, auto_pad="same_upper")
    avgpool("avg2d_same_lower_include", [1, 2, 5, 4], [2, 3], [2, 1], False, auto_pad="same_lower")
    avgpool("avg2d_valid", [1, 1, 5, 5], [3, 2], [1, 2], False, [1, 1], [1, 1], auto_pad="valid")
    avgpool("avg1d", [2, 3, 7], [3], [2], True, [1], [1])
    avgpool("avg3d_include", [1, 2, 3, 4, 4], [2, 2, 3], [1, 2, 1], False, [0, 1, 1], [1, 0, 1])
    avgpool("avg2d_f64", [1, 2, 4, 4], [2, 2], [1, 1], True, [1, 1], [0, 0], et="f64")
    state = rng.bit_generator.state
    # AvgPool-14: with padding counted, every window divides by the whole kernel (OpenVINO's rule,
    # also for the windows ceil_torch keeps past the data).
    avgpool("v14_ceil_torch_include_pad", [1, 2, 4, 4], [3, 3], [2, 2], False, [1, 1], [1, 1],
            rounding_type="ceil_torch", version="opset14")
    avgpool("v14_ceil_torch_exclude_pad", [1, 2, 8, 7], [3, 3], [3, 2], True, [1, 1], [1, 1],
            rounding_type="ceil_torch", version="opset14")
    avgpool("v14_ceil_torch_no_pads_1d", [1, 3, 7], [2], [3], True, rounding_type="ceil_torch", version="opset14")
    avgpool("v14_floor_include_pad", [1, 1, 5, 5], [3, 3], [2, 2], False, [1, 1], [1, 1], version="opset14")
    # AvgPool-16: AvgPool-14 with dilations (OpenVINO's ONNX front end writes it).
    avgpool("v16_dilated_ceil_torch_include_pad", [1, 2, 9, 8], [2, 3], [2, 2], False, [1, 1], [1, 0],
            rounding_type="ceil_torch", version="opset16", dilations=[2, 2])
    avgpool("v16_dilated_exclude_pad", [2, 1, 7, 7], [3, 2], [1, 2], True, [1, 0], [0, 1], version="opset16",
            dilations=[2, 3])
    avgpool("v16_no_dilations_attribute", [1, 2, 5, 6], [2, 2], [2, 2], True, rounding_type="ceil",
            version="opset16")
    rng.bit_generator.state = state

    p = {"kernel": "2,2", "strides": "1,1", "pads_begin": "0,0", "pads_end": "0,0"}
    cases += [
        error("max_kernel_too_large", "MaxPool", "opset1", [Z([1, 1, 3, 3])], dict(p, kernel="4,2"),
              "larger than the padded input"),
        error("max_bad_rounding_type", "MaxPool", "opset1", [Z([1, 1, 3, 3])], dict(p, rounding_type="round"),
              "attribute 'rounding_type' has unsupported value 'round'"),
        error("max_ceil_torch_not_in_v8", "MaxPool", "opset8", [Z([1, 1, 3, 3])],
              dict(p, rounding_type="ceil_torch"), "attribute 'rounding_type' has unsupported value"),
        error("max_kernel_length", "MaxPool", "opset1", [Z([1, 1, 3, 3])], dict(p, kernel="2"),
              "attribute 'kernel' has 1 values"),
        error("max_missing_kernel", "MaxPool", "opset1", [Z([1, 1, 3, 3])],
              {"strides": "1,1", "pads_begin": "0,0", "pads_end": "0,0"}, "missing attribute 'kernel'"),
        error("max_rank2", "MaxPool", "opset1", [Z([3, 3])], dict(p, kernel="2", strides="1"),
              "must have rank at least 3"),
        error("max_boolean", "MaxPool", "opset1", [T(np.zeros([1, 1, 3, 3]), "u8") | {"type": "boolean"}], p,
              "must have a numeric type"),
        error("max14_bad_rounding_type", "MaxPool", "opset14", [Z([1, 1, 3, 3])], dict(p, rounding_type="torch"),
              "attribute 'rounding_type' has unsupported value 'torch'"),
        error("avg16_zero_dilation", "AvgPool", "opset16", [Z([1, 1, 3, 3])],
              dict(p, dilations="0,1", **{"exclude-pad": "true"}), "attribute 'dilations' = 0,1 has a value below 1"),
        error("avg1_ceil_torch_is_opset14", "AvgPool", "opset1", [Z([1, 1, 3, 3])],
              dict(p, rounding_type="ceil_torch", **{"exclude-pad": "true"}), "has unsupported value 'ceil_torch'"),
        error("max8_index_type", "MaxPool", "opset8", [Z([1, 1, 3, 3])], dict(p, index_element_type="f32"),
              "attribute 'index_element_type' must be i32 or i64"),
        error("max8_axis_range", "MaxPool", "opset8", [Z([1, 1, 3, 3])], dict(p, axis="4"),
              "attribute 'axis' 4 is out of range for rank 4"),
        error("max8_zero_dilation", "MaxPool", "opset8", [Z([1, 1, 3, 3])], dict(p, dilations="1,0"),
              "attribute 'dilations' = 1,0 has a value below 1"),
        error("avg_integer_data", "AvgPool", "opset1", [Z([1, 1, 3, 3], "i32")], dict(p, **{"exclude-pad": "true"}),
              "must have a floating-point type"),
        error("avg_missing_exclude_pad", "AvgPool", "opset1", [Z([1, 1, 3, 3])], p, "missing attribute 'exclude-pad'"),
        error("avg_bad_auto_pad", "AvgPool", "opset1", [Z([1, 1, 3, 3])],
              dict(p, auto_pad="full", **{"exclude-pad": "true"}), "attribute 'auto_pad' has unsupported value"),
    ]
    return write("pooling", cases)


# ---------------------------------------------------------------------------------------------
# Softmax-1, Softmax-8, LogSoftmax-5


def gen_softmax():
    cases = []

    def softmax(name, op, version, shape, axis=None, et="f32", scale=3.0):
        x = rand(shape, et, -scale, scale)
        xd = x.astype(np.float64)
        a = 1 if axis is None else axis
        shifted = xd - xd.max(axis=a, keepdims=True)
        log_sum = np.log(np.exp(shifted).sum(axis=a, keepdims=True))
        y = shifted - log_sum if op == "LogSoftmax" else np.exp(shifted - log_sum)
        attrs = {} if axis is None else {"axis": str(axis)}
        tol = {"rtol": 2e-3, "atol": 2e-3} if et == "f16" else {}
        cases.append(case(name, op, version, [T(x, et)], [T(y, et)], attrs, **tol))

    softmax("softmax1_axis1", "Softmax", "opset1", [2, 4, 3], 1)
    softmax("softmax1_axis0", "Softmax", "opset1", [3, 4], 0)
    softmax("softmax1_last_axis", "Softmax", "opset1", [2, 2, 2, 5], 3)
    softmax("softmax1_default_axis", "Softmax", "opset1", [2, 5])
    softmax("softmax1_f64", "Softmax", "opset1", [3, 3], 1, et="f64")
    softmax("softmax1_large_values", "Softmax", "opset1", [2, 6], 1, scale=80.0)
    softmax("softmax8_negative_axis", "Softmax", "opset8", [2, 3, 4], -1)
    softmax("softmax8_axis_minus3", "Softmax", "opset8", [3, 2, 4], -3)
    softmax("softmax8_positive_axis", "Softmax", "opset8", [2, 3, 4], 2)
    softmax("softmax8_default_axis", "Softmax", "opset8", [2, 4])
    softmax("softmax8_1d_f64", "Softmax", "opset8", [7], 0, et="f64")
    softmax("logsoftmax_last_axis", "LogSoftmax", "opset5", [2, 3, 4], -1)
    softmax("logsoftmax_axis1", "LogSoftmax", "opset5", [3, 5, 2], 1)
    softmax("logsoftmax_default_axis", "LogSoftmax", "opset5", [2, 6])
    softmax("logsoftmax_f64_axis0", "LogSoftmax", "opset5", [4, 3], 0, et="f64")
    softmax("logsoftmax_large_values", "LogSoftmax", "opset5", [3, 4], -1, scale=100.0)
    softmax("softmax8_f16_widened", "Softmax", "opset8", [2, 5], -1, et="f16")

    cases += [
        error("softmax1_negative_axis", "Softmax", "opset1", [Z([2, 3])], {"axis": "-1"}, "must be non-negative"),
        error("softmax1_axis_range", "Softmax", "opset1", [Z([2, 3])], {"axis": "2"},
              "attribute 'axis' 2 is out of range for rank 2"),
        error("softmax8_axis_range", "Softmax", "opset8", [Z([2, 3])], {"axis": "-3"},
              "attribute 'axis' -3 is out of range for rank 2"),
        error("softmax8_integer", "Softmax", "opset8", [Z([2, 3], "i32")], {"axis": "1"},
              "must have a floating-point type"),
        error("logsoftmax_axis_range", "LogSoftmax", "opset5", [Z([4])], {"axis": "1"}, "out of range for rank 1"),
        error("logsoftmax_scalar", "LogSoftmax", "opset5", [Z([])], {"axis": "0"}, "must have rank at least 1"),
    ]
    return write("softmax", cases)


# ---------------------------------------------------------------------------------------------
# MVN-1 (opset2), MVN-6, BatchNormInference-1/-5, NormalizeL2-1, LRN-1


def mvn_ref(x, axes, normalize_variance, eps, inside):
    xd = x.astype(np.float64)
    axes = tuple(axes)
    y = xd - xd.mean(axis=axes, keepdims=True)
    if normalize_variance:
        var = (y * y).mean(axis=axes, keepdims=True)
        y = y / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)
    return y


def lrn_ref(x, axes, alpha, beta, bias, size):
    xd = x.astype(np.float64)
    half = (size - 1) // 2
    y = np.zeros_like(xd)
    for idx in np.ndindex(*x.shape):
        window = tuple(slice(max(0, i - half), min(n, i + half + 1)) if a in axes else slice(i, i + 1)
                       for a, (i, n) in enumerate(zip(idx, x.shape)))
        sq = float((xd[window] ** 2).sum())
        y[idx] = xd[idx] / (bias + alpha / size ** len(axes) * sq) ** beta
    return y


def gen_normalization():
    cases = []

    def mvn6(name, shape, axes, normalize_variance, eps, eps_mode, et="f32", axes_type="i64"):
        x = rand(shape, et, -2, 2)
        norm = [a % len(shape) for a in axes]
        y = mvn_ref(x, norm, normalize_variance, eps, eps_mode == "inside_sqrt")
        attrs = {"normalize_variance": "true" if normalize_variance else "false", "eps": repr(eps),
                 "eps_mode": eps_mode}
        cases.append(case(name, "MVN", "opset6", [T(x, et), T(np.array(axes), axes_type, const=True)],
                          [T(y, et)], attrs, atol=1e-5))

    mvn6("mvn6_spatial_inside", [2, 3, 4, 4], [2, 3], True, 1e-9, "inside_sqrt")
    mvn6("mvn6_channels_outside", [2, 3, 2, 3], [1, 2, 3], True, 1e-3, "outside_sqrt")
    mvn6("mvn6_no_variance", [2, 3, 5], [2], False, 1e-5, "inside_sqrt")
    mvn6("mvn6_negative_axes_i32", [3, 4, 5], [-1, -2], True, 1e-4, "inside_sqrt", axes_type="i32")
    mvn6("mvn6_large_eps_inside", [2, 6], [1], True, 0.5, "inside_sqrt")
    mvn6("mvn6_large_eps_outside", [2, 6], [1], True, 0.5, "outside_sqrt")
    mvn6("mvn6_batch_axis_f64", [4, 3], [0], True, 1e-6, "outside_sqrt", et="f64")

    def mvn1(name, shape, across_channels, normalize_variance, eps, reduction_axes=None, et="f32"):
        x = rand(shape, et, -2, 2)
        axes = reduction_axes if reduction_axes else list(range(1 if across_channels else 2, len(shape)))
        y = mvn_ref(x, [a % len(shape) for a in axes], normalize_variance, eps, True)
        attrs = {"across_channels": "true" if across_channels else "false",
                 "normalize_variance": "true" if normalize_variance else "false", "eps": repr(eps)}
        if reduction_axes:
            attrs["reduction_axes"] = csv(reduction_axes)
        cases.append(case(name, "MVN", "opset2", [T(x, et)], [T(y, et)], attrs, atol=1e-5))

    mvn1("mvn1_across_channels", [2, 3, 3, 3], True, True, 1e-9)
    mvn1("mvn1_per_channel", [2, 3, 3, 3], False, True, 1e-9)
    mvn1("mvn1_mean_only", [1, 2, 4, 2], False, False, 1e-9)
    mvn1("mvn1_reduction_axes", [2, 3, 4], False, True, 1e-2, reduction_axes=[1])
    mvn1("mvn1_3d_f64", [2, 2, 5], True, True, 1e-5, et="f64")

    def batch_norm(name, version, shape, eps, et="f32"):
        c = shape[1]
        x = rand(shape, et, -2, 2)
        gamma, beta, mean = rand([c], et, 0.5, 1.5), rand([c], et), rand([c], et, -0.5, 0.5)
        var = rand([c], et, 0.1, 2.0)
        bshape = [1, c] + [1] * (len(shape) - 2)
        g, b, m, v = (a.astype(np.float64).reshape(bshape) for a in (gamma, beta, mean, var))
        y = g * (x.astype(np.float64) - m) / np.sqrt(v + eps) + b
        params = [T(gamma, et, True), T(beta, et, True)]
        data = [T(x, et)]
        inputs = (params + data if version == "opset1" else data + params) + [T(mean, et, True), T(var, et, True)]
        cases.append(case(name, "BatchNormInference", version, inputs, [T(y, et)], {"epsilon": repr(eps)}))

    batch_norm("batchnorm1_4d", "opset1", [2, 3, 2, 2], 1e-5)
    batch_norm("batchnorm1_2d", "opset1", [4, 3], 1e-3)
    batch_norm("batchnorm1_f64", "opset1", [1, 2, 3], 0.01, et="f64")
    batch_norm("batchnorm5_4d", "opset5", [2, 3, 2, 2], 1e-5)
    batch_norm("batchnorm5_5d", "opset5", [1, 2, 2, 2, 2], 0.1)
    batch_norm("batchnorm5_f64", "opset5", [3, 4], 1e-4, et="f64")

    def normalize_l2(name, shape, axes, eps, eps_mode, et="f32", zeros=False):
        x = rand(shape, et, -2, 2)
        if zeros:
            x.reshape(-1)[::3] = 0
        xd = x.astype(np.float64)
        if axes:
            s = (xd * xd).sum(axis=tuple(a % len(shape) for a in axes), keepdims=True)
            y = xd / np.sqrt(np.maximum(s, eps) if eps_mode == "max" else s + eps)
        else:
            y = np.where(xd == 0, 0.0, 1.0)
        cases.append(case(name, "NormalizeL2", "opset1", [T(x, et), T(np.array(axes, dtype=np.int64), "i64", True)],
                          [T(y, et)], {"eps": repr(eps), "eps_mode": eps_mode}))

    normalize_l2("l2_channel_add", [2, 3, 2, 2], [1], 1e-10, "add")
    normalize_l2("l2_spatial_max", [1, 2, 3, 3], [2, 3], 1e-10, "max")
    normalize_l2("l2_all_axes", [2, 3, 2], [0, 1, 2], 1e-6, "add")
    normalize_l2("l2_negative_axis", [3, 4], [-1], 1e-6, "max")
    normalize_l2("l2_large_eps_max", [2, 3], [1], 4.0, "max")
    normalize_l2("l2_large_eps_add", [2, 3], [1], 4.0, "add")
    normalize_l2("l2_empty_axes", [2, 5], [], 1e-6, "add", zeros=True)
    normalize_l2("l2_f64", [2, 2, 3], [2], 1e-12, "add", et="f64")

    def lrn(name, shape, axes, alpha, beta, bias, size, et="f32"):
        x = rand(shape, et, -2, 2)
        y = lrn_ref(x, [a % len(shape) for a in axes], alpha, beta, bias, size)
        attrs = {"alpha": repr(alpha), "beta": repr(beta), "bias": repr(bias), "size": str(size)}
        cases.append(case(name, "LRN", "opset1", [T(x, et), T(np.array(axes), "i64", True)], [T(y, et)], attrs))

    lrn("lrn_channels", [1, 5, 2, 2], [1], 0.1, 0.75, 1.0, 3)
    lrn("lrn_spatial", [1, 2, 4, 4], [2, 3], 0.5, 0.5, 2.0, 3)
    lrn("lrn_even_size", [2, 6, 2], [1], 1e-2, 0.75, 1.0, 4)
    lrn("lrn_large_size", [1, 3, 3], [1, 2], 1.0, 1.0, 1.0, 5)
    lrn("lrn_negative_axis_f64", [1, 4, 3], [-2], 0.3, 0.6, 1.5, 2, et="f64")

    ax = lambda v, et="i64", const=True: T(np.array(v), et, const)  # noqa: E731
    mvn = {"normalize_variance": "true", "eps": "1e-9", "eps_mode": "inside_sqrt"}
    cases += [
        error("mvn6_repeated_axes", "MVN", "opset6", [Z([2, 3, 4]), ax([1, -2])], mvn, "name axis 1 twice"),
        error("mvn6_axis_range", "MVN", "opset6", [Z([2, 3, 4]), ax([3])], mvn, "axes 3 is out of range for rank 3"),
        error("mvn6_bad_eps_mode", "MVN", "opset6", [Z([2, 3]), ax([1])], dict(mvn, eps_mode="inside"),
              "attribute 'eps_mode' has unsupported value 'inside'"),
        error("mvn6_axes_not_constant", "MVN", "opset6", [Z([2, 3]), ax([1], const=False)], mvn,
              "must be a constant"),
        error("mvn6_float_axes", "MVN", "opset6", [Z([2, 3]), ax([1], "f32")], mvn, "must have an integer type"),
        error("mvn6_integer_data", "MVN", "opset6", [Z([2, 3], "i32"), ax([1])], mvn,
              "must have a floating-point type"),
        error("mvn1_missing_eps", "MVN", "opset2", [Z([2, 3, 4])], {"across_channels": "true"},
              "missing attribute 'eps'"),
        error("mvn1_reduction_axes_range", "MVN", "opset2", [Z([2, 3, 4])], {"eps": "1e-9", "reduction_axes": "1,5"},
              "out of range for rank 3"),
        error("batchnorm5_channel_mismatch", "BatchNormInference", "opset5",
              [Z([2, 3, 2]), Z([3]), Z([4]), Z([3]), Z([3])], {"epsilon": "1e-5"}, "beta has shape [4]"),
        error("batchnorm1_data_rank", "BatchNormInference", "opset1",
              [Z([3]), Z([3]), Z([3]), Z([3]), Z([3])], {"epsilon": "1e-5"}, "must have rank at least 2"),
        error("batchnorm1_type_mismatch", "BatchNormInference", "opset1",
              [Z([3]), Z([3]), Z([2, 3]), Z([3], "f64"), Z([3])], {"epsilon": "1e-5"}, "same element type"),
        error("batchnorm5_negative_epsilon", "BatchNormInference", "opset5",
              [Z([2, 3]), Z([3]), Z([3]), Z([3]), Z([3])], {"epsilon": "-1"}, "must be non-negative"),
        error("l2_bad_eps_mode", "NormalizeL2", "opset1", [Z([2, 3]), ax([1])], {"eps": "1e-6", "eps_mode": "min"},
              "attribute 'eps_mode' has unsupported value 'min'"),
        error("l2_axis_range", "NormalizeL2", "opset1", [Z([2, 3]), ax([2])], {"eps": "1e-6", "eps_mode": "add"},
              "axes 2 is out of range for rank 2"),
        error("l2_axes_not_constant", "NormalizeL2", "opset1", [Z([2, 3]), ax([1], const=False)],
              {"eps": "1e-6", "eps_mode": "add"}, "must be a constant"),
        error("lrn_zero_size", "LRN", "opset1", [Z([1, 3, 2]), ax([1])],
              {"alpha": "1", "beta": "0.75", "bias": "1", "size": "0"}, "attribute 'size' must be positive"),
        error("lrn_missing_alpha", "LRN", "opset1", [Z([1, 3, 2]), ax([1])],
              {"beta": "0.75", "bias": "1", "size": "3"}, "missing attribute 'alpha'"),
        error("lrn_axes_rank", "LRN", "opset1", [Z([1, 3, 2]), T(np.ones([1, 1]), "i64", True)],
              {"alpha": "1", "beta": "0.75", "bias": "1", "size": "3"}, "axes (input 1) must have rank 0 to 1"),
        error("group_norm_groups_divide", "GroupNormalization", "opset12", [Z([1, 6, 2]), Z([6]), Z([6])],
              {"num_groups": "4", "epsilon": "1e-5"}, "does not divide the data's 6 channels"),
        error("group_norm_scale_length", "GroupNormalization", "opset12", [Z([1, 6, 2]), Z([3]), Z([6])],
              {"num_groups": "3", "epsilon": "1e-5"}, "scale has shape [3] but data [1,6,2] has 6 channels"),
        error("group_norm_zero_groups", "GroupNormalization", "opset12", [Z([1, 6, 2]), Z([6]), Z([6])],
              {"num_groups": "0", "epsilon": "1e-5"}, "attribute 'num_groups' must be positive"),
        error("group_norm_rank1", "GroupNormalization", "opset12", [Z([6]), Z([6]), Z([6])],
              {"num_groups": "2", "epsilon": "1e-5"}, "must have rank at least 2"),
    ]
    # GroupNormalization-12 (its values drawn without moving the generator on: the cases generated
    # after these keep the values they were committed with).
    state = rng.bit_generator.state

    def group_norm(name, shape, groups, eps, et="f32"):
        x = rand(shape, et, -2, 2)
        c = shape[1]
        scale, bias = rand([c], et, 0.5, 1.5), rand([c], et)
        grouped = x.astype(np.float64).reshape([shape[0], groups, -1])
        mean = grouped.mean(axis=2, keepdims=True)
        var = ((grouped - mean) ** 2).mean(axis=2, keepdims=True)
        normal = ((grouped - mean) / np.sqrt(var + eps)).reshape(shape)
        bshape = [1, c] + [1] * (len(shape) - 2)
        y = normal * scale.astype(np.float64).reshape(bshape) + bias.astype(np.float64).reshape(bshape)
        cases.append(case(name, "GroupNormalization", "opset12", [T(x, et), T(scale, et, const=True), T(bias, et, const=True)], [T(y, et)],
                          {"num_groups": str(groups), "epsilon": repr(eps)}, atol=1e-5))

    group_norm("group_norm_4d", [2, 6, 3, 4], 3, 1e-5)
    group_norm("group_norm_one_group", [1, 4, 5, 2], 1, 1e-5)  # PoolFormer's GroupNorm(1, C)
    group_norm("group_norm_a_group_per_channel", [2, 3, 4], 3, 1e-3)
    group_norm("group_norm_2d_data", [3, 8], 2, 1e-5)
    group_norm("group_norm_large_eps_f64", [1, 4, 2, 2, 2], 2, 0.5, et="f64")
    rng.bit_generator.state = state
    return write("normalization", cases)


# ---------------------------------------------------------------------------------------------
# Interpolate-4, Interpolate-11. Coordinates, scales and weights are computed in single precision
# in the same order as OpenVINO's reference; the weighted sums in double precision.


def cround(x):
    """C's round(): half away from zero."""
    x = float(x)
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def source_coord(x, scale, len_out, len_in, mode):
    x, lo, li = F32(x), F32(len_out), F32(len_in)
    if scale == F32(1) or lo == li:
        return x
    if mode == "pytorch_half_pixel":
        return (x + F32(0.5)) / scale - F32(0.5) if lo > F32(1) else F32(0)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_half_pixel_for_nn":
        return (x + F32(0.5)) / scale
    if mode == "align_corners":
        return F32(0) if lo == F32(1) else x * (li - F32(1)) / (lo - F32(1))
    return (x + F32(0.5)) / scale - F32(0.5)


def nearest_pixel(x, mode, downsample):
    if mode == "round_prefer_ceil":
        return cround(x)
    if mode == "floor":
        return math.floor(x)
    if mode == "ceil":
        return math.ceil(x)
    if mode == "simple":
        return math.ceil(x) if downsample else int(x)
    if x == F32(int(x)) + F32(0.5):
        return math.floor(x)
    return cround(x)


def cubic_coeffs(s, a):
    t = F32(abs(s))
    one, two, four, five, eight = F32(1), F32(2), F32(4), F32(5), F32(8)
    return [((a * (t + one) - five * a) * (t + one) + eight * a) * (t + one) - four * a,
            ((a + two) * t - (a + F32(3))) * t * t + one,
            ((a + two) * (one - t) - (a + F32(3))) * (one - t) * (one - t) + one,
            ((a * (two - t) - five * a) * (two - t) + eight * a) * (two - t) - four * a]


def interpolate_ref(x, out_shape, axes, scales, attrs):
    rank = x.ndim
    pb = [int(v) for v in attrs.get("pads_begin", "").split(",") if v] + [0] * rank
    pe = [int(v) for v in attrs.get("pads_end", "").split(",") if v] + [0] * rank
    xp = np.pad(x.astype(np.float64), [(pb[i], pe[i]) for i in range(rank)])
    in_shape = xp.shape
    mode = attrs["mode"]
    transform = attrs.get("coordinate_transformation_mode", "half_pixel")
    nearest = attrs.get("nearest_mode", "round_prefer_floor")
    antialias = attrs.get("antialias", "false") == "true"
    cube = F32(float(attrs.get("cube_coeff", "-0.75")))
    all_scales = [F32(1)] * rank
    for a, s in zip(axes, scales):
        all_scales[a] = s

    def src(o, d):
        return source_coord(o[d], all_scales[d], out_shape[d], in_shape[d], transform)

    def clip(v, n):
        return max(0, min(v, n - 1))

    y = np.zeros(out_shape)
    for o in np.ndindex(*out_shape):
        if mode == "nearest":
            idx = tuple(clip(nearest_pixel(src(o, d), nearest, all_scales[d] < F32(1)), in_shape[d])
                        for d in range(rank))
            y[o] = xp[idx]
        elif mode == "linear_onnx":
            lo, hi, w_lo, w_hi = [], [], [], []
            for a in axes:
                s = max(F32(0), min(src(o, a), F32(in_shape[a] - 1)))
                l_ = min(int(s), in_shape[a] - 1)
                h_ = min(l_ + 1, in_shape[a] - 1)
                lo.append(l_)
                hi.append(h_)
                w_lo.append(F32(0.5) if l_ == h_ else F32(abs(s - F32(h_))))
                w_hi.append(F32(0.5) if l_ == h_ else F32(abs(s - F32(l_))))
            total = 0.0
            for corner in range(1 << len(axes)):
                w, idx = F32(1), list(o)
                for i, a in enumerate(axes):
                    high = (corner >> i) & 1
                    w = w * (w_hi[i] if high else w_lo[i])
                    idx[a] = hi[i] if high else lo[i]
                total += float(w) * xp[tuple(idx)]
            y[o] = total
        elif mode == "cubic":
            first, coeffs = [], []
            for a in axes:
                s = src(o, a)
                fl = math.floor(s)
                first.append(fl - 1)
                coeffs.append(cubic_coeffs(s - F32(fl), cube))
            total = 0.0
            for taps in np.ndindex(*([4] * len(axes))):
                w, idx = F32(1), list(o)
                for i, a in enumerate(axes):
                    w = w * coeffs[i][taps[i]]
                    idx[a] = clip(first[i] + taps[i], in_shape[a])
                total += float(w) * xp[tuple(idx)]
            y[o] = total
        else:  # linear
            aa = antialias and any(s < F32(1) for s in scales)
            a_, radius, srcs, centers = [], [], [], []
            prod_a = F32(1)
            for i, a in enumerate(axes):
                a_.append(scales[i] if aa else F32(1))
                prod_a = prod_a * a_[i]
                radius.append(2 if scales[i] > F32(1) else int(math.ceil(F32(2) / a_[i])))
                srcs.append(src(o, a))
                centers.append(cround(srcs[i]))
            total, weights = 0.0, 0.0
            for taps in np.ndindex(*[2 * r + 1 for r in radius]):
                w, idx, inside = prod_a, list(o), True
                for i, a in enumerate(axes):
                    pos = centers[i] + taps[i] - radius[i]
                    inside = 0 <= pos < in_shape[a]
                    if not inside:
                        break
                    w = w * max(F32(0), F32(1) - F32(abs(a_[i] * (srcs[i] - F32(pos)))))
                    idx[a] = pos
                if inside:
                    total += float(w) * xp[tuple(idx)]
                    weights += float(w)
            y[o] = 0.0 if weights == 0 else total / weights
    return y


def gen_interpolate():
    cases = []

    def interp(name, version, shape, mode, sizes=None, scales=None, axes=None, et="f32", axes_type="i64",
               sizes_type="i64", **extra):
        calc = "sizes" if sizes is not None else "scales"
        x = rand(shape, et, -3, 3) if et in ("f32", "f64") else rand(shape, et, 0 if et == "u8" else -20, 20)
        rank = len(shape)
        attrs = {"mode": mode, "shape_calculation_mode": calc}
        attrs.update({k: (csv(v) if isinstance(v, list) else str(v)) for k, v in extra.items()})
        pb = [int(v) for v in attrs.get("pads_begin", "").split(",") if v] + [0] * rank
        pe = [int(v) for v in attrs.get("pads_end", "").split(",") if v] + [0] * rank
        padded = [shape[i] + pb[i] + pe[i] for i in range(rank)]
        norm = [a % rank for a in axes] if axes is not None else list(range(rank))
        out = list(padded)
        if calc == "sizes":
            sc = [F32(sizes[i]) / F32(padded[a]) for i, a in enumerate(norm)]
            for i, a in enumerate(norm):
                out[a] = sizes[i]
        else:
            sc = [F32(s) for s in scales]
            for i, a in enumerate(norm):
                if sc[i] != F32(1):
                    out[a] = int(F32(padded[a]) * (sc[i] + F32(1e-6)))
        y = interpolate_ref(x, out, norm, sc, attrs)
        y = y if et in ("f32", "f64") else np.array([cround(v) for v in y.reshape(-1)]).reshape(y.shape)
        sizes_t = T(np.array(sizes if sizes is not None else [out[a] for a in norm]), sizes_type, True)
        scales_t = T(np.array(scales if scales is not None else sc, dtype=np.float32), "f32", True)
        if version == "opset4":
            inputs = [T(x, et), sizes_t, scales_t]
        else:
            inputs = [T(x, et), sizes_t if calc == "sizes" else scales_t]
        if axes is not None:
            inputs.append(T(np.array(axes), axes_type, True))
        cases.append(case(name, "Interpolate", version, inputs, [T(y, et)], attrs, rtol=1e-5, atol=1e-5))

    v4 = "opset4"
    interp("nearest_upsample_half_pixel", v4, [1, 1, 2, 3], "nearest", sizes=[4, 6], axes=[2, 3])
    interp("nearest_downsample_asymmetric_floor", v4, [1, 1, 4, 6], "nearest", sizes=[2, 3], axes=[2, 3],
           coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    interp("nearest_scales_tf_half_pixel_ceil", v4, [1, 2, 3, 3], "nearest", scales=[1.5, 2.0], axes=[2, 3],
           coordinate_transformation_mode="tf_half_pixel_for_nn", nearest_mode="ceil")
    interp("nearest_simple_downsample", v4, [1, 1, 5, 5], "nearest", scales=[0.6, 0.6], axes=[2, 3],
           nearest_mode="simple")
    interp("nearest_simple_upsample", v4, [1, 1, 3, 2], "nearest", sizes=[5, 5], axes=[2, 3],
           nearest_mode="simple", coordinate_transformation_mode="asymmetric")
    interp("nearest_align_corners_prefer_ceil", v4, [1, 1, 3, 4], "nearest", sizes=[5, 7], axes=[2, 3],
           coordinate_transformation_mode="align_corners", nearest_mode="round_prefer_ceil")
    interp("nearest_pytorch_half_pixel_size1", v4, [1, 1, 4, 4], "nearest", sizes=[1, 3], axes=[2, 3],
           coordinate_transformation_mode="pytorch_half_pixel")
    interp("nearest_no_axes_input_u8", v4, [2, 3], "nearest", sizes=[4, 5], et="u8")
    interp("nearest_pads_i32", v4, [1, 1, 2, 2], "nearest", sizes=[6, 6], axes=[2, 3], et="i32",
           pads_begin=[0, 0, 1, 0], pads_end=[0, 0, 0, 1])
    interp("nearest_axes_i32_input", v4, [1, 2, 3, 2], "nearest", sizes=[4], axes=[1], axes_type="i32",
           sizes_type="i32")
    interp("linear_onnx_half_pixel", v4, [1, 2, 3, 4], "linear_onnx", sizes=[5, 7], axes=[2, 3])
    interp("linear_onnx_align_corners", v4, [1, 1, 3, 3], "linear_onnx", sizes=[5, 4], axes=[2, 3],
           coordinate_transformation_mode="align_corners")
    interp("linear_onnx_pytorch_downsample", v4, [1, 1, 5, 6], "linear_onnx", scales=[0.6, 0.5], axes=[2, 3],
           coordinate_transformation_mode="pytorch_half_pixel")
    interp("linear_onnx_asymmetric_5d", v4, [1, 1, 2, 3, 3], "linear_onnx", sizes=[3, 4, 5], axes=[2, 3, 4],
           coordinate_transformation_mode="asymmetric")
    interp("linear_onnx_2d_f64", v4, [2, 3], "linear_onnx", sizes=[3, 5], axes=[0, 1], et="f64")
    interp("linear_onnx_u8", v4, [1, 1, 2, 3], "linear_onnx", sizes=[3, 5], axes=[2, 3], et="u8")
    interp("linear_onnx_pads", v4, [1, 1, 2, 2], "linear_onnx", scales=[2.0, 2.0], axes=[2, 3],
           pads_begin=[0, 0, 1, 1], pads_end=[0, 0, 1, 0])
    interp("linear_upsample", v4, [1, 1, 3, 3], "linear", sizes=[5, 6], axes=[2, 3])
    interp("linear_antialias_downsample", v4, [1, 1, 8, 8], "linear", sizes=[3, 5], axes=[2, 3], antialias="true")
    interp("linear_downsample", v4, [1, 1, 6, 6], "linear", scales=[0.5, 0.5], axes=[2, 3])
    interp("linear_antialias_align_corners", v4, [1, 2, 6, 4], "linear", sizes=[3, 2], axes=[2, 3],
           antialias="true", coordinate_transformation_mode="align_corners")
    interp("linear_1axis_f64", v4, [2, 5], "linear", sizes=[8], axes=[1], et="f64")
    interp("cubic_upsample", v4, [1, 1, 4, 4], "cubic", sizes=[6, 7], axes=[2, 3])
    interp("cubic_downsample_asymmetric_coeff", v4, [1, 1, 6, 6], "cubic", scales=[0.5, 0.75], axes=[2, 3],
           coordinate_transformation_mode="asymmetric", cube_coeff="-0.5")
    interp("cubic_align_corners_one_axis", v4, [1, 2, 4, 5], "cubic", sizes=[7], axes=[3],
           coordinate_transformation_mode="align_corners")
    interp("cubic_pads", v4, [1, 1, 3, 3], "cubic", scales=[1.5, 1.5], axes=[2, 3], pads_begin=[0, 0, 1, 1],
           pads_end=[0, 0, 1, 0])
    interp("cubic_tf_half_pixel_f64", v4, [1, 1, 3, 4], "cubic", sizes=[5, 5], axes=[2, 3], et="f64",
           coordinate_transformation_mode="tf_half_pixel_for_nn")
    interp("cubic_antialias_ignored", v4, [1, 1, 4, 4], "cubic", sizes=[2, 3], axes=[2, 3], antialias="true")

    v11 = "opset11"
    interp("v11_nearest_sizes_axes", v11, [1, 2, 3, 4], "nearest", sizes=[6, 2], axes=[2, 3], sizes_type="i32",
           coordinate_transformation_mode="asymmetric", nearest_mode="round_prefer_ceil")
    interp("v11_linear_onnx_scales", v11, [1, 1, 4, 4], "linear_onnx", scales=[0.5, 1.25], axes=[2, 3])
    interp("v11_cubic_sizes_no_axes", v11, [1, 1, 3, 3], "cubic", sizes=[1, 1, 5, 5])
    interp("v11_linear_antialias_scales", v11, [1, 1, 6, 9], "linear", scales=[0.5, 0.3333333], axes=[2, 3],
           antialias="true")
    interp("v11_nearest_negative_axes_i64", v11, [2, 3, 4], "nearest", sizes=[2, 8], axes=[-2, -1], et="i64")
    interp("v11_linear_onnx_f64_pads", v11, [1, 2, 3], "linear_onnx", scales=[1.0, 2.0], axes=[1, 2], et="f64",
           pads_end=[0, 1, 1])
    interp("v11_nearest_scale_one", v11, [1, 3, 2], "nearest", scales=[1.0, 2.5], axes=[1, 2],
           nearest_mode="floor")

    i = "Interpolate"
    x4 = Z([1, 1, 2, 2])
    sizes = T(np.array([4, 4]), "i64", True)
    scales = T(np.array([2.0, 2.0]), "f32", True)
    axes = T(np.array([2, 3]), "i64", True)
    base = {"mode": "nearest", "shape_calculation_mode": "sizes"}
    cases += [
        error("bad_mode", i, v4, [x4, sizes, scales, axes], dict(base, mode="bilinear"),
              "attribute 'mode' has unsupported value 'bilinear'"),
        error("v4_pillow_mode_unknown", i, v4, [x4, sizes, scales, axes], dict(base, mode="bilinear_pillow"),
              "attribute 'mode' has unsupported value"),
        error("v11_pillow_mode_not_implemented", i, v11, [x4, sizes, axes], dict(base, mode="bicubic_pillow"),
              "mode 'bicubic_pillow' is not implemented"),
        error("sizes_count", i, v4, [x4, T(np.array([4, 4, 4]), "i64", True), scales, axes], base,
              "sizes [4,4,4] has 3 values but there are 2 axes"),
        error("scales_count", i, v11, [x4, T(np.array([2.0]), "f32", True), axes],
              dict(base, shape_calculation_mode="scales"), "scales has 1 values but there are 2 axes"),
        error("axis_range", i, v4, [x4, sizes, scales, T(np.array([2, 4]), "i64", True)], base,
              "axes 4 is out of range for rank 4"),
        error("repeated_axes", i, v11, [x4, sizes, T(np.array([3, 3]), "i64", True)], base, "name axis 3 twice"),
        error("v11_integer_scales", i, v11, [x4, sizes, axes], dict(base, shape_calculation_mode="scales"),
              "scales (input 1) must have a floating-point type"),
        error("v4_float_sizes", i, v4, [x4, scales, scales, axes], base, "sizes (input 1) must have an integer type"),
        error("bad_coordinate_mode", i, v4, [x4, sizes, scales, axes],
              dict(base, coordinate_transformation_mode="corners"),
              "attribute 'coordinate_transformation_mode' has unsupported value 'corners'"),
        error("bad_nearest_mode", i, v11, [x4, sizes, axes], dict(base, nearest_mode="nearest"),
              "attribute 'nearest_mode' has unsupported value"),
        error("pads_too_long", i, v4, [x4, sizes, scales, axes], dict(base, pads_begin="0,0,0,0,1"),
              "has more values than the data rank"),
        error("missing_shape_calculation_mode", i, v11, [x4, sizes, axes], {"mode": "nearest"},
              "missing attribute 'shape_calculation_mode'"),
        error("negative_scale", i, v11, [x4, T(np.array([2.0, -1.0]), "f32", True), axes],
              dict(base, shape_calculation_mode="scales"), "scales must be positive"),
        error("sizes_rank", i, v4, [x4, T(np.array([[4, 4]]), "i64", True), scales, axes], base,
              "sizes (input 1) must have rank 1"),
    ]
    return write("interpolate", cases)


# ---------------------------------------------------------------------------------------------
# TopK-1, TopK-3, TopK-11. Equal values keep their index order (stable), and sort=none returns
# the same order as sort=value (the specification leaves it open).


def gen_topk():
    cases = []

    def topk(name, version, shape, k, axis, mode, sort, et="f32", index_type=None, ties=False, k_type="i64",
             stable=None):
        if ties:
            x = rand(shape, "i32", 0, 3).astype(NP_TYPES[et])
        else:
            n = int(np.prod(shape))
            perm = rng.permutation(n).reshape(shape)
            x = (perm * 0.5 - n * 0.2).astype(NP_TYPES[et]) if et in FLOATS else \
                (perm + (0 if et == "u8" else -(n // 2))).astype(NP_TYPES[et])
        a = axis % len(shape)
        xm = np.moveaxis(x, a, -1)
        keys = xm.astype(np.float64)
        order = np.argsort(-keys if mode == "max" else keys, axis=-1, kind="stable")[..., :k]
        if sort == "index":
            order = np.sort(order, axis=-1)
        values = np.moveaxis(np.take_along_axis(xm, order, -1), -1, a)
        indices = np.moveaxis(order, -1, a)
        attrs = {"axis": str(axis), "mode": mode, "sort": sort}
        if index_type:
            attrs["index_element_type"] = index_type
        if stable is not None:
            attrs["stable"] = "true" if stable else "false"
        cases.append(case(name, "TopK", version, [T(x, et), T(np.array(k), k_type, True)],
                          [T(values, et), T(indices, index_type or "i32")], attrs))

    topk("v1_max_value_axis1", "opset1", [3, 5], 2, 1, "max", "value")
    topk("v1_min_index_axis0", "opset1", [4, 3], 3, 0, "min", "index")
    topk("v1_sort_none_negative_axis", "opset1", [2, 6], 3, -1, "max", "none")
    topk("v1_ties_i32", "opset1", [2, 8], 4, 1, "max", "value", et="i32", ties=True)
    topk("v1_middle_axis_u8", "opset1", [2, 5, 3], 2, 1, "min", "value", et="u8")
    topk("v1_k_i32", "opset1", [6], 6, 0, "max", "value", k_type="i32")
    topk("v3_index_i64", "opset3", [3, 4], 2, 1, "max", "value", index_type="i64")
    topk("v3_axis_minus2", "opset3", [2, 4, 3], 3, -2, "min", "value")
    topk("v3_max_sort_index_f64", "opset3", [3, 6], 4, 1, "max", "index", et="f64")
    topk("v3_ties_min_i64", "opset3", [3, 7], 3, -1, "min", "index", et="i64", index_type="i64", ties=True)
    topk("v3_k_i8_i8_data", "opset3", [2, 5], 1, 1, "max", "value", et="i8", k_type="i8")
    topk("v11_stable_ties_max", "opset11", [2, 9], 5, 1, "max", "value", ties=True, stable=True)
    topk("v11_stable_ties_min_i32", "opset11", [3, 6], 4, 1, "min", "value", et="i32", ties=True, stable=True,
         index_type="i64")
    topk("v11_unstable_flag", "opset11", [4, 5], 2, 0, "max", "value", stable=False)
    topk("v11_sort_none", "opset11", [2, 3, 4], 2, 2, "min", "none")
    topk("v11_default_stable", "opset11", [5, 2], 5, 0, "max", "index")
    topk("v11_f16_widened", "opset11", [3, 4], 2, 1, "max", "value", et="f16")

    t = "TopK"
    k = lambda v, et="i64", const=True: T(np.array(v), et, const)  # noqa: E731
    base = {"axis": "1", "mode": "max", "sort": "value"}
    cases += [
        error("k_exceeds_axis", t, "opset1", [Z([2, 3]), k(4)], base, "k = 4 exceeds the size 3 of axis 1"),
        error("k_negative", t, "opset3", [Z([2, 3]), k(-1)], base, "k must be non-negative"),
        error("axis_range", t, "opset11", [Z([2, 3]), k(1)], dict(base, axis="2"), "out of range for rank 2"),
        error("bad_mode", t, "opset1", [Z([2, 3]), k(1)], dict(base, mode="largest"),
              "attribute 'mode' has unsupported value 'largest'"),
        error("bad_sort", t, "opset3", [Z([2, 3]), k(1)], dict(base, sort="ascending"),
              "attribute 'sort' has unsupported value"),
        error("bad_index_type", t, "opset3", [Z([2, 3]), k(1)], dict(base, index_element_type="f32"),
              "attribute 'index_element_type' must be i32 or i64"),
        error("k_not_scalar", t, "opset11", [Z([2, 3]), k([1, 2])], base, "k must be a scalar"),
        error("k_float", t, "opset1", [Z([2, 3]), k(1, "f32")], base, "k (input 1) must have an integer type"),
        error("missing_axis", t, "opset11", [Z([2, 3]), k(1)], {"mode": "max", "sort": "value"},
              "missing attribute 'axis'"),
        error("scalar_data", t, "opset3", [Z([]), k(1)], base, "must have rank at least 1"),
        error("bad_stable", t, "opset11", [Z([2, 3]), k(1)], dict(base, stable="maybe"),
              "attribute 'stable' has value 'maybe'"),
    ]
    return write("topk", cases)


# Col2Im-15


def col2im_ref(x, image, kernel, strides, dilations, pads_begin, pads_end):
    batched = x.ndim == 3
    xb = x if batched else x[None]
    n, rows, count = xb.shape
    channels = rows // (kernel[0] * kernel[1])
    blocks_w = (image[1] + pads_begin[1] + pads_end[1] - (dilations[1] * (kernel[1] - 1) + 1)) // strides[1] + 1
    y = np.zeros([n, channels] + list(image))
    for b, row, l in itertools.product(range(n), range(rows), range(count)):
        c, kh, kw = row // (kernel[0] * kernel[1]), row // kernel[1] % kernel[0], row % kernel[1]
        iy = l // blocks_w * strides[0] - pads_begin[0] + kh * dilations[0]
        ix = l % blocks_w * strides[1] - pads_begin[1] + kw * dilations[1]
        if 0 <= iy < image[0] and 0 <= ix < image[1]:
            y[b, c, iy, ix] += float(xb[b, row, l])
    return y if batched else y[0]


def gen_col2im():
    cases = []

    def col2im(name, batch, channels, image, kernel, strides=(1, 1), dilations=(1, 1), pads_begin=(0, 0),
               pads_end=(0, 0), et="f32"):
        blocks = 1
        for i in range(2):
            blocks *= (image[i] + pads_begin[i] + pads_end[i] - (dilations[i] * (kernel[i] - 1) + 1)) // strides[i] + 1
        shape = ([batch] if batch else []) + [channels * kernel[0] * kernel[1], blocks]
        x = rand(shape, et)
        y = col2im_ref(x, image, kernel, strides, dilations, pads_begin, pads_end)
        attrs = {"strides": csv(strides), "dilations": csv(dilations), "pads_begin": csv(pads_begin),
                 "pads_end": csv(pads_end)}
        cases.append(case(name, "Col2Im", "opset15",
                          [T(x, et), T(np.array(image), "i64", const=True), T(np.array(kernel), "i64", const=True)],
                          [T(cast(y, et), et)], attrs, atol=1e-5))

    col2im("col2im_blocks_apart", 2, 3, [4, 6], [2, 2], strides=(2, 2))  # MobileViT's unfolding: no overlap
    col2im("col2im_overlapping", 1, 2, [5, 4], [3, 2])
    col2im("col2im_strided_dilated_padded", 2, 1, [7, 6], [2, 3], strides=(2, 1), dilations=(2, 1), pads_begin=(1, 0),
           pads_end=(0, 2))
    col2im("col2im_unbatched_f64", 0, 2, [3, 3], [2, 2], et="f64")
    p = {"strides": "1,1", "dilations": "1,1", "pads_begin": "0,0", "pads_end": "0,0"}
    k = T(np.array([2, 2]), "i64", const=True)
    cases += [
        error("col2im_rows_not_a_kernel_multiple", "Col2Im", "opset15", [Z([1, 6, 4]), T(np.array([3, 3]), "i64", const=True), k],
              p, "not a multiple of the kernel's 4 elements"),
        error("col2im_wrong_block_count", "Col2Im", "opset15", [Z([1, 8, 5]), T(np.array([3, 3]), "i64", const=True), k],
              p, "data holds 5 blocks, but the image 3x3"),
        error("col2im_output_size_not_2d", "Col2Im", "opset15", [Z([1, 8, 4]), T(np.array([3, 3, 3]), "i64", const=True), k],
              p, "output_size must hold 2 values"),
        error("col2im_kernel_area_past_64_bits", "Col2Im", "opset15",
              [Z([1, 16, 1]), T(np.array([2**32, 2**32]), "i64", const=True), T(np.array([2**32, 2**32]), "i64", const=True)],
              p, "kernel_size 4294967296x4294967296 does not fit in 64 bits"),
        error("col2im_zero_kernel", "Col2Im", "opset15",
              [Z([1, 8, 4]), T(np.array([3, 3]), "i64", const=True), T(np.array([0, 2]), "i64", const=True)], p,
              "kernel_size must be positive"),
    ]
    return write("col2im", cases)


if __name__ == "__main__":
    total = 0
    for gen in (gen_convolution, gen_matmul, gen_pooling, gen_softmax, gen_normalization, gen_interpolate,
                gen_topk, gen_col2im):
        total += gen()
    print(f"wrote {total} nn op cases to {OUT_DIR}")
