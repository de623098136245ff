#!/usr/bin/env python3
"""Generates the op cases of the recurrent sequence ops (tests/ops/cases/nn_recurrent.json) with numpy only.

Ops: LSTMSequence-5, GRUSequence-5, RNNSequence-5 (OpenVINO opset5 layouts: X [batch, seq, input], states
[batch, num_directions, hidden], Y [batch, num_directions, seq, hidden]; gate orders f,i,c,o and z,r,h).
Covered: forward, reverse and bidirectional directions, sequence_lengths shorter than seq_length (zeros in Y
past a length, Ho/Co from the last valid step, reverse running from length-1 down), clip, GRU's
linear_before_reset, non-default activations with ONNX-style alpha/beta lists, f64, i32 lengths, and shape
errors. The reference here steps all batch items together with masks, unlike the kernel, which runs one
batch item at a time.
Run: python3 tests/ops/gen_recurrent.py  (deterministic: fixed seed).
"""
import numpy as np

import opcase
from opcase import NP_TYPES

rng = np.random.default_rng(5150)
T = opcase.tensor


def Z(shape, et="f32", const=False):
    return T(np.zeros(shape), et, const)


# ---------------------------------------------------------------------------------------------
# Activations: (function of x, alpha, beta; whether it consumes an alpha; a beta; ONNX defaults)

ACTIVATIONS = {
    "sigmoid": (lambda x, a, b: 1.0 / (1.0 + np.exp(-x)), False, False, 0.0, 0.0),
    "tanh": (lambda x, a, b: np.tanh(x), False, False, 0.0, 0.0),
    "relu": (lambda x, a, b: np.maximum(x, 0.0), False, False, 0.0, 0.0),
    "affine": (lambda x, a, b: a * x + b, True, True, 1.0, 0.0),
    "leakyrelu": (lambda x, a, b: np.where(x >= 0, x, a * x), True, False, 0.01, 0.0),
    "thresholdedrelu": (lambda x, a, b: np.where(x > a, x, 0.0), True, False, 1.0, 0.0),
    "scaledtanh": (lambda x, a, b: a * np.tanh(b * x), True, True, 1.0, 1.0),
    "hardsigmoid": (lambda x, a, b: np.clip(a * x + b, 0.0, 1.0), True, True, 0.2, 0.5),
    "elu": (lambda x, a, b: np.where(x >= 0, x, a * (np.exp(x) - 1.0)), True, False, 1.0, 0.0),
    "softsign": (lambda x, a, b: x / (1.0 + np.abs(x)), False, False, 0.0, 0.0),
    "softplus": (lambda x, a, b: np.log1p(np.exp(x)), False, False, 0.0, 0.0),
}


def activations(names, alphas, betas):
    """Callables for `names`; alpha and beta values are taken in order by the functions that use them."""
    alphas, betas = list(alphas), list(betas)
    out = []
    for name in names.split(","):
        fn, uses_a, uses_b, a, b = ACTIVATIONS[name.strip().lower()]
        if uses_a and alphas:
            a = alphas.pop(0)
        if uses_b and betas:
            b = betas.pop(0)
        out.append(lambda x, fn=fn, a=a, b=b: fn(x, a, b))
    return out


# ---------------------------------------------------------------------------------------------
# Cells on a whole batch: x [batch, input], h / c [batch, hidden], w, r, b of one direction


def clipper(clip):
    return (lambda g: np.clip(g, -clip, clip)) if clip > 0 else (lambda g: g)


def lstm_cell(x, h, c, w, r, b, acts, clip, lbr):
    f_, g_, h_ = acts
    cl = clipper(clip)
    gates = cl(x @ w.T + h @ r.T + b)
    f, i, cand, o = np.split(gates, 4, axis=1)
    c_new = f_(f) * c + f_(i) * g_(cand)
    return h_(c_new) * f_(o), c_new


def gru_cell(x, h, c, w, r, b, acts, clip, lbr):
    f_, g_ = acts
    cl = clipper(clip)
    hidden = h.shape[1]
    wz, wr, wh = np.split(w, 3, axis=0)
    rz, rr, rh = np.split(r, 3, axis=0)
    z = f_(cl(x @ wz.T + h @ rz.T + b[:hidden]))
    rg = f_(cl(x @ wr.T + h @ rr.T + b[hidden:2 * hidden]))
    if lbr:
        cand = g_(cl(x @ wh.T + rg * (h @ rh.T + b[3 * hidden:]) + b[2 * hidden:3 * hidden]))
    else:
        cand = g_(cl(x @ wh.T + (rg * h) @ rh.T + b[2 * hidden:]))
    return (1.0 - z) * cand + z * h, c


