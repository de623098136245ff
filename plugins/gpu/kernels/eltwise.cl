// Element-wise arithmetic (ops/eltwise_ops.cpp): the activations alone, and binary arithmetic with
// numpy broadcasting (an activation after it fused), f32 and i32/i64.

__kernel void unary_f32(__global const real* x, __global real* y, int kind, float a, float b) {
    const int i = get_global_id(0);
    STORE(y, i, activate(kind, LOAD(x, i), a, b));
}

// binary_op() on one float and binary_op16() on 16, from one definition (select picks per lane).
#define MOSAIC_DEFINE_BINARY(NAME, T)                                      \
    inline T NAME(int op, T a, T b) {                                     \
        switch (op) {                                                     \
            case BIN_ADD: return a + b;                                   \
            case BIN_SUB: return a - b;                                   \
            case BIN_MUL: return a * b;                                   \
            case BIN_DIV: return a / b;                                   \
            case BIN_MAX: return fmax(a, b);                              \
            case BIN_MIN: return fmin(a, b);                              \
            case BIN_POW: return pow(a, b);                               \
            case BIN_SQDIFF: return (a - b) * (a - b);                    \
            case BIN_PRELU: return select(a, a * b, a < 0.0f);            \
            case BIN_MOD: return fmod(a, b);                              \
            case BIN_FLOORMOD: {                                          \
                const T r = fmod(a, b);                                   \
                return select(r, r + b, r != 0.0f && (r < 0.0f) != (b < 0.0f)); \
            }                                                             \
            default: return a;                                            \
        }                                                                 \
    }
MOSAIC_DEFINE_BINARY(binary_op, float)
MOSAIC_DEFINE_BINARY(binary_op16, float16)

// Same shapes: no index arithmetic.
__kernel void binary_same_f32(__global const real* a, __global const real* b, __global real* y, int op, int act,
                              float act_a, float act_b) {
    const int i = get_global_id(0);
    STORE(y, i, activate(act, binary_op(op, LOAD(a, i), LOAD(b, i)), act_a, act_b));
}

__kernel void binary_bcast_f32(__global const real* a, __global const real* b, __global real* y, int op, Walk w,
                               int a_mode, int a_inner, int b_mode, int b_inner, int act, float act_a, float act_b) {
    const int i = get_global_id(0);
    const float va = LOAD(a, operand_offset(a_mode, a_inner, i, &w, w.in_strides));
    const float vb = LOAD(b, operand_offset(b_mode, b_inner, i, &w, w.other_strides));
    STORE(y, i, activate(act, binary_op(op, va, vb), act_a, act_b));
}

// Integer arithmetic as the reference does it: wrapping modulo 2^N (in the unsigned type, where C
// leaves signed overflow undefined), division truncating or, with floor_div (Divide's
// m_pythondiv), flooring; x / -1 negates and x % -1 is 0 (INT_MIN / -1 would trap). The host
// refuses a divisor that may be 0 and a negative exponent (eltwise_ops.cpp): the reference refuses
// those values at run time, which a kernel cannot.
#define MOSAIC_DEFINE_BINARY_INT(T, U, SUFFIX)                                                            \
    inline T binary_int_##SUFFIX(int op, T a, T b, int floor_div) {                                       \
        switch (op) {                                                                                     \
            case BIN_ADD: return (T)((U)a + (U)b);                                                        \
            case BIN_SUB: return (T)((U)a - (U)b);                                                        \
            case BIN_MUL: return (T)((U)a * (U)b);                                                        \
            case BIN_MAX: return max(a, b);                                                               \
            case BIN_MIN: return min(a, b);                                                               \
            case BIN_SQDIFF: return (T)(((U)a - (U)b) * ((U)a - (U)b));                                  \
            case BIN_DIV: {                                                                               \
                if (b == -1) return (T)((U)0 - (U)a);                                                     \
                const T q = a / b;                                                                        \
                return floor_div && a % b != 0 && ((a < 0) != (b < 0)) ? q - 1 : q;                      \
            }                                                                                             \
            case BIN_MOD: return b == -1 ? 0 : a % b;                                                     \
            case BIN_FLOORMOD: {                                                                          \
                const T r = b == -1 ? 0 : a % b;                                                          \
                return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;                                        \
            }                                                                                             \
            case BIN_POW: {                                                                               \
                U result = 1, base = (U)a;                                                                \
                for (U e = (U)b; e != 0; e >>= 1, base *= base)                                           \
                    if (e & 1) result *= base;                                                            \
                return (T)result;                                                                         \
            }                                                                                             \
            default: return a;                                                                            \
        }                                                                                                 \
    }                                                                                                     \
    __kernel void binary_bcast_##SUFFIX(__global const T* a, __global const T* b, __global T* y, int op,  \
                                        Walk w, int a_mode, int a_inner, int b_mode, int b_inner,          \
                                        int floor_div) {                                                  \
        const int i = get_global_id(0);                                                                   \
        y[i] = binary_int_##SUFFIX(op, a[operand_offset(a_mode, a_inner, i, &w, w.in_strides)],           \
                                   b[operand_offset(b_mode, b_inner, i, &w, w.other_strides)], floor_div); \
    }
MOSAIC_DEFINE_BINARY_INT(int, uint, i32)
MOSAIC_DEFINE_BINARY_INT(long, ulong, i64)

// Sixteen elements a work item, for OpenCL CPU devices: PoCL turns float16 into vector registers
// where it leaves the one-element kernels scalar (Erf over 393K elements: 7.6 ms at one element a
// work item, 1.1 ms at sixteen; ReLU 1.39 and 0.16 ms). eltwise_ops.cpp picks them where the
// element count is a multiple of 16 and no operand needs a full walk.
__kernel void unary16_f32(__global const real* x, __global real* y, int kind, float a, float b) {
    const int i = get_global_id(0);
    STORE16(activate16(kind, LOAD16(x + 16 * i), a, b), y + 16 * i);
}

// An operand's sixteen values for outputs 16 * i ...: one vector load, or one value for all, unless
// the block straddles two of the operand's rows (`inner` no multiple of 16, as a per-channel scale
// over 14x14 planes: 4 blocks in 49), which takes its values lane by lane.
inline float16 operand16(__global const real* p, int mode, int inner, int i) {
    const int first = i * 16;
    switch (mode) {
        case OPERAND_SAME: return LOAD16(p + first);
        case OPERAND_TRAILING: {
            const int at = first % inner;
            if (at + 16 <= inner) return LOAD16(p + at);
            break;
        }
        case OPERAND_LEADING: {
            const int row = first / inner;
            if ((first + 15) / inner == row) return (float16)(LOAD(p, row));
            break;
        }
        default: return (float16)(LOAD(p, 0));  // OPERAND_SCALAR
    }
    float lanes[16];
    for (int l = 0; l < 16; ++l) lanes[l] = LOAD(p, mode == OPERAND_TRAILING ? (first + l) % inner : (first + l) / inner);
    return vload16(0, lanes);
}

__kernel void binary16_f32(__global const real* a, __global const real* b, __global real* y, int op, int a_mode,
                           int a_inner, int b_mode, int b_inner, int act, float act_a, float act_b) {
    const int i = get_global_id(0);
    const float16 v = binary_op16(op, operand16(a, a_mode, a_inner, i), operand16(b, b_mode, b_inner, i));
    STORE16(activate16(act, v, act_a, act_b), y + 16 * i);
}
