#!/usr/bin/env python3
"""Generates the op cases of the elementwise group (tests/ops/cases/elementwise_*.json) with numpy.

Covers binary arithmetic, comparison and logical ops (numpy and none broadcasting), unary math,
activations, Convert / ConvertLike / Select and the reductions, for f32 plus integer, f64 and
boolean types where the op allows them, and error cases for bad inputs and attributes.
Run: python3 tests/ops/gen_elementwise.py  (numpy only; the output is deterministic).
"""
import math
import os

import numpy as np

import opcase
from opcase import NP_TYPES, OUT_DIR, case, tensor

rng = np.random.default_rng(20240601)


def uniform(shape, lo, hi, et="f32"):
    return rng.uniform(lo, hi, size=shape).astype(NP_TYPES[et])


def ints(shape, lo, hi, et="i32"):
    return rng.integers(lo, hi, size=shape, endpoint=True).astype(NP_TYPES[et])


def write(name, cases):
    return opcase.write("elementwise", name, cases)


# ---------------------------------------------------------------- binary arithmetic

def trunc_div(a, b):
    q = np.abs(a.astype(np.int64)) // np.abs(b.astype(np.int64))
    return (q * np.sign(a.astype(np.int64)) * np.sign(b.astype(np.int64))).astype(a.dtype)


ARITH = {
    "Add": lambda a, b: a + b,
    "Subtract": lambda a, b: a - b,
    "Multiply": lambda a, b: a * b,
    "Divide": lambda a, b: (np.floor_divide(a, b) if a.dtype.kind in "iu" else a / b),
    "Power": lambda a, b: np.power(a, b),
    "Maximum": np.maximum,
    "Minimum": np.minimum,
    "SquaredDifference": lambda a, b: (a - b) * (a - b),
    "FloorMod": np.mod,
    "Mod": np.fmod,
}


def arith_operands(op, shape_a, shape_b, et):
    if et in ("f32", "f64"):
        if op == "Power":
            return uniform(shape_a, 0.5, 3.0, et), uniform(shape_b, -2.0, 2.0, et)
        a = uniform(shape_a, -5, 5, et)
        b = (uniform(shape_b, 0.5, 4, et) * np.where(rng.random(shape_b) < 0.5, -1, 1)).astype(NP_TYPES[et])
        return a, b
    if op == "Power":
        return ints(shape_a, -4, 4, et), ints(shape_b, 0, 4, et)
    lo = 0 if et[0] == "u" else -20
    a = ints(shape_a, lo, 20, et)
    b = ints(shape_b, 1, 7, et)
    if et[0] != "u":
        b = (b * np.where(rng.random(shape_b) < 0.5, -1, 1)).astype(NP_TYPES[et])
    return a, b