def rnn_cell(x, h, c, w, r, b, acts, clip, lbr):
    return acts[0](clipper(clip)(x @ w.T + h @ r.T + b)), c


def run_sequence(cell, x, h0, c0, lengths, w, r, b, direction, acts, clip, lbr):
    """Y [batch, nd, seq, hidden], Ho, Co. At step s a batch item reads time s (forward) or length-1-s
    (reverse) while s < its length; past it the state holds and Y keeps zeros."""
    batch, seq, _ = x.shape
    nd = w.shape[0]
    hidden = h0.shape[2]
    y = np.zeros((batch, nd, seq, hidden))
    ho, co = np.zeros_like(h0), np.zeros_like(c0)
    for d in range(nd):
        reverse = direction == "reverse" or d == 1
        h, c = h0[:, d].copy(), c0[:, d].copy()
        for s in range(seq):
            active = s < lengths
            t = np.where(active, lengths - 1 - s if reverse else s, 0)
            xt = x[np.arange(batch), t]
            h_new, c_new = cell(xt, h, c, w[d], r[d], b[d], acts, clip, lbr)
            h = np.where(active[:, None], h_new, h)
            c = np.where(active[:, None], c_new, c)
            for bi in np.nonzero(active)[0]:
                y[bi, d, t[bi]] = h[bi]
        ho[:, d], co[:, d] = h, c
    return y, ho, co


# ---------------------------------------------------------------------------------------------
# Cases

OPS = {
    # op: (cell, gates, has cell state, default activations)
    "LSTMSequence": (lstm_cell, 4, True, "sigmoid,tanh,tanh"),
    "GRUSequence": (gru_cell, 3, False, "sigmoid,tanh"),
    "RNNSequence": (rnn_cell, 1, False, "tanh"),
}


def attrs_of(hidden, direction, acts=None, alpha="", beta="", clip="0", lbr=None):
    a = {"hidden_size": str(hidden), "direction": direction, "activations_alpha": alpha,
         "activations_beta": beta, "clip": clip}
    if acts is not None:
        a["activations"] = acts
    if lbr is not None:
        a["linear_before_reset"] = "true" if lbr else "false"
    return a


def seq_case(name, op, batch, seq, inp, hidden, direction, lengths=None, clip=0.0, acts=None, alpha=(),
             beta=(), lbr=False, et="f32", len_type="i64", scale=1.0, const_weights=True):
    cell, gates, has_c, default_acts = OPS[op]
    nd = 2 if direction == "bidirectional" else 1
    bias_rows = (gates + (1 if lbr else 0)) * hidden
    nt = NP_TYPES[et]

    def rand(*shape):
        return (rng.uniform(-1.0, 1.0, size=shape) * scale).astype(nt)

    x, h0, c0 = rand(batch, seq, inp), rand(batch, nd, hidden), rand(batch, nd, hidden)
    w, r, b = rand(nd, gates * hidden, inp), rand(nd, gates * hidden, hidden), rand(nd, bias_rows)
    lengths = np.array(lengths if lengths is not None else [seq] * batch, dtype=np.int64)
    fns = activations(acts or default_acts, alpha, beta)
    f64 = lambda a: a.astype(np.float64)  # noqa: E731
    y, ho, co = run_sequence(cell, f64(x), f64(h0), f64(c0), lengths, f64(w), f64(r), f64(b), direction, fns,
                             clip, lbr)

    inputs = [T(x, et), T(h0, et)] + ([T(c0, et)] if has_c else [])
    inputs += [T(lengths, len_type, const_weights), T(w, et, const_weights), T(r, et, const_weights),
               T(b, et, const_weights)]
    outputs = [T(y, et), T(ho, et)] + ([T(co, et)] if has_c else [])
    attrs = attrs_of(hidden, direction, acts, ",".join(map(str, alpha)), ",".join(map(str, beta)),
                     repr(float(clip)) if clip else "0", lbr if op == "GRUSequence" else None)
    return opcase.case(name, op, "opset5", inputs, outputs, attrs, rtol=1e-5, atol=1e-6)


def error_case(name, op, shapes, attrs, text, types=None):
    """shapes: the input shapes in order; the lengths input (third for GRU/RNN, fourth for LSTM) is i64."""
    lengths_at = 3 if op == "LSTMSequence" else 2
    types = types or {}
    inputs = [Z(s, types.get(i, "i64" if i == lengths_at else "f32")) for i, s in enumerate(shapes)]
    return opcase.case(name, op, "opset5", inputs, attrs=attrs, error=text)


