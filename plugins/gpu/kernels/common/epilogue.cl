// The epilogue fused after a convolution or MatMul (kernel_interface.h's EpilogueArgs;
// ops/fusion.cpp): a per-channel bias, the first activation, a residual tensor of the output's
// shape, the second activation, in that order. Kernels that store results apply it as they store;
// epilogue_f32 applies it as a pass of its own, after a GEMM that cannot (CLBlast's).

inline float apply_epilogue(EpilogueArgs e, int i, float v, __global const real* bias, __global const real* residual) {
    if (e.has_bias) v += LOAD(bias, (i / e.inner) % e.channels);
    v = activate(e.act1, v, e.act1_a, e.act1_b);
    if (e.has_residual) v += LOAD(residual, i);
    return activate(e.act2, v, e.act2_a, e.act2_b);
}

// In place over a GEMM's result.
__kernel void epilogue_f32(__global real* y, __global const real* bias, __global const real* residual, EpilogueArgs e) {
    const int i = get_global_id(0);
    STORE(y, i, apply_epilogue(e, i, LOAD(y, i), bias, residual));
}
