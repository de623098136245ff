// Shared by every kernel: activations (standalone, and fused after a convolution or MatMul) and the
// shape descriptor strided kernels take by value. Indices are 32-bit: the plugin refuses tensors
// of 2^31 elements or more (op_registry.cpp).

#define MOSAIC_MAX_RANK 8

// Float tensors in device memory are `real`: f32, or f16 under INFERENCE_PRECISION_HINT f16 (the
// program built with -DMOSAIC_HALF). Halves are only loaded and stored, by core OpenCL 1.2's
// vload_half/vstore_half (no cl_khr_fp16 needed, so every device has them; NVIDIA's driver has no
// cl_khr_fp16): a kernel computes in float and rounds once, where it stores. Local and private
// memory stay float. Every read and write of a real buffer goes through these:
//   LOAD(p, i), STORE(p, i, v)   one value at p[i]
//   LOADn(p), STOREn(v, p)       n (16, 8, 4, 2) consecutive values from p, aligned to one value
#ifdef MOSAIC_HALF
typedef half real;
#ifdef MOSAIC_HALF_BY_BITS
// On OpenCL CPU devices (-DMOSAIC_HALF_BY_BITS) halves convert by integer arithmetic on vectors:
// PoCL's vload_halfn and vstore_halfn convert lane by lane (ResNet-50 in f16 took 3.0x its f32
// time on 2 cores with them, 2.2x with these). f16 bits to f32 (after F. Giesen's
// half_to_float_fast): the magnitude's bits shifted into an f32's place with the exponent rebiased;
// exponent 31 (infinity, NaN) moved to f32's 255; a subnormal (exponent 0) made the normal
// 2^-14 * (1 + m / 1024), from which subtracting 2^-14 leaves it exactly, with no f32 denormal on
// the way (-cl-denorms-are-zero would flush one); the sign put back.
#define MOSAIC_HALF_BITS_TO_FLOAT(N)                                                                       \
    inline float##N half_bits_to_float##N(uint##N u) {                                                    \
        const uint##N mag = (u & 0x7fffu) << 13, e = mag & 0x0f800000u;                                   \
        uint##N f = mag + (112u << 23);                                                                   \
        f = select(f, f + (112u << 23), e == 0x0f800000u);                                                \
        f = select(f, as_uint##N(as_float##N(f + (1u << 23)) - 0x1p-14f), e == 0u);                      \
        return as_float##N(f | ((u & 0x8000u) << 16));                                                    \
    }
MOSAIC_HALF_BITS_TO_FLOAT(16)
MOSAIC_HALF_BITS_TO_FLOAT(8)
MOSAIC_HALF_BITS_TO_FLOAT(4)
MOSAIC_HALF_BITS_TO_FLOAT(2)
// f32 to f16 bits, rounding to nearest even as vstore_half does (after F. Giesen's
// float_to_half_fast3_rtne): beyond f16's range infinity (NaN stays NaN); below its smallest normal
// an f32 add of 0.5 lets the FPU round the subnormal's bits into place; elsewhere the mantissa's
// dropped 13 bits round by integer addition (ties to the even one), which carries into the
// exponent exactly when it should.
#define MOSAIC_FLOAT_TO_HALF_BITS(N)                                                                       \
    inline uint##N float_to_half_bits##N(float##N v) {                                                    \
        const uint##N x = as_uint##N(v), a = x & 0x7fffffffu;                                            \
        const uint##N big = select((uint##N)(0x7c00u), (uint##N)(0x7e00u), a > 0x7f800000u);            \
        const uint##N tiny = as_uint##N(as_float##N(a) + 0.5f) - 0x3f000000u;                            \
        const uint##N normal = (a - 0x38000000u + 0x0fffu + ((a >> 13) & 1u)) >> 13;                     \
        const uint##N h = select(select(normal, tiny, a < 0x38800000u), big, a >= 0x47800000u);          \
        return h | ((x >> 16) & 0x8000u);                                                                 \
    }
