#!/usr/bin/env python3
"""Generates the op cases of ScaledDotProductAttention-13 (tests/ops/cases/nn_attention.json) with numpy only.

Values follow the specification's pseudo-code: scores = query @ key^T * scale + bias, where bias is
the float mask, 0 / -inf for a boolean mask, or -inf above the diagonal (numpy.triu, k=1) when causal
(the mask input then ignored); softmax over the last axis; then @ value. Batch axes broadcast across
all inputs, the mask's included. A row with every key masked is NaN, as the pseudo-code gives and
OpenVINO's CPU plugin returns. Covered: 3 to 5 inputs, default and given scale (scalar and [1]),
float and boolean masks of several broadcast shapes and a scalar one, causal with L = S, L < S and
L > S, f32 / f64 / f16, large scores; shape and type errors as OpenVINO's shape inference has them.
Run: python3 tests/ops/gen_attention.py  (deterministic: fixed seed).
"""
import numpy as np

import opcase

rng = np.random.default_rng(1313)
T = opcase.tensor
OP, VERSION = "ScaledDotProductAttention", "opset13"
NP = opcase.NP_TYPES


def rand(shape, et="f32", scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(NP[et])


def attention(q, k, v, mask=None, scale=None, causal=False):
    """The pseudo-code of the specification in float64."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    L, E, S = q.shape[-2], q.shape[-1], k.shape[-2]
    scale = 1.0 / np.sqrt(E) if scale is None else float(np.asarray(scale, np.float64).reshape(-1)[0])
    bias = np.zeros((L, S))
    if causal:
        bias = np.triu(np.full((L, S), -np.inf), k=1)
    elif mask is not None:
        bias = np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else bias + mask.astype(np.float64)
    scores = q @ np.swapaxes(k, -1, -2) * scale + bias
    with np.errstate(invalid="ignore"):  # an all -inf row: -inf - -inf is NaN, as intended
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)) @ v


def case(name, q, k, v, mask=None, scale=None, causal=False, et="f32", **tol):
    inputs = [T(q, et), T(k, et), T(v, et)]
    if mask is not None:
        inputs.append(T(mask, "boolean" if mask.dtype == np.bool_ else et))
    if scale is not None:
        inputs.append(T(scale, et, const=True))
    y = attention(q, k, v, mask, scale, causal)
    attrs = {"causal": "true" if causal else "false"}
    return opcase.case(name, OP, VERSION, inputs, [T(y, et)], attrs, **tol)


def error(name, shapes, text, types=None, attrs=None):
    types = types or ["f32"] * len(shapes)
    inputs = [T(np.zeros(s), t) for s, t in zip(shapes, types)]
    return opcase.case(name, OP, VERSION, inputs, attrs={"causal": "false"} if attrs is None else attrs,
                       error=text, always_attrs=True)


def qkv(batch, L, S, E, Ev, et="f32", q_batch=None, kv_batch=None, scale=1.0):
    qb = batch if q_batch is None else q_batch
    kb = batch if kv_batch is None else kv_batch
    return (rand(qb + [L, E], et, scale), rand(kb + [S, E], et), rand(kb + [S, Ev], et))


def gen():
    cases = []
    add = cases.append

    # No mask, default scale 1/sqrt(E).
    add(case("rank3_no_mask", *qkv([2], 3, 5, 4, 3)))
    add(case("rank4_no_mask_f64", *qkv([2, 2], 4, 4, 8, 2, "f64"), et="f64"))
    add(case("rank5_no_mask", *qkv([1, 2, 2], 2, 3, 4, 5)))
    add(case("single_key", *qkv([1, 2], 3, 1, 4, 2)))

    # Float masks, added to the scaled scores: full, per-key row (as BERT-style models make), and
    # broadcast along the batch axes.
    q, k, v = qkv([2, 3], 4, 5, 8, 6)
    add(case("float_mask_full", q, k, v, rand([2, 3, 4, 5], scale=2.0)))
    mask = np.zeros([2, 1, 1, 5], np.float32)
    mask[0, ..., 3:] = -10000.0
    mask[1, ..., 4:] = np.finfo(np.float32).min
    add(case("float_mask_key_padding", q, k, v, mask))
    add(case("float_mask_rank2", q, k, v, rand([4, 5])))
    add(case("float_mask_row_broadcast", q, k, v, rand([3, 1, 5])))
    add(case("float_mask_column_broadcast", q, k, v, rand([4, 1])))
    add(case("float_mask_scalar_zero", q, k, v, np.array(0.0, np.float32)))
    add(case("float_mask_f64_scale", *qkv([2], 3, 4, 6, 2, "f64"), rand([3, 4], "f64"), np.array(0.3), et="f64"))

    # Boolean masks: false is masked out (-inf).
    q, k, v = qkv([2, 2], 3, 6, 4, 4)
    bmask = rng.random([2, 1, 3, 6]) > 0.4
    bmask[..., 0] = True  # every row keeps a key, so no NaN here
    add(case("bool_mask", q, k, v, bmask))
    add(case("bool_mask_rank2_scale", q, k, v, bmask[0, 0], np.array(0.125, np.float32)))
    add(case("bool_mask_scalar_true", q, k, v, np.array(True)))

    # Given scale, scalar or one element; 0 gives uniform weights.
    q, k, v = qkv([3], 2, 4, 5, 3)
    add(case("scale_scalar", q, k, v, np.zeros([2, 4], np.float32), np.array(2.5, np.float32)))
    add(case("scale_one_element", q, k, v, np.zeros([2, 4], np.float32), np.array([0.5], np.float32)))
    add(case("scale_zero_uniform", q, k, v, np.zeros([2, 4], np.float32), np.array(0.0, np.float32)))

    # Causal: the upper triangle (key index > query index) is masked, aligned top-left; any mask
    # input is ignored, even one whose shape would not broadcast.
    add(case("causal_square", *qkv([2, 2], 4, 4, 4, 3), causal=True))
    add(case("causal_fewer_queries", *qkv([1, 2], 2, 5, 4, 3), causal=True))
    add(case("causal_more_queries", *qkv([2], 5, 3, 4, 2), causal=True))
    q, k, v = qkv([1, 2], 3, 3, 4, 2)
    add(case("causal_ignores_mask", q, k, v, np.full([3, 3], -1e4, np.float32), causal=True))
    add(case("causal_ignores_bad_mask", q, k, v, rand([7]), np.array(0.2, np.float32), causal=True))

    # Batch axes broadcast across query, key, value and the mask; the mask may add leading axes.
    add(case("broadcast_query_batch", *qkv(None, 3, 4, 4, 2, q_batch=[2, 3], kv_batch=[1, 3])))
    add(case("broadcast_kv_batch", *qkv(None, 3, 4, 4, 2, q_batch=[1, 2], kv_batch=[3, 1])))
    q, k, v = rand([2, 1, 3, 4]), rand([1, 2, 5, 4]), rand([2, 5, 3])
    add(case("broadcast_mixed_ranks", q, k, v))
    add(case("broadcast_mask_adds_axis", *qkv([2, 1], 3, 4, 4, 2), rand([3, 2, 3, 3, 4])))

    # A row with every key masked has no defined weights: NaN, per the specification.
    q, k, v = qkv([1, 2], 3, 4, 4, 3)
    bmask = np.ones([3, 4], bool)
    bmask[1] = False
    add(case("bool_mask_all_masked_row", q, k, v, bmask))
    fmask = np.zeros([1, 1, 3, 4], np.float32)
    fmask[..., 2, :] = -np.inf
    add(case("float_mask_all_masked_row", q, k, v, fmask))

    # Scores large enough to overflow exp() without the max subtracted.
    add(case("large_scores", *qkv([2], 3, 4, 8, 2, scale=300.0), np.zeros([3, 4], np.float32),
             np.array(1.0, np.float32)))
    add(case("f16", *qkv([2], 3, 4, 8, 4, "f16"), rand([3, 4], "f16"), et="f16", rtol=2e-3, atol=2e-3))

    # Errors.
    add(error("error_e_mismatch", [[2, 3, 4], [2, 5, 6], [2, 5, 3]], "must have the same last axis E"))
    add(error("error_s_mismatch", [[2, 3, 4], [2, 5, 4], [2, 6, 3]], "must have the same sequence axis S"))
    add(error("error_mask_bad_shape", [[2, 3, 4], [2, 5, 4], [2, 5, 3], [3, 6]], "does not broadcast to"))
    add(error("error_mask_bad_query_axis", [[2, 3, 4], [2, 5, 4], [2, 5, 3], [2, 5]], "does not broadcast to"))
    add(error("error_mask_rank1", [[2, 3, 4], [2, 5, 4], [2, 5, 3], [5]], "scalar or have rank at least 2"))
    add(error("error_mask_bad_batch", [[2, 3, 4], [2, 5, 4], [2, 5, 3], [3, 3, 5]],
              "batch axes of attention_mask"))
    add(error("error_mask_integer", [[2, 3, 4], [2, 5, 4], [2, 5, 3], [3, 5]], "must be boolean or have query's type",
              ["f32", "f32", "f32", "i32"]))
    add(error("error_mask_other_float", [[2, 3, 4], [2, 5, 4], [2, 5, 3], [3, 5]],
              "must be boolean or have query's type", ["f32", "f32", "f32", "f64"]))
    add(error("error_key_batch", [[2, 3, 4], [3, 5, 4], [3, 5, 3]], "batch axes of key"))
    add(error("error_value_batch", [[2, 3, 4], [2, 5, 4], [3, 5, 3]], "batch axes of value"))
    add(error("error_mixed_types", [[2, 3, 4], [2, 5, 4], [2, 5, 3]], "must have the same element type",
              ["f32", "f64", "f32"]))
    add(error("error_integer_query", [[2, 3, 4], [2, 5, 4], [2, 5, 3]], "must have a floating-point type",
              ["i32", "i32", "i32"]))
    add(error("error_query_rank2", [[3, 4], [5, 4], [5, 3]], "query (input 0) must have rank at least 3"))
    add(error("error_scale_two_elements", [[2, 3, 4], [2, 5, 4], [2, 5, 3], [3, 5], [2]],
              "must be a scalar or hold one element"))
    add(error("error_scale_type", [[2, 3, 4], [2, 5, 4], [2, 5, 3], [3, 5], []], "must have the same element type",
              ["f32", "f32", "f32", "f32", "f64"]))
    add(error("error_missing_causal", [[2, 3, 4], [2, 5, 4], [2, 5, 3]], "missing attribute 'causal'", attrs={}))
    return cases


if __name__ == "__main__":
    opcase.write("nn", "attention", gen())
