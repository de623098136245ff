// BatchNormInference (ops/batch_norm_ops.cpp) where it is not folded into the convolution before
// it, with what follows it fused (common/epilogue.cl).

// y = x * scale[c] + shift[c] over channels of `inner` elements (BatchNormInference, its
// parameters folded on the host), then the fused epilogue.
__kernel void scale_shift_f32(__global const real* x, __global real* y, __global const real* scale,
                              __global const real* shift, int channels, int inner, __global const real* bias,
                              __global const real* residual, EpilogueArgs e) {
    const int i = get_global_id(0), c = (i / inner) % channels;
    STORE(y, i, apply_epilogue(e, i, fma(LOAD(x, i), LOAD(scale, c), LOAD(shift, c)), bias, residual));
}

// BatchNormInference with its parameters computed at run time: (x - mean) * gamma / sqrt(variance +
// epsilon) + beta per channel, as the reference computes it, then the fused epilogue.
__kernel void batch_norm_f32(__global const real* x, __global real* y, __global const real* gamma,
                             __global const real* beta, __global const real* mean, __global const real* variance,
                             float epsilon, int channels, int inner, __global const real* bias,
                             __global const real* residual, EpilogueArgs e) {
    const int i = get_global_id(0), c = (i / inner) % channels;
    const float v = (LOAD(x, i) - LOAD(mean, c)) * LOAD(gamma, c) / sqrt(LOAD(variance, c) + epsilon) + LOAD(beta, c);
    STORE(y, i, apply_epilogue(e, i, v, bias, residual));
}