MOSAIC_FLOAT_TO_HALF_BITS(16)
MOSAIC_FLOAT_TO_HALF_BITS(8)
MOSAIC_FLOAT_TO_HALF_BITS(4)
MOSAIC_FLOAT_TO_HALF_BITS(2)
inline uint float_to_half_bits(float v) {
    const uint x = as_uint(v), a = x & 0x7fffffffu;
    uint h;
    if (a >= 0x47800000u) h = a > 0x7f800000u ? 0x7e00u : 0x7c00u;
    else if (a < 0x38800000u) h = as_uint(as_float(a) + 0.5f) - 0x3f000000u;
    else h = (a - 0x38000000u + 0x0fffu + ((a >> 13) & 1u)) >> 13;
    return h | ((x >> 16) & 0x8000u);
}
inline float half_bits_to_float(uint u) {
    const uint mag = (u & 0x7fffu) << 13, e = mag & 0x0f800000u;
    uint f = mag + (112u << 23);
    if (e == 0x0f800000u) f += 112u << 23;
    else if (e == 0u) f = as_uint(as_float(f + (1u << 23)) - 0x1p-14f);
    return as_float(f | ((u & 0x8000u) << 16));
}
#define LOAD(p, i) half_bits_to_float(((__global const ushort*)(p))[i])
#define LOAD16(p) half_bits_to_float16(convert_uint16(vload16(0, (__global const ushort*)(p))))
#define LOAD8(p) half_bits_to_float8(convert_uint8(vload8(0, (__global const ushort*)(p))))
#define LOAD4(p) half_bits_to_float4(convert_uint4(vload4(0, (__global const ushort*)(p))))
#define LOAD2(p) half_bits_to_float2(convert_uint2(vload2(0, (__global const ushort*)(p))))
#define STORE(p, i, v) (((__global ushort*)(p))[i] = (ushort)float_to_half_bits(v))
#define STORE16(v, p) vstore16(convert_ushort16(float_to_half_bits16(v)), 0, (__global ushort*)(p))
#define STORE8(v, p) vstore8(convert_ushort8(float_to_half_bits8(v)), 0, (__global ushort*)(p))
#define STORE4(v, p) vstore4(convert_ushort4(float_to_half_bits4(v)), 0, (__global ushort*)(p))
#define STORE2(v, p) vstore2(convert_ushort2(float_to_half_bits2(v)), 0, (__global ushort*)(p))
#else
#define LOAD(p, i) vload_half((i), (p))
#define LOAD16(p) vload_half16(0, (p))
#define LOAD8(p) vload_half8(0, (p))
#define LOAD4(p) vload_half4(0, (p))
#define LOAD2(p) vload_half2(0, (p))
#define STORE(p, i, v) vstore_half((v), (i), (p))
#define STORE16(v, p) vstore_half16((v), 0, (p))
#define STORE8(v, p) vstore_half8((v), 0, (p))
#define STORE4(v, p) vstore_half4((v), 0, (p))
#define STORE2(v, p) vstore_half2((v), 0, (p))
#endif
#else
typedef float real;
#define LOAD(p, i) ((p)[i])
#define STORE(p, i, v) ((p)[i] = (v))
#define LOAD16(p) vload16(0, (p))
#define LOAD8(p) vload8(0, (p))
#define LOAD4(p) vload4(0, (p))
#define LOAD2(p) vload2(0, (p))
// Vectors stored at any float's address in one vector store. PoCL's vstore16 writes three pieces
// (4, 4 and 8 floats); vload16 is one load already.
#define STORE16(v, p) (*(__global float16_unaligned*)(p) = (v))
#define STORE8(v, p) (*(__global float8_unaligned*)(p) = (v))
#define STORE4(v, p) (*(__global float4_unaligned*)(p) = (v))
#define STORE2(v, p) (*(__global float2_unaligned*)(p) = (v))
#endif
// Element tags, for kernels defined once for several element types: T_ the type in device memory,
// V_ the type computed with, GET_ and PUT_ a read and a write (converting to and from V_). f32 is a
// real tensor; `float` a caller's f32 tensor as it is (the conversions at a model's edges).
#define T_f32 real
#define V_f32 float
#define GET_f32(p, i) LOAD(p, i)
#define PUT_f32(p, i, v) STORE(p, i, v)
#define T_float float
#define V_float float
#define GET_float(p, i) ((p)[i])
#define PUT_float(p, i, v) ((p)[i] = (v))
// Integer types: stored as they are.
#define T_i32 int
#define T_i64 long
#define T_u8 uchar
#define T_boolean uchar
#define V_i32 int
#define V_i64 long
#define V_u8 uchar
#define V_boolean uchar
#define GET_i32(p, i) ((p)[i])
#define GET_i64(p, i) ((p)[i])
#define GET_u8(p, i) ((p)[i])
#define GET_boolean(p, i) ((p)[i])
#define PUT_i32(p, i, v) ((p)[i] = (int)(v))
#define PUT_i64(p, i, v) ((p)[i] = (long)(v))
#define PUT_u8(p, i, v) ((p)[i] = (uchar)(v))
#define PUT_boolean(p, i, v) ((p)[i] = (uchar)(v))
typedef float16 float16_unaligned __attribute__((aligned(4)));
typedef float8 float8_unaligned __attribute__((aligned(4)));
typedef float4 float4_unaligned __attribute__((aligned(4)));
typedef float2 float2_unaligned __attribute__((aligned(4)));
inline void vstore16_private(float16 v, float* p) { *(float16_unaligned*)p = v; }