def gen_binary():
    cases = []
    for op, fn in ARITH.items():
        for et, sa, sb, mode in [("f32", [2, 3, 4], [3, 1], None), ("f32", [2, 3], [2, 3], "none"),
                                 ("i32", [2, 1, 3], [4, 1], None), ("f64", [4], [], None), ("i64", [3, 2], [2], "numpy")]:
            a, b = arith_operands(op, sa, sb, et)
            with np.errstate(all="ignore"):
                out = fn(a, b).astype(NP_TYPES[et])
            attrs = {"auto_broadcast": mode} if mode else None
            name = f"{op}_{et}_{'x'.join(map(str, sa))}_{'x'.join(map(str, sb)) or 'scalar'}" + (f"_{mode}" if mode else "")
            cases.append(case(name, op, "opset1", [tensor(a, et), tensor(b, et)], [tensor(out, et)], attrs))
        cases.append(case(f"{op}_error_shapes", op, "opset1",
                          [tensor(np.zeros([2, 3]), "f32"), tensor(np.zeros([4]), "f32")],
                          error="cannot be broadcast together"))
        cases.append(case(f"{op}_error_none_shapes", op, "opset1",
                          [tensor(np.zeros([2, 3]), "f32"), tensor(np.zeros([3]), "f32")],
                          attrs={"auto_broadcast": "none"}, error="auto_broadcast=none requires equal input shapes"))
        cases.append(case(f"{op}_error_types", op, "opset1",
                          [tensor(np.zeros([2]), "f32"), tensor(np.zeros([2]), "i32")],
                          error="must have the same element type"))
        cases.append(case(f"{op}_error_boolean", op, "opset1",
                          [tensor(np.zeros([2]), "boolean"), tensor(np.zeros([2]), "boolean")],
                          error="must have a numeric element type"))

    # Integer wraparound and unsigned types.
    a = np.array([250, 10, 128, 255], np.uint8)
    b = np.array([10, 250, 128, 1], np.uint8)
    cases.append(case("Add_u8_wraps", "Add", "opset1", [tensor(a, "u8"), tensor(b, "u8")], [tensor(a + b, "u8")]))
    cases.append(case("Subtract_u8_wraps", "Subtract", "opset1", [tensor(a, "u8"), tensor(b, "u8")], [tensor(a - b, "u8")]))
    cases.append(case("Multiply_i8_wraps", "Multiply", "opset1",
                      [tensor([100, -100, 12, 7], "i8"), tensor([3, 3, -11, 5], "i8")],
                      [tensor(np.array([100, -100, 12, 7], np.int8) * np.array([3, 3, -11, 5], np.int8), "i8")]))

    # Divide: floor (python) versus truncating division for integers; floats ignore the flag.
    a = np.array([7, -7, 7, -7, 6, -6, 0, 9], np.int32)
    b = np.array([2, 2, -2, -2, 3, -4, 5, -1], np.int32)
    cases.append(case("Divide_i32_pythondiv_default", "Divide", "opset1", [tensor(a, "i32"), tensor(b, "i32")],
                      [tensor(np.floor_divide(a, b), "i32")]))
    cases.append(case("Divide_i32_pythondiv_true", "Divide", "opset1", [tensor(a, "i32"), tensor(b, "i32")],
                      [tensor(np.floor_divide(a, b), "i32")], attrs={"m_pythondiv": "true"}))
    cases.append(case("Divide_i32_pythondiv_false", "Divide", "opset1", [tensor(a, "i32"), tensor(b, "i32")],
                      [tensor(trunc_div(a, b), "i32")], attrs={"m_pythondiv": "false"}))
    cases.append(case("Divide_i64_pythondivision_false_broadcast", "Divide", "opset1",
                      [tensor(a.reshape(2, 4), "i64"), tensor([3], "i64")],
                      [tensor(trunc_div(a.reshape(2, 4).astype(np.int64), np.array([3], np.int64)), "i64")],
                      attrs={"pythondivision": "false"}))
    cases.append(case("Divide_u8", "Divide", "opset1", [tensor([200, 7, 9], "u8"), tensor([3, 2, 10], "u8")],
                      [tensor([66, 3, 0], "u8")]))
    fa, fb = np.array([7, -7, 1], np.float32), np.array([2, 2, 3], np.float32)
    cases.append(case("Divide_f32_pythondiv_ignored", "Divide", "opset1", [tensor(fa, "f32"), tensor(fb, "f32")],
                      [tensor(fa / fb, "f32")], attrs={"m_pythondiv": "true"}))
    cases.append(case("Divide_error_bad_pythondiv", "Divide", "opset1",
                      [tensor([1], "i32"), tensor([1], "i32")], attrs={"m_pythondiv": "maybe"},
                      error="m_pythondiv"))
    cases.append(case("Add_error_pdpd", "Add", "opset1", [tensor([1], "f32"), tensor([1], "f32")],
                      attrs={"auto_broadcast": "pdpd"}, error="auto_broadcast=pdpd is not supported"))
    cases.append(case("Add_error_bad_auto_broadcast", "Add", "opset1", [tensor([1], "f32"), tensor([1], "f32")],
                      attrs={"auto_broadcast": "sideways"}, error="attribute 'auto_broadcast' has value 'sideways'"))
    cases.append(case("Add_explicit_alias_of_none", "Add", "opset1", [tensor([1, 2], "f32"), tensor([3, 4], "f32")],
                      [tensor([4, 6], "f32")], attrs={"auto_broadcast": "explicit"}))

    # FloorMod / Mod sign rules for integers and floats.
    a = np.array([7, -7, 7, -7, 0, 5], np.int32)
    b = np.array([3, 3, -3, -3, 2, 5], np.int32)
    cases.append(case("FloorMod_i32_signs", "FloorMod", "opset1", [tensor(a, "i32"), tensor(b, "i32")],
                      [tensor(np.mod(a, b), "i32")]))
    cases.append(case("Mod_i32_signs", "Mod", "opset1", [tensor(a, "i32"), tensor(b, "i32")],
                      [tensor(np.fmod(a, b), "i32")]))
    fa = np.array([5.5, -5.5, 5.5, -5.5, 1.0], np.float32)
    fb = np.array([2.0, 2.0, -2.0, -2.0, 0.25], np.float32)
    cases.append(case("FloorMod_f32_signs", "FloorMod", "opset1", [tensor(fa, "f32"), tensor(fb, "f32")],
                      [tensor(np.mod(fa, fb), "f32")]))
    cases.append(case("Mod_f32_signs", "Mod", "opset1", [tensor(fa, "f32"), tensor(fb, "f32")],
                      [tensor(np.fmod(fa, fb), "f32")]))
    # Integer Power with negative bases.
    pa = np.array([-3, -2, 2, 5, 0, 1], np.int32)
    pb = np.array([3, 2, 10, 0, 3, 7], np.int32)
    cases.append(case("Power_i32_negative_base", "Power", "opset1", [tensor(pa, "i32"), tensor(pb, "i32")],
                      [tensor(np.power(pa, pb), "i32")]))
    cases.append(case("Maximum_u16", "Maximum", "opset1", [tensor([1, 60000, 7], "u16"), tensor([2], "u16")],
                      [tensor([2, 60000, 7], "u16")]))
    return write("binary", cases)


# ---------------------------------------------------------------- comparison and logical

COMPARE = {"Equal": np.equal, "NotEqual": np.not_equal, "Less": np.less, "LessEqual": np.less_equal,
           "Greater": np.greater, "GreaterEqual": np.greater_equal}
LOGICAL = {"LogicalAnd": np.logical_and, "LogicalOr": np.logical_or, "LogicalXor": np.logical_xor}


