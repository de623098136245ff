// Pad (ops/pad_ops.cpp): each output element is the input element its position maps to, axis by
// axis (kernel_interface.h's PadShape, and PadMode for positions outside the input). Negative pads
// start inside the input.

#define PAD(NAME, T)                                                                                 \
    __kernel void NAME(__global const T* x, __global T* y, __global const T* value, PadShape p) {    \
        const int i = get_global_id(0);                                                              \
        int rest = i, from = 0;                                                                      \
        bool outside = false;                                                                        \
        for (int d = p.rank - 1; d >= 0; --d) {                                                      \
            const int n = p.in_dims[d];                                                              \
            int k = rest % p.out_dims[d] - p.begin[d];                                               \
            rest /= p.out_dims[d];                                                                   \
            if (k < 0 || k >= n) {                                                                   \
                if (p.mode == PAD_CONSTANT) outside = true;                                          \
                else if (p.mode == PAD_EDGE) k = clamp(k, 0, n - 1);                                 \
                else if (p.mode == PAD_REFLECT) k = k < 0 ? -k : 2 * (n - 1) - k;                    \
                else k = k < 0 ? -k - 1 : 2 * n - 1 - k;                                             \
            }                                                                                        \
            from += k * p.in_strides[d];                                                             \
        }                                                                                            \
        y[i] = outside ? value[0] : x[from];                                                         \
    }
PAD(pad_u8, uchar)
PAD(pad_u16, ushort)
PAD(pad_u32, uint)
PAD(pad_u64, ulong)