// A tensor walk: `rank` output dims and, per operand, the stride of each dim in elements
// (0 where the operand broadcasts).
typedef struct {
    int rank;
    int dims[MOSAIC_MAX_RANK];
    int in_strides[MOSAIC_MAX_RANK];
    int other_strides[MOSAIC_MAX_RANK];
    int out_strides[MOSAIC_MAX_RANK];
} Walk;

// The activation codes (activation.hpp mirrors them).
#define ACT_NONE 0
#define ACT_RELU 1
#define ACT_CLAMP 2      // a = min, b = max
#define ACT_SIGMOID 3
#define ACT_TANH 4
#define ACT_ELU 5        // a = alpha
#define ACT_GELU_ERF 6
#define ACT_GELU_TANH 7
#define ACT_SWISH 8      // a = beta
#define ACT_HSWISH 9
#define ACT_HSIGMOID 10
#define ACT_MISH 11
#define ACT_SOFTPLUS 12
#define ACT_EXP 13
#define ACT_LOG 14
#define ACT_SQRT 15
#define ACT_ABS 16
#define ACT_NEGATIVE 17
#define ACT_ERF 18
#define ACT_FLOOR 19
#define ACT_CEIL 20
#define ACT_LINEAR 21    // a * x + b
#define ACT_SIN 22
#define ACT_COS 23
#define ACT_RECIPROCAL 24
#define ACT_SIGN 25
#define ACT_LEAKY 26     // x < 0 ? a * x : x (PRelu with a scalar slope)
#define ACT_HARD_SIGMOID 27  // clamp(a * x + b, 0, 1)
#define ACT_SELU 28      // a = alpha, b = lambda
#define ACT_SQUARE 29
#define ACT_POW 30       // pow(x, a)
#define ACT_TAN 31
#define ACT_ASIN 32
#define ACT_ACOS 33
#define ACT_ATAN 34
#define ACT_SINH 35
#define ACT_COSH 36
#define ACT_ASINH 37
#define ACT_ACOSH 38
#define ACT_ATANH 39
#define ACT_ROUND_EVEN 40  // halves to the even neighbour (rint in the default rounding mode)
#define ACT_ROUND_AWAY 41  // halves away from zero