def gen_compare():
    cases = []
    for op, fn in COMPARE.items():
        a = ints([2, 3, 4], -2, 2).astype(np.float32)
        b = ints([3, 1], -2, 2).astype(np.float32)
        cases.append(case(f"{op}_f32_broadcast", op, "opset1", [tensor(a, "f32"), tensor(b, "f32")],
                          [tensor(fn(a, b), "boolean")]))
        a, b = ints([2, 3], -3, 3), ints([2, 3], -3, 3)
        cases.append(case(f"{op}_i32_none", op, "opset1", [tensor(a, "i32"), tensor(b, "i32")],
                          [tensor(fn(a, b), "boolean")], attrs={"auto_broadcast": "none"}))
        a, b = ints([4], 0, 3, "u8"), ints([], 0, 3, "u8")
        cases.append(case(f"{op}_u8_scalar", op, "opset1", [tensor(a, "u8"), tensor(b, "u8")],
                          [tensor(fn(a, b), "boolean")]))
        a, b = ints([3], -5, 5, "i64"), ints([2, 1], -5, 5, "i64")
        cases.append(case(f"{op}_i64_broadcast", op, "opset1", [tensor(a, "i64"), tensor(b, "i64")],
                          [tensor(fn(a, b), "boolean")]))
        cases.append(case(f"{op}_error_types", op, "opset1", [tensor([1], "f32"), tensor([1], "i32")],
                          error="must have the same element type"))
        cases.append(case(f"{op}_error_shapes", op, "opset1", [tensor(np.zeros([2, 3]), "f32"),
                                                               tensor(np.zeros([2]), "f32")],
                          error="cannot be broadcast together"))
    ba = np.array([1, 0, 1, 0], bool)
    bb = np.array([1, 1, 0, 0], bool)
    cases.append(case("Equal_boolean", "Equal", "opset1", [tensor(ba, "boolean"), tensor(bb, "boolean")],
                      [tensor(ba == bb, "boolean")]))
    fa = np.array([1.0, float("nan"), 2.0], np.float32)
    fb = np.array([1.0, float("nan"), 3.0], np.float32)
    cases.append(case("NotEqual_f32_nan", "NotEqual", "opset1", [tensor(fa, "f32"), tensor(fb, "f32")],
                      [tensor(fa != fb, "boolean")]))

    for op, fn in LOGICAL.items():
        a = rng.random([2, 3, 4]) < 0.5
        b = rng.random([3, 1]) < 0.5
        cases.append(case(f"{op}_broadcast", op, "opset1", [tensor(a, "boolean"), tensor(b, "boolean")],
                          [tensor(fn(a, b), "boolean")]))
        cases.append(case(f"{op}_truth_table_none", op, "opset1", [tensor(ba, "boolean"), tensor(bb, "boolean")],
                          [tensor(fn(ba, bb), "boolean")], attrs={"auto_broadcast": "none"}))
        cases.append(case(f"{op}_error_not_boolean", op, "opset1", [tensor([1], "f32"), tensor([1], "f32")],
                          error="must have element type boolean"))
        cases.append(case(f"{op}_error_none_shapes", op, "opset1",
                          [tensor(np.zeros([2, 2]), "boolean"), tensor(np.zeros([2]), "boolean")],
                          attrs={"auto_broadcast": "none"}, error="auto_broadcast=none requires equal input shapes"))
    a = rng.random([2, 3]) < 0.5
    cases.append(case("LogicalNot_2x3", "LogicalNot", "opset1", [tensor(a, "boolean")],
                      [tensor(np.logical_not(a), "boolean")]))
    cases.append(case("LogicalNot_error_not_boolean", "LogicalNot", "opset1", [tensor([1], "i32")],
                      error="must have element type boolean"))

    # Bitwise ops (opset13) over integers and booleans; fixed data, so later cases keep theirs.
    # optimum-intel's decoders AND a causal mask with a padding mask (BitwiseAnd of booleans).
    ia = np.array([[0x0F0F, -1, 0, 12345], [7, -8, 255, 1 << 20]], np.int64)
    ib = np.array([0x00FF, 6, -1, 1 << 20], np.int64)
    for op, fn in {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or, "BitwiseXor": np.bitwise_xor}.items():
        for t in ("i32", "i64"):
            cases.append(case(f"{op}_{t}_broadcast", op, "opset13", [tensor(ia, t), tensor(ib, t)],
                              [tensor(fn(ia.astype(np.int32) if t == "i32" else ia, ib.astype(np.int32) if t == "i32" else ib), t)]))
        ua, ub = np.array([0b10101010, 0xFF, 0], np.uint8), np.array([0b11110000, 0x0F, 0xFF], np.uint8)
        cases.append(case(f"{op}_u8", op, "opset13", [tensor(ua, "u8"), tensor(ub, "u8")], [tensor(fn(ua, ub), "u8")]))
        cases.append(case(f"{op}_boolean", op, "opset13", [tensor(ba, "boolean"), tensor(bb, "boolean")],
                          [tensor(fn(ba, bb), "boolean")]))
        cases.append(case(f"{op}_error_float", op, "opset13", [tensor([1.0], "f32"), tensor([1.0], "f32")],
                          error="must have an integer or boolean element type"))
        cases.append(case(f"{op}_error_types", op, "opset13", [tensor([1], "i32"), tensor([1], "i64")],
                          error="element type"))
    cases.append(case("BitwiseNot_i8", "BitwiseNot", "opset13", [tensor([0, 1, -128, 127], "i8")],
                      [tensor(np.invert(np.array([0, 1, -128, 127], np.int8)), "i8")]))
    cases.append(case("BitwiseNot_u16", "BitwiseNot", "opset13", [tensor([0, 1, 65535], "u16")],
                      [tensor(np.invert(np.array([0, 1, 65535], np.uint16)), "u16")]))
    cases.append(case("BitwiseNot_boolean", "BitwiseNot", "opset13", [tensor(ba, "boolean")],
                      [tensor(np.logical_not(ba), "boolean")]))
    cases.append(case("BitwiseNot_error_float", "BitwiseNot", "opset13", [tensor([1.0], "f64")],
                      error="must have an integer or boolean element type"))
    return write("compare", cases)


# ---------------------------------------------------------------- unary math

def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def erf(x):
    return np.vectorize(math.erf)(x)


REAL = {  # op: (version(s), function, domain)
    "Exp": (["opset1"], np.exp, (-3, 3)),
    "Log": (["opset1"], np.log, (0.1, 5)),
    "Sqrt": (["opset1"], np.sqrt, (0, 10)),
    "Erf": (["opset1"], erf, (-3, 3)),
    "Sigmoid": (["opset1"], sigmoid, (-6, 6)),
    "Tanh": (["opset1"], np.tanh, (-3, 3)),
    "Sin": (["opset1"], np.sin, (-4, 4)),
    "Cos": (["opset1"], np.cos, (-4, 4)),
    "Tan": (["opset1"], np.tan, (-1.2, 1.2)),
    "Asin": (["opset1"], np.arcsin, (-0.99, 0.99)),
    "Acos": (["opset1"], np.arccos, (-0.99, 0.99)),
    "Atan": (["opset1"], np.arctan, (-5, 5)),
    "Sinh": (["opset1"], np.sinh, (-3, 3)),
    "Cosh": (["opset1"], np.cosh, (-3, 3)),
    "Asinh": (["opset3", "opset4"], np.arcsinh, (-5, 5)),
    "Acosh": (["opset3", "opset4"], np.arccosh, (1, 5)),
    "Atanh": (["opset3", "opset4"], np.arctanh, (-0.95, 0.95)),
}


