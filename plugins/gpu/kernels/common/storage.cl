// How kernels read and write tensors in device memory: the `real` type of float tensors (f32, or
// f16 storage), the LOAD/STORE macros every access to one goes through, the element tags of
// kernels defined once for several element types, and vector stores at any float's address.
//
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
#define T_i8 char
#define T_boolean uchar
#define V_i32 int
#define V_i64 long
#define V_u8 uchar
#define V_i8 char
#define V_boolean uchar
#define GET_i32(p, i) ((p)[i])
#define GET_i64(p, i) ((p)[i])
#define GET_u8(p, i) ((p)[i])
#define GET_i8(p, i) ((p)[i])
#define GET_boolean(p, i) ((p)[i])
#define PUT_i32(p, i, v) ((p)[i] = (int)(v))
#define PUT_i64(p, i, v) ((p)[i] = (long)(v))
#define PUT_u8(p, i, v) ((p)[i] = (uchar)(v))
#define PUT_i8(p, i, v) ((p)[i] = (char)(v))
#define PUT_boolean(p, i, v) ((p)[i] = (uchar)(v))
typedef float16 float16_unaligned __attribute__((aligned(4)));
typedef float8 float8_unaligned __attribute__((aligned(4)));
typedef float4 float4_unaligned __attribute__((aligned(4)));
typedef float2 float2_unaligned __attribute__((aligned(4)));
inline void vstore16_private(float16 v, float* p) { *(float16_unaligned*)p = v; }
