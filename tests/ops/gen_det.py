#!/usr/bin/env python3
"""Generates tests/ops/cases/nn_det.json: op cases for Det (version "mosaic1", Mosaic's op for ONNX's Det).
Expected values come from numpy.linalg.det.

Run: python3 tests/ops/gen_det.py
"""
import numpy as np

import opcase
from opcase import case, tensor

RNG = np.random.default_rng(20240811)


def det_case(name, shape, et="f32", matrices=None, rtol=1e-5, atol=1e-5):
    x = matrices if matrices is not None else RNG.standard_normal(shape)
    x = np.asarray(x).astype(opcase.NP_TYPES[et])
    expected = np.linalg.det(x.astype(np.float64))
    return case(name, "Det", "mosaic1", [tensor(x, et)], [tensor(expected, et)], rtol=rtol, atol=atol)


def error_case(name, shape, et, error):
    return case(name, "Det", "mosaic1", [tensor(np.zeros(shape), et)], error=error)


def gen():
    singular = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]]
    needs_pivot = [[0.0, 1.0, 2.0], [3.0, 0.0, 1.0], [1.0, 2.0, 0.0]]
    return [
        det_case("det_2x2", [2, 2]),
        det_case("det_batch_3x3", [2, 3, 3, 3]),
        det_case("det_1x1", [4, 1, 1]),
        det_case("det_5x5_f64", [5, 5], "f64", rtol=1e-12, atol=1e-12),
        det_case("det_f16", [2, 2, 2], "f16", rtol=1e-3, atol=1e-3),
        det_case("det_singular", None, matrices=singular),
        det_case("det_zero_first_pivot", None, matrices=needs_pivot),
        det_case("det_empty_batch", [0, 3, 3]),
        error_case("det_error_not_square", [2, 3], "f32", "must hold square matrices"),
        error_case("det_error_rank", [3], "f32", "data"),
        error_case("det_error_integer", [2, 2], "i32", "data"),
    ]


if __name__ == "__main__":
    opcase.write("nn", "det", gen())