def round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def gen_unary():
    cases = []
    for op, (versions, fn, (lo, hi)) in REAL.items():
        for version in versions:
            x = uniform([2, 3, 4], lo, hi)
            cases.append(case(f"{op}_{version}_f32", op, version, [tensor(x, "f32")],
                              [tensor(fn(x.astype(np.float64)), "f32")]))
        x = uniform([5], lo, hi, "f64")
        cases.append(case(f"{op}_f64", op, versions[0], [tensor(x, "f64")], [tensor(fn(x), "f64")],
                          rtol=1e-12, atol=1e-12))
        cases.append(case(f"{op}_error_boolean", op, versions[0], [tensor([1], "boolean")],
                          error="must have a numeric element type"))
    # Integer inputs: the real result is rounded to the nearest integer (spec examples).
    cases.append(case("Sqrt_i32_rounded", "Sqrt", "opset1", [tensor([4, 7, 9, 10], "i32")], [tensor([2, 3, 3, 3], "i32")]))
    xi = np.array([0, 1, 2, 3], np.int64)
    cases.append(case("Exp_i64_rounded", "Exp", "opset1", [tensor(xi, "i64")],
                      [tensor(np.round(np.exp(xi.astype(np.float64))), "i64")]))
    xi = np.array([-3, -1, 0, 1, 3], np.int32)
    cases.append(case("Tanh_i32_rounded", "Tanh", "opset1", [tensor(xi, "i32")],
                      [tensor(round_half_away(np.tanh(xi.astype(np.float64))), "i32")]))
    cases.append(case("Sigmoid_u8_rounded", "Sigmoid", "opset1", [tensor([0, 1, 5], "u8")], [tensor([1, 1, 1], "u8")]))

    x = uniform([2, 3, 4], -5, 5)
    x.flat[:4] = [0.0, -0.0, 2.0, -3.0]
    xi = ints([2, 5], -10, 10)
    for op, fn in {"Abs": np.abs, "Negative": np.negative, "Sign": np.sign, "Floor": np.floor,
                   "Ceiling": np.ceil}.items():
        cases.append(case(f"{op}_f32", op, "opset1", [tensor(x, "f32")], [tensor(fn(x), "f32")]))
        cases.append(case(f"{op}_i32", op, "opset1", [tensor(xi, "i32")], [tensor(fn(xi), "i32")]))
        cases.append(case(f"{op}_error_boolean", op, "opset1", [tensor([1], "boolean")],
                          error="must have a numeric element type"))
    cases.append(case("Abs_i8_min_wraps", "Abs", "opset1", [tensor([-128, -5, 5], "i8")], [tensor([-128, 5, 5], "i8")]))
    cases.append(case("Negative_i64", "Negative", "opset1", [tensor([-7, 0, 9], "i64")], [tensor([7, 0, -9], "i64")]))
    cases.append(case("Sign_u8", "Sign", "opset1", [tensor([0, 3, 200], "u8")], [tensor([0, 1, 1], "u8")]))
    cases.append(case("Abs_f64", "Abs", "opset1", [tensor([-1.5, 2.25], "f64")], [tensor([1.5, 2.25], "f64")]))

    # Round-5: spec example plus random halves.
    spec_in = np.array([-4.5, -1.9, -1.5, 0.5, 0.9, 1.5, 2.3, 2.5], np.float32)
    cases.append(case("Round_half_to_even_spec", "Round", "opset5", [tensor(spec_in, "f32")],
                      [tensor([-4.0, -2.0, -2.0, 0.0, 1.0, 2.0, 2.0, 2.0], "f32")], attrs={"mode": "half_to_even"}))
    cases.append(case("Round_half_away_from_zero_spec", "Round", "opset5", [tensor(spec_in, "f32")],
                      [tensor([-5.0, -2.0, -2.0, 1.0, 1.0, 2.0, 2.0, 3.0], "f32")],
                      attrs={"mode": "half_away_from_zero"}))
    xr = (ints([3, 4], -12, 12) / 2.0 + np.where(rng.random([3, 4]) < 0.3, 0.1, 0.0)).astype(np.float32)
    cases.append(case("Round_default_mode_is_half_to_even", "Round", "opset5", [tensor(xr, "f32")],
                      [tensor(np.round(xr), "f32")]))
    cases.append(case("Round_half_away_from_zero_f64", "Round", "opset5", [tensor(xr, "f64")],
                      [tensor(round_half_away(xr.astype(np.float64)), "f64")], attrs={"mode": "half_away_from_zero"}))
    cases.append(case("Round_i32_identity", "Round", "opset5", [tensor([-3, 0, 7], "i32")], [tensor([-3, 0, 7], "i32")],
                      attrs={"mode": "half_away_from_zero"}))
    cases.append(case("Round_error_bad_mode", "Round", "opset5", [tensor([1.5], "f32")], attrs={"mode": "half_up"},
                      error="attribute 'mode' has value 'half_up'"))
    return write("unary", cases)


# ---------------------------------------------------------------- activations

def softplus(x):
    return np.logaddexp(0.0, x)


def gelu_erf(x):
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def hsigmoid(x):
    return np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0


FLOAT_ACT = {  # op: (version, function)
    "HSwish": ("opset4", lambda x: x * hsigmoid(x)),
    "HSigmoid": ("opset5", hsigmoid),
    "Mish": ("opset4", lambda x: x * np.tanh(softplus(x))),
    "SoftPlus": ("opset4", softplus),
    "SoftSign": ("opset9", lambda x: x / (1.0 + np.abs(x))),
    "Gelu": ("opset2", gelu_erf),
}


