#!/usr/bin/env python3
"""Writes the .npy fixtures of tests/cli/npy_test.cpp with NumPy itself, so the reader is tested
against real NumPy output (run from this folder: python3 gen_npy_fixtures.py)."""
import numpy as np

np.save("f32_2x3.npy", (np.arange(6, dtype="<f4") * 0.5).reshape(2, 3))
with open("i64_v2.npy", "wb") as f:
    np.lib.format.write_array(f, np.arange(4, dtype="<i8") - 2, version=(2, 0))
np.save("f16_vec.npy", np.array([1.0, -2.5, 65504.0], dtype="<f2"))
np.save("bool_2x2.npy", np.array([[True, False], [False, True]]))
np.save("u8_scalar.npy", np.array(7, dtype="u1"))
np.save("f32_0x3.npy", np.zeros((0, 3), dtype="<f4"))
np.save("fortran_2x3.npy", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
np.save("big_endian.npy", np.arange(3, dtype=">f4"))
np.save("complex.npy", np.arange(2).astype("<c8"))
np.save("structured.npy", np.zeros(2, dtype=[("a", "<f4"), ("b", "<i4")]))
