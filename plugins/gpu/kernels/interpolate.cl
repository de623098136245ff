// Interpolate in its separable modes (nearest, linear_onnx, cubic; ops/interpolate_ops.cpp): per
// data axis, each output coordinate reads `count` source coordinates from a tap table (index,
// weight), computed on the host with the reference's coordinate mapping (reference/interpolation.hpp).
// An output element sums, over every choice of one tap per axis, the product of the weights times
// the element they pick.
__kernel void interpolate_f32(__global const real* x, __global real* y, __global const int* index,
                              __global const float* weight, TapsArgs t) {
    const int i = get_global_id(0);
    int coord[MOSAIC_MAX_RANK];
    int rest = i, choices = 1;
    for (int d = t.rank - 1; d >= 0; --d) {
        coord[d] = rest % t.dims[d];
        rest /= t.dims[d];
        choices *= t.count[d];
    }
    float sum = 0.0f;
    for (int choice = 0; choice < choices; ++choice) {
        float w = 1.0f;
        int offset = 0, pick = choice;
        for (int d = 0; d < t.rank; ++d) {
            const int e = t.offset[d] + coord[d] * t.count[d] + pick % t.count[d];
            pick /= t.count[d];
            w *= weight[e];
            offset += index[e] * t.in_strides[d];
        }
        sum += w * LOAD(x, offset);
    }
    STORE(y, i, sum);
}