def gen_activation():
    cases = []
    x = uniform([2, 3, 4], -6, 6)
    x64 = x.astype(np.float64)
    for op, (version, fn) in FLOAT_ACT.items():
        cases.append(case(f"{op}_f32", op, version, [tensor(x, "f32")], [tensor(fn(x64), "f32")]))
        cases.append(case(f"{op}_f64", op, version, [tensor(x[0], "f64")], [tensor(fn(x64[0]), "f64")],
                          rtol=1e-12, atol=1e-12))
        cases.append(case(f"{op}_error_integer", op, version, [tensor([1, 2], "i32")],
                          error="must have a floating-point element type"))
    big = np.array([-30.0, -20.0, 0.0, 20.0, 30.0, 80.0], np.float32)
    cases.append(case("SoftPlus_f32_large", "SoftPlus", "opset4", [tensor(big, "f32")],
                      [tensor(softplus(big.astype(np.float64)), "f32")]))

    # Gelu-7 approximation modes (IR writes them in either case).
    cases.append(case("Gelu7_default_erf", "Gelu", "opset7", [tensor(x, "f32")], [tensor(gelu_erf(x64), "f32")]))
    cases.append(case("Gelu7_erf", "Gelu", "opset7", [tensor(x, "f32")], [tensor(gelu_erf(x64), "f32")],
                      attrs={"approximation_mode": "erf"}))
    cases.append(case("Gelu7_tanh", "Gelu", "opset7", [tensor(x, "f32")], [tensor(gelu_tanh(x64), "f32")],
                      attrs={"approximation_mode": "tanh"}))
    cases.append(case("Gelu7_TANH_upper", "Gelu", "opset7", [tensor(x[0], "f64")], [tensor(gelu_tanh(x64[0]), "f64")],
                      attrs={"approximation_mode": "TANH"}, rtol=1e-12, atol=1e-12))
    cases.append(case("Gelu7_error_bad_mode", "Gelu", "opset7", [tensor([1.0], "f32")],
                      attrs={"approximation_mode": "sigmoid"}, error="attribute 'approximation_mode' has value"))

    # Relu and Clamp take integers too.
    xi = ints([3, 4], -10, 10)
    cases.append(case("Relu_f32", "Relu", "opset1", [tensor(x, "f32")], [tensor(np.maximum(x, 0), "f32")]))
    cases.append(case("Relu_i32", "Relu", "opset1", [tensor(xi, "i32")], [tensor(np.maximum(xi, 0), "i32")]))
    cases.append(case("Relu_error_boolean", "Relu", "opset1", [tensor([1], "boolean")],
                      error="must have a numeric element type"))
    cases.append(case("Clamp_f32", "Clamp", "opset1", [tensor(x, "f32")], [tensor(np.clip(x, -1.5, 2.5), "f32")],
                      attrs={"min": "-1.5", "max": "2.5"}))
    cases.append(case("Clamp_i32_bounds_rounded_inwards", "Clamp", "opset1", [tensor(xi, "i32")],
                      [tensor(np.clip(xi, -1, 2), "i32")], attrs={"min": "-1.5", "max": "2.5"}))
    cases.append(case("Clamp_u8_wide_bounds", "Clamp", "opset1", [tensor([0, 100, 255], "u8")],
                      [tensor([0, 100, 255], "u8")], attrs={"min": "-1000", "max": "1000"}))
    cases.append(case("Clamp_error_min_above_max", "Clamp", "opset1", [tensor([1.0], "f32")],
                      attrs={"min": "3", "max": "1"}, error="must not be greater than 'max'"))
    cases.append(case("Clamp_error_missing_max", "Clamp", "opset1", [tensor([1.0], "f32")],
                      attrs={"min": "3"}, error="missing attribute 'max'"))

    elu = np.where(x64 > 0, x64, 0.5 * (np.exp(x64) - 1.0))
    cases.append(case("Elu_f32", "Elu", "opset1", [tensor(x, "f32")], [tensor(elu, "f32")], attrs={"alpha": "0.5"}))
    cases.append(case("Elu_error_integer", "Elu", "opset1", [tensor([1], "i32")], attrs={"alpha": "1"},
                      error="must have a floating-point element type"))

    # Swish with and without beta.
    cases.append(case("Swish_default_beta", "Swish", "opset4", [tensor(x, "f32")], [tensor(x64 * sigmoid(x64), "f32")]))
    cases.append(case("Swish_beta_scalar", "Swish", "opset4", [tensor(x, "f32"), tensor(0.75, "f32", True)],
                      [tensor(x64 * sigmoid(0.75 * x64), "f32")]))
    cases.append(case("Swish_beta_1d_f64", "Swish", "opset4", [tensor(x[0], "f64"), tensor([2.0], "f64")],
                      [tensor(x64[0] * sigmoid(2.0 * x64[0]), "f64")], rtol=1e-12, atol=1e-12))
    cases.append(case("Swish_error_beta_shape", "Swish", "opset4", [tensor(x, "f32"), tensor([1.0, 2.0], "f32")],
                      error="must hold a single value"))
    cases.append(case("Swish_error_beta_type", "Swish", "opset4", [tensor(x, "f32"), tensor(1.0, "f64")],
                      error="must have the same element type"))

    # Selu and HardSigmoid take their parameters as inputs.
    alpha, lam = 1.6732632, 1.0507010
    selu = lam * np.where(x64 > 0, x64, alpha * (np.exp(x64) - 1.0))
    cases.append(case("Selu_f32", "Selu", "opset1",
                      [tensor(x, "f32"), tensor([alpha], "f32", True), tensor([lam], "f32", True)],
                      [tensor(selu, "f32")]))
    cases.append(case("Selu_error_alpha_shape", "Selu", "opset1",
                      [tensor(x, "f32"), tensor([1.0, 2.0], "f32"), tensor([lam], "f32")],
                      error="must hold a single value"))
    cases.append(case("Selu_error_integer", "Selu", "opset1",
                      [tensor([1], "i32"), tensor([1], "i32"), tensor([1], "i32")],
                      error="must have a floating-point element type"))
    hs = np.clip(0.2 * x64 + 0.5, 0.0, 1.0)
    cases.append(case("HardSigmoid_f32", "HardSigmoid", "opset1",
                      [tensor(x, "f32"), tensor(0.2, "f32", True), tensor(0.5, "f32", True)], [tensor(hs, "f32")]))
    cases.append(case("HardSigmoid_error_beta_type", "HardSigmoid", "opset1",
                      [tensor(x, "f32"), tensor(0.2, "f32"), tensor(0.5, "f64")],
                      error="must have the same element type"))

    # PRelu: per-channel slope (data dim 1), numpy slope, and a 1D data tensor.
    def prelu(d, s):
        return np.where(d < 0, d * s, d)
    d = uniform([2, 3, 2, 2], -3, 3)
    s = uniform([3], 0.05, 0.5)
    cases.append(case("PRelu_per_channel", "PRelu", "opset1", [tensor(d, "f32"), tensor(s, "f32")],
                      [tensor(prelu(d, s.reshape(3, 1, 1)), "f32")]))
    d3 = uniform([2, 3, 3], -3, 3)
    s3 = np.array([0.1, 0.2, 0.3], np.float32)
    cases.append(case("PRelu_per_channel_not_last_axis", "PRelu", "opset1", [tensor(d3, "f32"), tensor(s3, "f32")],
                      [tensor(prelu(d3, s3.reshape(3, 1)), "f32")]))
    d4 = uniform([2, 3, 4], -3, 3)
    s4 = uniform([4], 0.05, 0.5)
    cases.append(case("PRelu_numpy_last_axis", "PRelu", "opset1", [tensor(d4, "f32"), tensor(s4, "f32")],
                      [tensor(prelu(d4, s4), "f32")]))
    s5 = uniform([3, 1], 0.05, 0.5)
    cases.append(case("PRelu_numpy_2d_slope", "PRelu", "opset1", [tensor(d4, "f32"), tensor(s5, "f32")],
                      [tensor(prelu(d4, s5), "f32")]))
    d1 = uniform([6], -3, 3)
    cases.append(case("PRelu_1d_data", "PRelu", "opset1", [tensor(d1, "f32"), tensor([0.25], "f32")],
                      [tensor(prelu(d1, 0.25), "f32")]))
    cases.append(case("PRelu_f64", "PRelu", "opset1", [tensor(d1, "f64"), tensor([0.25], "f64")],
                      [tensor(prelu(d1.astype(np.float64), 0.25), "f64")]))
    cases.append(case("PRelu_i32", "PRelu", "opset1", [tensor([-4, 3, -1], "i32"), tensor([2], "i32")],
                      [tensor([-8, 3, -2], "i32")]))
    cases.append(case("PRelu_error_slope_shape", "PRelu", "opset1", [tensor(np.zeros([2, 3]), "f32"),
                                                                     tensor(np.zeros([5]), "f32")],
                      error="cannot be broadcast together"))
    cases.append(case("PRelu_error_slope_grows_output", "PRelu", "opset1", [tensor(np.zeros([3]), "f32"),
                                                                            tensor(np.zeros([2, 3]), "f32")],
                      error="does not broadcast to data shape"))
    cases.append(case("PRelu_error_types", "PRelu", "opset1", [tensor([1.0], "f32"), tensor([1.0], "f64")],
                      error="must have the same element type"))
    return write("activation", cases)