def gen_lstm():
    op = "LSTMSequence"
    cases = [
        seq_case("lstm_forward", op, 2, 3, 4, 3, "forward"),
        seq_case("lstm_reverse", op, 2, 4, 3, 2, "reverse", const_weights=False),
        seq_case("lstm_bidirectional", op, 3, 3, 2, 4, "bidirectional"),
        seq_case("lstm_lengths_forward", op, 3, 4, 3, 2, "forward", lengths=[4, 2, 0]),
        seq_case("lstm_lengths_reverse", op, 3, 5, 2, 3, "reverse", lengths=[3, 5, 1], len_type="i32"),
        seq_case("lstm_lengths_bidirectional", op, 2, 4, 3, 2, "bidirectional", lengths=[2, 4]),
        seq_case("lstm_clip", op, 2, 3, 3, 2, "forward", clip=0.7, scale=3.0),
        seq_case("lstm_clip_bidirectional", op, 2, 3, 3, 2, "bidirectional", clip=1.5, scale=2.5, lengths=[1, 3]),
        seq_case("lstm_activations", op, 2, 3, 2, 3, "forward", acts="hardsigmoid,leakyrelu,softsign",
                 alpha=(0.3, 0.05), beta=(0.4,)),
        seq_case("lstm_activations_relu_default_alpha", op, 1, 3, 2, 2, "reverse", acts="sigmoid,relu,elu"),
        seq_case("lstm_f64", op, 2, 3, 3, 2, "bidirectional", et="f64", lengths=[3, 2]),
        seq_case("lstm_one_step", op, 1, 1, 1, 1, "forward"),
    ]
    h4 = {"hidden_size": "3", "direction": "forward"}
    good = [[2, 5, 4], [2, 1, 3], [2, 1, 3], [2], [1, 12, 4], [1, 12, 3], [1, 12]]
    with_ = lambda i, s: [s if j == i else g for j, g in enumerate(good)]  # noqa: E731
    cases += [
        error_case("lstm_error_w_shape", op, with_(4, [1, 12, 5]), h4, "W (input 4) has shape [1,12,5], expected "
                   "[1,12,4] = [num_directions, 4*hidden_size, input_size]"),
        error_case("lstm_error_hidden_size_mismatch", op, good, dict(h4, hidden_size="4"),
                   "initial_hidden_state (input 1) has shape [2,1,3], expected [2,1,4]"),
        error_case("lstm_error_r_shape", op, with_(5, [1, 12, 4]), h4, "R (input 5) has shape [1,12,4]"),
        error_case("lstm_error_b_shape", op, with_(6, [1, 9]), h4, "B (input 6) has shape [1,9]"),
        error_case("lstm_error_batch_mismatch", op, with_(2, [3, 1, 3]), h4,
                   "initial_cell_state (input 2) has shape [3,1,3], expected [2,1,3]"),
        error_case("lstm_error_directions", op, good, dict(h4, direction="bidirectional"),
                   "initial_hidden_state (input 1) has shape [2,1,3], expected [2,2,3]"),
        error_case("lstm_error_bad_direction", op, good, dict(h4, direction="sideways"),
                   "attribute 'direction' has unsupported value 'sideways'"),
        error_case("lstm_error_activation_name", op, good, dict(h4, activations="sigmoid,tanh,swish"),
                   "names unsupported function 'swish'"),
        error_case("lstm_error_activation_count", op, good, dict(h4, activations="sigmoid,tanh"),
                   "names 2 functions, expected 3"),
        error_case("lstm_error_lengths_float", op, good, h4, "sequence_lengths (input 3) must have an integer type",
                   types={3: "f32"}),
        error_case("lstm_error_x_rank", op, with_(0, [2, 5]), h4, "X (input 0) must have rank 3"),
        error_case("lstm_error_missing_hidden_size", op, good, {"direction": "forward"},
                   "missing attribute 'hidden_size'"),
        error_case("lstm_error_negative_clip", op, good, dict(h4, clip="-1"), "attribute 'clip' must be 0"),
        error_case("lstm_error_mixed_types", op, good, h4, "must have the same element type", types={5: "f64"}),
        opcase.case("lstm_error_length_past_seq", op, "opset5",
                     [Z(s) for s in good[:3]] + [T(np.array([5, 6]), "i64", True)] + [Z(s) for s in good[4:]],
                     attrs=h4, error="sequence_lengths[1] = 6 is outside [0, 5], the seq_length of X"),
    ]
    return cases