// activate() on one float and activate16() on 16 (a row of the tiled GEMM's register tile), from
// one definition: select(else, then, condition) picks per lane for vectors as for scalars.
#define MOSAIC_DEFINE_ACTIVATE(NAME, T)                                                                      \
    inline T NAME##_softplus(T x) { return select(log1p(exp(x)), x, x > 20.0f); }                             \
    inline T NAME(int kind, T x, float a, float b) {                                                          \
        switch (kind) {                                                                                       \
            case ACT_RELU: return fmax(x, 0.0f);                                                              \
            case ACT_CLAMP: return fmin(fmax(x, a), b);                                                       \
            case ACT_SIGMOID: return 1.0f / (1.0f + exp(-x));                                                 \
            case ACT_TANH: return tanh(x);                                                                    \
            case ACT_ELU: return select(a * (exp(x) - 1.0f), x, x > 0.0f);                                    \
            case ACT_GELU_ERF: return 0.5f * x * (1.0f + erf(x * 0.70710678118654752f));                      \
            case ACT_GELU_TANH: return 0.5f * x * (1.0f + tanh(0.79788456080286536f * (x + 0.044715f * x * x * x))); \
            case ACT_SWISH: return x / (1.0f + exp(-a * x));                                                  \
            case ACT_HSWISH: return x * fmin(fmax(x + 3.0f, 0.0f), 6.0f) / 6.0f;                              \
            case ACT_HSIGMOID: return fmin(fmax(x + 3.0f, 0.0f), 6.0f) / 6.0f;                                \
            case ACT_MISH: return x * tanh(NAME##_softplus(x));                                               \
            case ACT_SOFTPLUS: return NAME##_softplus(x);                                                     \
            case ACT_EXP: return exp(x);                                                                      \
            case ACT_LOG: return log(x);                                                                      \
            case ACT_SQRT: return sqrt(x);                                                                    \
            case ACT_ABS: return fabs(x);                                                                     \
            case ACT_NEGATIVE: return -x;                                                                     \
            case ACT_ERF: return erf(x);                                                                      \
            case ACT_FLOOR: return floor(x);                                                                  \
            case ACT_CEIL: return ceil(x);                                                                    \
            case ACT_LINEAR: return a * x + b;                                                                \
            case ACT_SIN: return sin(x);                                                                      \
            case ACT_COS: return cos(x);                                                                      \
            case ACT_RECIPROCAL: return 1.0f / x;                                                             \
            case ACT_SIGN: return select(select((T)(0.0f), (T)(-1.0f), x < 0.0f), (T)(1.0f), x > 0.0f);       \
            case ACT_LEAKY: return select(x, a * x, x < 0.0f);                                                \
            case ACT_HARD_SIGMOID: return fmin(fmax(a * x + b, 0.0f), 1.0f);                                  \
            case ACT_SELU: return b * select(a * (exp(x) - 1.0f), x, x > 0.0f);                               \
            case ACT_SQUARE: return x * x;                                                                    \
            case ACT_POW: return pow(x, (T)(a));                                                              \
            case ACT_TAN: return tan(x);                                                                      \
            case ACT_ASIN: return asin(x);                                                                    \
            case ACT_ACOS: return acos(x);                                                                    \
            case ACT_ATAN: return atan(x);                                                                    \
            case ACT_SINH: return sinh(x);                                                                    \
            case ACT_COSH: return cosh(x);                                                                    \
            case ACT_ASINH: return asinh(x);                                                                  \
            case ACT_ACOSH: return acosh(x);                                                                  \
            case ACT_ATANH: return atanh(x);                                                                  \
            case ACT_ROUND_EVEN: return rint(x);                                                              \
            case ACT_ROUND_AWAY: return round(x);                                                             \
            default: return x;                                                                                \
        }                                                                                                     \
    }
MOSAIC_DEFINE_ACTIVATE(activate, float)
MOSAIC_DEFINE_ACTIVATE(activate16, float16)

// activate16() over `count` vectors (the rows of the tiled GEMM's register tile, a depthwise
// convolution's output row), the kind tested once rather than per vector: out of line, each call
// spilled its vector and switched on the kind, and a tile's stores cost as much as its multiply at
// depth 64 (ResNet-50's first-stage 1x1 convolutions). Relu and Clamp, the activations CNNs fuse,
// run inline; the others cost an exp or more per value anyway.
inline void activate_rows16(int kind, float a, float b, float16* v, int count) {
    switch (kind) {
        case ACT_NONE: return;
        case ACT_RELU:
            for (int r = 0; r < count; ++r) v[r] = fmax(v[r], 0.0f);
            return;
        case ACT_CLAMP:
            for (int r = 0; r < count; ++r) v[r] = fmin(fmax(v[r], a), b);
            return;
        default:
            for (int r = 0; r < count; ++r) v[r] = activate16(kind, v[r], a, b);
    }
}

// What a convolution or MatMul applies to each result, in this order: a per-channel bias, the
// first activation, a residual tensor of the output's shape, the second activation.
typedef struct {
    int has_bias;
    int channels;     // bias index = (i / inner) % channels
    int inner;
    int act1;
    float act1_a, act1_b;
    int has_residual;
    int act2;
    float act2_a, act2_b;
    int bias_per_column;  // a GEMM's C: one channel a column (a MatMul), else one a row (a convolution)
} Epilogue;

inline float apply_epilogue(Epilogue e, int i, float v, __global const real* bias, __global const real* residual) {
    if (e.has_bias) v += LOAD(bias, (i / e.inner) % e.channels);
    v = activate(e.act1, v, e.act1_a, e.act1_b);
    if (e.has_residual) v += LOAD(residual, i);
    return activate(e.act2, v, e.act2_a, e.act2_b);
}

// The offset of flat output index `i` in an operand with `strides`.
inline int walk_offset(const Walk* w, int i, const int* strides) {
    int offset = 0;
    for (int d = w->rank - 1; d >= 0; --d) {
        const int q = i / w->dims[d];
        offset += (i - q * w->dims[d]) * strides[d];
        i = q;
    }
    return offset;
}

// The offset of flat output index `i` in a broadcast operand, by its indexing mode (kernel_args.hpp's
// OperandIndex): most broadcasts need one division or none, not the walk's one per dimension.
#define OPERAND_SAME 1
#define OPERAND_TRAILING 2
#define OPERAND_LEADING 3
#define OPERAND_SCALAR 4
inline int operand_offset(int mode, int inner, int i, const Walk* w, const int* strides) {
    switch (mode) {
        case OPERAND_SAME: return i;
        case OPERAND_TRAILING: return i % inner;
        case OPERAND_LEADING: return i / inner;
        case OPERAND_SCALAR: return 0;
        default: return walk_offset(w, i, strides);
    }
}

// Sixteen input values of one row for sixteen outputs of a window op (a depthwise convolution, a
// pooling) that start at input column iw0 and step by `stride`: vector loads where the run is
// contiguous (or every other value of a contiguous run) and inside the row, else lane by lane with
// `fill` outside it. `inside` gets 1 for the lanes inside the row and 0 for the others (an
// average's divisor counts them).
inline float16 load_row16(__global const real* row, int iw0, int stride, int width, float fill, float16* inside) {
    if (stride == 1 && iw0 >= 0 && iw0 + 16 <= width) {
        *inside = (float16)(1.0f);
        return LOAD16(row + iw0);
    }
    if (stride == 2 && iw0 >= 0 && iw0 + 32 <= width) {  // every other value of two vector loads
        *inside = (float16)(1.0f);
        const float16 lo = LOAD16(row + iw0), hi = LOAD16(row + iw0 + 16);
        return (float16)(lo.even, hi.even);
    }
    float lanes[16], in[16];
    for (int l = 0; l < 16; ++l) {
        const int iw = iw0 + l * stride;
        const bool ok = iw >= 0 && iw < width;
        lanes[l] = ok ? LOAD(row, iw) : fill;
        in[l] = ok ? 1.0f : 0.0f;
    }
    *inside = vload16(0, in);
    return vload16(0, lanes);
}

// The input values of one row that a block of sixteen outputs of a window op reads: win[j] =
// row[iw0 + j] for j < len, `fill` outside the row, as a run of fill, one copy (by vectors) and a
// run of fill, with no test per element. Loaded once, the row serves every tap along it
// (window_taps16). At most WINDOW_MAX values (kernel_args.hpp).
inline void load_window(__global const real* row, int iw0, int len, int width, float fill, float* win) {
    const int lo = clamp(-iw0, 0, len), hi = clamp(width - iw0, lo, len);
    for (int j = 0; j < lo; ++j) win[j] = fill;
    int j = lo;
    for (; j + 16 <= hi; j += 16) vstore16_private(LOAD16(row + iw0 + j), win + j);
    for (; j < hi; ++j) win[j] = LOAD(row, iw0 + j);
    for (j = hi; j < len; ++j) win[j] = fill;
}

// The sixteen values of the tap at `offset` of a window (load_window) at stride 1 or 2.
inline float16 window_taps16(const float* win, int offset, int stride) {
    if (stride == 1) return vload16(0, win + offset);
    const float16 lo = vload16(0, win + offset), hi = vload16(0, win + offset + 16);
    return (float16)(lo.even, hi.even);
}

// The first `count` of sixteen floats from p (all sixteen from 16 on), zeros in the other lanes:
// the last block of a row reads nothing past the row's end.
inline float16 load16_lanes(__global const real* p, int count) {
    if (count >= 16) return LOAD16(p);
    float lanes[16];
    for (int l = 0; l < 16; ++l) lanes[l] = l < count ? LOAD(p, l) : 0.0f;
    return vload16(0, lanes);
}

// Stores the first `lanes_left` of sixteen results from flat index i on (all sixteen from 16 on):
// the last block of a row stores only its outputs in the row.
inline void store16(__global real* y, int i, int lanes_left, float16 v) {
    if (lanes_left >= 16) {
        STORE16(v, y + i);
        return;
    }
    // By the binary digits of the count: at most four stores (8, 4, 2 and 1 values), where a loop
    // of one store a lane cost a depthwise convolution's 14- and 7-wide rows as much as its taps.
    __global real* p = y + i;
    float8 eight = v.lo;
    if (lanes_left & 8) {
        STORE8(v.lo, p);
        p += 8;
        eight = v.hi;
    }
    float4 four = eight.lo;
    if (lanes_left & 4) {
        STORE4(eight.lo, p);
        p += 4;
        four = eight.hi;
    }
    float2 two = four.lo;
    if (lanes_left & 2) {
        STORE2(four.lo, p);
        p += 2;
        two = four.hi;
    }
    if (lanes_left & 1) STORE(p, 0, two.x);
}