# ---------------------------------------------------------------- Convert, ConvertLike, Select

def gen_convert():
    cases = []

    def conv(name, src, src_t, dst_t, expected, like=False):
        if like:
            cases.append(case(name, "ConvertLike", "opset1", [tensor(src, src_t), tensor([0], dst_t)],
                              [tensor(expected, dst_t)]))
        else:
            cases.append(case(name, "Convert", "opset1", [tensor(src, src_t)], [tensor(expected, dst_t)],
                              attrs={"destination_type": dst_t}))

    # Float to integer truncates toward zero and saturates out-of-range values; NaN becomes 0.
    f = [300.7, -300.2, 1.9, -1.9, 0.0, 127.99, -128.5, 42.5]
    conv("f32_to_i8_truncate_saturate", f, "f32", "i8", [127, -128, 1, -1, 0, 127, -128, 42])
    conv("f32_to_u8_saturate", [-5.5, 255.9, 256.1, 3.7, -0.9], "f32", "u8", [0, 255, 255, 3, 0])
    conv("f64_to_i32_saturate", [1e10, -1e10, 2.5, -2.5], "f64", "i32", [2147483647, -2147483648, 2, -2])
    conv("f32_to_i32_nan", ["nan", 7.9, -7.9], "f32", "i32", [0, 7, -7])
    conv("f32_to_i64", [1e6 + 0.5, -3.99], "f32", "i64", [1000000, -3])
    conv("f32_to_u16", [65535.4, 70000, -1, 12.9], "f32", "u16", [65535, 65535, 0, 12])
    # Integer to integer wraps modulo 2^N.
    conv("i32_to_u8_wraps", [300, -1, 255, 0], "i32", "u8", [44, 255, 255, 0])
    conv("i32_to_i8_wraps", [200, -200, 127], "i32", "i8", [-56, 56, 127])
    conv("i64_to_u32_wraps", [-1, 4294967296 + 5, 7], "i64", "u32", [4294967295, 5, 7])
    conv("u8_to_i32", [0, 200, 255], "u8", "i32", [0, 200, 255])
    conv("i8_to_i64", [-128, 5, 127], "i8", "i64", [-128, 5, 127])
    # To and from boolean.
    conv("f32_to_boolean", [0.0, -0.0, 0.1, "nan", -3.0], "f32", "boolean", [0, 0, 1, 1, 1])
    conv("i32_to_boolean", [0, 5, -1], "i32", "boolean", [0, 1, 1])
    # An attention mask cast to bool; 2^40 is true although its low 32 bits are zero.
    conv("i64_to_boolean", [0, 1, 1 << 40, -1], "i64", "boolean", [0, 1, 1, 1])
    conv("u8_to_boolean", [0, 2, 255], "u8", "boolean", [0, 1, 1])
    conv("boolean_to_u8", [1, 0], "boolean", "u8", [1, 0])
    conv("u8_to_i64", [0, 200, 255], "u8", "i64", [0, 200, 255])
    conv("i64_to_u8_wraps", [256 + 7, -1, 9], "i64", "u8", [7, 255, 9])
    conv("boolean_to_f32", [1, 0, 1], "boolean", "f32", [1.0, 0.0, 1.0])
    conv("boolean_to_i64", [0, 1], "boolean", "i64", [0, 1])
    conv("boolean_to_boolean", [0, 1], "boolean", "boolean", [0, 1])
    # To floating point.
    xi = ints([2, 3], -1000, 1000)
    conv("i32_to_f32", xi, "i32", "f32", xi.astype(np.float32))
    xf = uniform([2, 3], -10, 10, "f64")
    conv("f64_to_f32", xf, "f64", "f32", xf.astype(np.float32))
    conv("f32_to_f64", xf.astype(np.float32), "f32", "f64", xf.astype(np.float32).astype(np.float64))
    conv("f32_to_f16", [0.5, 1.25, 3.0, -2.0, 1024.0], "f32", "f16", [0.5, 1.25, 3.0, -2.0, 1024.0])
    conv("i32_to_f16", [1, -7, 100], "i32", "f16", [1.0, -7.0, 100.0])
    conv("u64_to_f64", [0, 12345678901], "u64", "f64", [0.0, 12345678901.0])
    conv("f32_to_f32_identity", [1.5, -2.5], "f32", "f32", [1.5, -2.5])
    cases.append(case("Convert_IR_v10_type_name", "Convert", "opset1", [tensor([1.9, -1.9], "f32")],
                      [tensor([1, -1], "i32")], attrs={"destination_type": "I32"}))
    cases.append(case("Convert_error_unknown_type", "Convert", "opset1", [tensor([1.0], "f32")],
                      attrs={"destination_type": "f7"}, error="unknown element type 'f7'"))
    cases.append(case("Convert_error_missing_type", "Convert", "opset1", [tensor([1.0], "f32")],
                      error="unknown element type ''"))

    # ConvertLike takes the destination type from input 1.
    conv("like_f32_to_i32", [2.7, -2.7, 1e12], "f32", "i32", [2, -2, 2147483647], like=True)
    conv("like_i64_to_f32", [3, -4], "i64", "f32", [3.0, -4.0], like=True)
    conv("like_u8_to_boolean", [0, 9], "u8", "boolean", [0, 1], like=True)
    xs = uniform([2, 3, 2], -4, 4)
    cases.append(case("like_f32_to_f64_3d", "ConvertLike", "opset1", [tensor(xs, "f32"), tensor(np.zeros([5]), "f64")],
                      [tensor(xs.astype(np.float64), "f64")]))

    # Select: condition and both branches broadcast together.
    c = np.array([[True], [False]])
    t = uniform([2, 3], -5, 5)
    e = uniform([3], -5, 5)
    cases.append(case("Select_f32_numpy", "Select", "opset1", [tensor(c, "boolean"), tensor(t, "f32"), tensor(e, "f32")],
                      [tensor(np.where(c, t, e), "f32")]))
    c3 = rng.random([3, 1, 4]) < 0.5
    ti, ei = ints([2, 1], -9, 9), ints([], -9, 9)
    cases.append(case("Select_i32_condition_widens_output", "Select", "opset1",
                      [tensor(c3, "boolean"), tensor(ti, "i32"), tensor(ei, "i32")],
                      [tensor(np.where(c3, ti, ei), "i32")]))
    cn = rng.random([2, 3]) < 0.5
    tn, en = uniform([2, 3], -1, 1, "f64"), uniform([2, 3], -1, 1, "f64")
    cases.append(case("Select_f64_none", "Select", "opset1", [tensor(cn, "boolean"), tensor(tn, "f64"), tensor(en, "f64")],
                      [tensor(np.where(cn, tn, en), "f64")], attrs={"auto_broadcast": "none"}))
    bt, be = rng.random([2, 3]) < 0.5, rng.random([2, 3]) < 0.5
    cases.append(case("Select_boolean_branches", "Select", "opset1",
                      [tensor(cn, "boolean"), tensor(bt, "boolean"), tensor(be, "boolean")],
                      [tensor(np.where(cn, bt, be), "boolean")]))
    cases.append(case("Select_u8", "Select", "opset1",
                      [tensor([1, 0, 1], "boolean"), tensor([1, 2, 3], "u8"), tensor([250], "u8")],
                      [tensor([1, 250, 3], "u8")]))
    cases.append(case("Select_error_condition_type", "Select", "opset1",
                      [tensor([1], "i32"), tensor([1.0], "f32"), tensor([2.0], "f32")],
                      error="must have element type boolean"))
    cases.append(case("Select_error_branch_types", "Select", "opset1",
                      [tensor([1], "boolean"), tensor([1.0], "f32"), tensor([2], "i32")],
                      error="must have the same element type"))
    cases.append(case("Select_error_shapes", "Select", "opset1",
                      [tensor(np.ones([2]), "boolean"), tensor(np.ones([3]), "f32"), tensor(np.ones([3]), "f32")],
                      error="cannot be broadcast together"))
    cases.append(case("Select_error_none_shapes", "Select", "opset1",
                      [tensor(np.ones([3]), "boolean"), tensor(np.ones([3]), "f32"), tensor(np.ones([1]), "f32")],
                      attrs={"auto_broadcast": "none"}, error="auto_broadcast=none requires equal input shapes"))
    # FakeQuantize: OpenVINO's formula in double, half-to-even rounding; bounds per tensor and per
    # channel, 8-bit and 4-bit levels, reversed output bounds.
    def fake_quantize(x, il, ih, ol, oh, levels):
        x, il, ih, ol, oh = (np.asarray(a, np.float64) for a in (x, il, ih, ol, oh))
        q = np.rint((x - il) / (ih - il) * (levels - 1)) / (levels - 1) * (oh - ol) + ol
        return np.where(x <= np.minimum(il, ih), ol, np.where(x > np.maximum(il, ih), oh, q))

    def fq_case(name, x, bounds, levels):
        ins = [tensor(x, "f32")] + [tensor(np.asarray(b, np.float32), "f32") for b in bounds]
        want = fake_quantize(x, *[np.asarray(b, np.float32) for b in bounds], levels).astype(np.float32)
        cases.append(case(name, "FakeQuantize", "opset1", ins, [tensor(want, "f32")], attrs={"levels": str(levels)}))

    # Its own generator: the groups after this one keep their values.
    xf = np.random.default_rng(33).uniform(-3, 3, [2, 3, 4]).astype(np.float32)
    fq_case("FakeQuantize_f32_per_tensor_256", xf, [[-2.0], [2.0], [-2.0], [2.0]], 256)
    per_channel = [np.array(v, np.float32).reshape(1, 3, 1) for v in ([-1, -2, 0], [1, 2.5, 3], [0, 0, 0], [255, 255, 255])]
    fq_case("FakeQuantize_f32_per_channel_to_u8_grid", xf, per_channel, 256)
    fq_case("FakeQuantize_f32_16_levels_reversed_output", xf, [[-1.5], [1.5], [1.0], [-1.0]], 16)
    cases.append(case("FakeQuantize_error_levels", "FakeQuantize", "opset1",
                      [tensor([1.0], "f32")] + [tensor([0.0], "f32")] * 2 + [tensor([1.0], "f32")] * 2,
                      attrs={"levels": "1"}, error="'levels' must be at least 2"))
    cases.append(case("FakeQuantize_error_bound_type", "FakeQuantize", "opset1",
                      [tensor([1.0], "f32"), tensor([0.0], "f64"), tensor([1.0], "f32"), tensor([0.0], "f32"),
                       tensor([1.0], "f32")], attrs={"levels": "256"}, error="must have the same element type"))
    return write("convert", cases)