def gen_gru():
    op = "GRUSequence"
    cases = [
        seq_case("gru_forward", op, 2, 3, 4, 3, "forward"),
        seq_case("gru_reverse", op, 2, 4, 3, 2, "reverse"),
        seq_case("gru_bidirectional", op, 2, 3, 2, 3, "bidirectional", const_weights=False),
        seq_case("gru_lengths_reverse", op, 3, 4, 2, 2, "reverse", lengths=[1, 4, 0]),
        seq_case("gru_linear_before_reset", op, 2, 3, 3, 2, "forward", lbr=True),
        seq_case("gru_linear_before_reset_bidirectional_lengths", op, 3, 4, 2, 3, "bidirectional", lbr=True,
                 lengths=[4, 2, 3], len_type="i32"),
        seq_case("gru_clip", op, 2, 3, 3, 2, "reverse", clip=0.5, scale=3.0, lbr=True),
        seq_case("gru_activations", op, 2, 3, 2, 2, "forward", acts="hardsigmoid,scaledtanh", alpha=(0.25, 1.5),
                 beta=(0.45, 0.8)),
        seq_case("gru_f64", op, 2, 3, 3, 2, "bidirectional", et="f64", lengths=[2, 3]),
    ]
    h = {"hidden_size": "2", "direction": "forward"}
    good = [[2, 3, 4], [2, 1, 2], [2], [1, 6, 4], [1, 6, 2], [1, 6]]
    with_ = lambda i, s: [s if j == i else g for j, g in enumerate(good)]  # noqa: E731
    cases += [
        error_case("gru_error_w_shape", op, with_(3, [1, 8, 4]), h,
                   "W (input 3) has shape [1,8,4], expected [1,6,4] = [num_directions, 3*hidden_size, input_size]"),
        error_case("gru_error_hidden_size_mismatch", op, good, dict(h, hidden_size="3"),
                   "initial_hidden_state (input 1) has shape [2,1,2], expected [2,1,3]"),
        error_case("gru_error_lbr_bias", op, good, dict(h, linear_before_reset="true"),
                   "B (input 5) has shape [1,6], expected [1,8] = [num_directions, 4*hidden_size] "
                   "(linear_before_reset)"),
        error_case("gru_error_lengths_batch", op, with_(2, [3]), h, "sequence_lengths (input 2) has shape [3]"),
        error_case("gru_error_bad_lbr", op, good, dict(h, linear_before_reset="maybe"),
                   "attribute 'linear_before_reset' has value 'maybe'"),
    ]
    return cases


def gen_rnn():
    op = "RNNSequence"
    cases = [
        seq_case("rnn_forward", op, 2, 3, 4, 3, "forward"),
        seq_case("rnn_reverse_lengths", op, 3, 4, 2, 2, "reverse", lengths=[2, 0, 4]),
        seq_case("rnn_bidirectional_lengths", op, 2, 5, 3, 2, "bidirectional", lengths=[5, 3]),
        seq_case("rnn_clip", op, 2, 3, 3, 2, "forward", clip=0.4, scale=2.0),
        seq_case("rnn_relu", op, 2, 3, 2, 3, "reverse", acts="relu"),
        seq_case("rnn_affine", op, 1, 3, 2, 2, "forward", acts="affine", alpha=(0.5,), beta=(0.1,), scale=0.5),
        seq_case("rnn_softplus", op, 2, 2, 2, 2, "forward", acts="softplus", scale=0.5),
        seq_case("rnn_thresholdedrelu_capitalised", op, 2, 3, 2, 2, "forward", acts="ThresholdedRelu",
                 alpha=(0.1,)),
        seq_case("rnn_f64", op, 2, 3, 2, 2, "bidirectional", et="f64"),
    ]
    h = {"hidden_size": "2", "direction": "forward"}
    good = [[2, 3, 4], [2, 1, 2], [2], [1, 2, 4], [1, 2, 2], [1, 2]]
    with_ = lambda i, s: [s if j == i else g for j, g in enumerate(good)]  # noqa: E731
    cases += [
        error_case("rnn_error_w_shape", op, with_(3, [1, 2, 3]), h,
                   "W (input 3) has shape [1,2,3], expected [1,2,4] = [num_directions, hidden_size, input_size]"),
        error_case("rnn_error_hidden_size_mismatch", op, good, dict(h, hidden_size="5"),
                   "initial_hidden_state (input 1) has shape [2,1,2], expected [2,1,5]"),
        error_case("rnn_error_w_directions", op, with_(3, [2, 2, 4]), h, "W (input 3) has shape [2,2,4]"),
        error_case("rnn_error_activation_count", op, good, dict(h, activations="tanh,tanh"),
                   "names 2 functions, expected 1"),
    ]
    return cases


if __name__ == "__main__":
    opcase.write("nn", "recurrent", gen_lstm() + gen_gru() + gen_rnn())