# ---------------------------------------------------------------- reductions

def trunc_mean(x, axis, keepdims):
    s = np.sum(x.astype(np.int64), axis=axis, keepdims=keepdims)
    n = x.size // max(s.size, 1)
    return (np.sign(s) * (np.abs(s) // n)).astype(x.dtype)


REDUCE = {  # op: (version, float function, integer function or None)
    "ReduceSum": ("opset1", np.sum, np.sum),
    "ReduceMean": ("opset1", np.mean, trunc_mean),
    "ReduceMax": ("opset1", np.max, np.max),
    "ReduceMin": ("opset1", np.min, np.min),
    "ReduceProd": ("opset1", np.prod, np.prod),
    "ReduceL1": ("opset4", lambda x, axis, keepdims: np.sum(np.abs(x), axis=axis, keepdims=keepdims),
                 lambda x, axis, keepdims: np.sum(np.abs(x), axis=axis, keepdims=keepdims)),
    "ReduceL2": ("opset4", lambda x, axis, keepdims: np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims)),
                 lambda x, axis, keepdims: np.round(np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=axis,
                                                                       keepdims=keepdims)))),
}

AXES_VARIANTS = [  # name, axes, axes type, keep_dims, axes shape override
    ("axis1", [1], "i64", None),
    ("axes0_2_keep", [0, 2], "i64", "true"),
    ("neg_axis_keep", [-1], "i32", "true"),
    ("neg_axes_nokeep", [-3, -2], "i32", "false"),
    ("all_axes", [0, 1, 2], "i64", "false"),
    ("empty_axes", [], "i64", "false"),
    ("scalar_axis", 1, "i64", "true"),
]


def gen_reduction():
    cases = []
    x = uniform([2, 3, 4], -3, 3)
    xp = uniform([2, 3, 4], 0.7, 1.3)
    xi = ints([2, 3, 4], -9, 9)
    for op, (version, ffn, ifn) in REDUCE.items():
        for vname, axes, axes_t, keep in AXES_VARIANTS:
            keep_b = keep == "true"
            axis = axes % 3 if isinstance(axes, int) else tuple(a % 3 for a in axes)
            data = xp if op == "ReduceProd" else x
            attrs = {"keep_dims": keep} if keep else None
            # Empty axes reduce nothing: each element is its own reduction (the identity for
            # all but ReduceL1 / ReduceL2, which give |x| as OpenVINO's implementation does).
            out = ffn(data.astype(np.float64), axis=axis, keepdims=keep_b)
            cases.append(case(f"{op}_f32_{vname}", op, version,
                              [tensor(data, "f32"), tensor(np.array(axes), axes_t, True)],
                              [tensor(out, "f32")], attrs))
        # Integer data.
        di = ints([2, 3, 4], -2, 2) if op == "ReduceProd" else xi
        cases.append(case(f"{op}_i32_axes_1_2", op, version,
                          [tensor(di, "i32"), tensor([1, 2], "i64", True)],
                          [tensor(ifn(di, axis=(1, 2), keepdims=False), "i32")]))
        cases.append(case(f"{op}_f64_axis0_keep", op, version,
                          [tensor(x, "f64"), tensor([0], "i32", True)],
                          [tensor(ffn(x.astype(np.float64), axis=(0,), keepdims=True), "f64")],
                          {"keep_dims": "true"}, rtol=1e-12, atol=1e-12))
        # Errors.
        cases.append(case(f"{op}_error_duplicate_axes", op, version,
                          [tensor(x, "f32"), tensor([1, -2], "i64", True)], error="more than once"))
        cases.append(case(f"{op}_error_axis_out_of_range", op, version,
                          [tensor(x, "f32"), tensor([3], "i64", True)], error="out of range for rank 3"))
        cases.append(case(f"{op}_error_axes_not_constant", op, version,
                          [tensor(x, "f32"), tensor([1], "i64")], error="must be a constant"))
        cases.append(case(f"{op}_error_axes_rank", op, version,
                          [tensor(x, "f32"), tensor([[1]], "i64", True)], error="must be a scalar or 1D tensor"))
        cases.append(case(f"{op}_error_axes_type", op, version,
                          [tensor(x, "f32"), tensor([1.0], "f32", True)], error="must have an integer element type"))
        cases.append(case(f"{op}_error_boolean_data", op, version,
                          [tensor(np.ones([2]), "boolean"), tensor([0], "i64", True)],
                          error="must have a numeric element type"))
    cases.append(case("ReduceSum_u8_wraps", "ReduceSum", "opset1", [tensor([200, 100, 1], "u8"), tensor([0], "i64", True)],
                      [tensor(np.uint8(45), "u8")]))
    cases.append(case("ReduceMax_i64_negative", "ReduceMax", "opset1",
                      [tensor([[-5, -9], [-7, -1]], "i64"), tensor([1], "i64", True)], [tensor([-5, -1], "i64")]))

    for op, fn in {"ReduceLogicalAnd": np.all, "ReduceLogicalOr": np.any}.items():
        b = rng.random([2, 3, 4]) < (0.8 if op == "ReduceLogicalAnd" else 0.2)
        for vname, axes, axes_t, keep in AXES_VARIANTS:
            keep_b = keep == "true"
            axis = axes % 3 if isinstance(axes, int) else tuple(a % 3 for a in axes)
            out = fn(b, axis=axis, keepdims=keep_b)
            attrs = {"keep_dims": keep} if keep else None
            cases.append(case(f"{op}_{vname}", op, "opset1",
                              [tensor(b, "boolean"), tensor(np.array(axes), axes_t, True)],
                              [tensor(out, "boolean")], attrs))
        cases.append(case(f"{op}_error_not_boolean", op, "opset1",
                          [tensor(x, "f32"), tensor([0], "i64", True)], error="must have element type boolean"))
        cases.append(case(f"{op}_error_duplicate_axes", op, "opset1",
                          [tensor(b, "boolean"), tensor([0, 0], "i64", True)], error="more than once"))
    return write("reduction", cases)


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    total = sum(gen() for gen in (gen_binary, gen_compare, gen_unary, gen_activation, gen_convert, gen_reduction))
    print(f"total: {total} cases")


if __name__ == "__main__":
    main()
