// Copies that move elements without computing: Transpose, Concat and Split pieces, Slice,
// Broadcast (a stride of 0), Gather, GatherElements, Convert. Moved as raw words of the element's size.

#define STRIDED_COPY(NAME, T)                                                                        \
    __kernel void NAME(__global const T* x, int x_offset, __global T* y, int y_offset, Walk w) {     \
        const int i = get_global_id(0);                                                               \
        y[y_offset + walk_offset(&w, i, w.out_strides)] = x[x_offset + walk_offset(&w, i, w.in_strides)]; \
    }
STRIDED_COPY(strided_copy_u8, uchar)
STRIDED_COPY(strided_copy_u16, ushort)
STRIDED_COPY(strided_copy_u32, uint)
STRIDED_COPY(strided_copy_u64, ulong)

// Sixteen consecutive elements a work item, for OpenCL CPU devices (where PoCL turns them into
// vector loads and stores, and the walk's divisions are paid once per 16): copy_executor.cpp picks
// them where the walk's innermost dimension is a multiple of 16 and contiguous on both sides, as in
// the transposes of an encoder's attention heads ([1, 128, 12, 64] to [1, 12, 128, 64]: 0.85 ms at
// one element a work item on 2 cores).
#define STRIDED_COPY16(NAME, T)                                                                        \
    __kernel void NAME(__global const T* x, int x_offset, __global T* y, int y_offset, Walk w) {       \
        const int i = get_global_id(0) * 16;                                                            \
        vstore16(vload16(0, x + x_offset + walk_offset(&w, i, w.in_strides)), 0,                         \
                 y + y_offset + walk_offset(&w, i, w.out_strides));                                      \
    }
STRIDED_COPY16(strided_copy16_u8, uchar)
STRIDED_COPY16(strided_copy16_u16, ushort)
STRIDED_COPY16(strided_copy16_u32, uint)
STRIDED_COPY16(strided_copy16_u64, ulong)

// Sixteen consecutive outputs a work item whose inputs lie a stride apart, for OpenCL CPU devices:
// a transpose that moves the last axis, as an encoder's keys [1, 128, 12, 64] to [1, 12, 64, 128]
// (1.1 ms on 2 cores at one element and one walk a work item). One walk for the sixteen, the
// loads gathered, one vector store; the next work items read the neighbouring values of the same
// lines.
#define STRIDED_GATHER16(NAME, T)                                                                        \
    __kernel void NAME(__global const T* x, int x_offset, __global T* y, int y_offset, Walk w) {         \
        const int i = get_global_id(0) * 16, step = w.in_strides[w.rank - 1];                             \
        __global const T* src = x + x_offset + walk_offset(&w, i, w.in_strides);                          \
        T v[16];                                                                                          \
        for (int l = 0; l < 16; ++l) v[l] = src[l * step];                                                \
        vstore16(vload16(0, v), 0, y + y_offset + walk_offset(&w, i, w.out_strides));                     \
    }
STRIDED_GATHER16(strided_gather16_u8, uchar)
STRIDED_GATHER16(strided_gather16_u16, ushort)
STRIDED_GATHER16(strided_gather16_u32, uint)
STRIDED_GATHER16(strided_gather16_u64, ulong)

// y[outer][j][inner] = data[outer][indices[j]][inner]; negative indices count from the end.
#define GATHER(NAME, T, I)                                                                                    \
    __kernel void NAME(__global const T* data, __global const I* indices, __global T* y, int axis_dim,      \
                       int index_count, int inner) {                                                      \
        const int i = get_global_id(0);                                                                   \
        const int in = i % inner, j = (i / inner) % index_count, outer = i / (inner * index_count);       \
        long k = (long)indices[j];                                                                       \
        if (k < 0) k += axis_dim;                                                                         \
        y[i] = (k >= 0 && k < axis_dim) ? data[(outer * axis_dim + (int)k) * inner + in] : (T)0;       \
    }
// DEFINE(PREFIX_u<bits>_<indices>, word, index type) for every word size and both index types.
#define MOSAIC_EVERY_WORD_AND_INDEX(DEFINE, PREFIX)                                             \
    DEFINE(PREFIX##_u8_i32, uchar, int) DEFINE(PREFIX##_u8_i64, uchar, long)                    \
    DEFINE(PREFIX##_u16_i32, ushort, int) DEFINE(PREFIX##_u16_i64, ushort, long)                \
    DEFINE(PREFIX##_u32_i32, uint, int) DEFINE(PREFIX##_u32_i64, uint, long)                    \
    DEFINE(PREFIX##_u64_i32, ulong, int) DEFINE(PREFIX##_u64_i64, ulong, long)
MOSAIC_EVERY_WORD_AND_INDEX(GATHER, gather)

// GatherElements: y has the indices' shape, and y at (.., j, ..) is data at (.., indices(.., j, ..), ..)
// along `axis`, every other coordinate the same (`w`: the output's dims, the data's strides in
// in_strides). Negative indices count from the end; one out of range gives 0, as Gather's (the
// reference refuses it; a kernel cannot).
#define GATHER_ELEMENTS(NAME, T, I)                                                                     \
    __kernel void NAME(__global const T* data, __global const I* indices, __global T* y, Walk w, int axis, \
                       int axis_dim) {                                                                  \
        const int i = get_global_id(0);                                                                 \
        int rest = i, from = 0;                                                                         \
        bool inside = true;                                                                             \
        for (int d = w.rank - 1; d >= 0; --d) {                                                         \
            const int q = rest / w.dims[d];                                                             \
            int c = rest - q * w.dims[d];                                                               \
            rest = q;                                                                                   \
            if (d == axis) {                                                                            \
                long k = (long)indices[i];                                                              \
                if (k < 0) k += axis_dim;                                                               \
                inside = k >= 0 && k < axis_dim;                                                        \
                c = inside ? (int)k : 0;                                                                \
            }                                                                                           \
            from += c * w.in_strides[d];                                                                \
        }                                                                                               \
        y[i] = inside ? data[from] : (T)0;                                                              \
    }
MOSAIC_EVERY_WORD_AND_INDEX(GATHER_ELEMENTS, gather_elements)

// OneHot: y at (outer, d, inner) is on_value where the index at (outer, inner) is d, else
// off_value (`depth` values along the new axis, `inner` elements after it); a negative index counts
// from the end where `normalize` (negative_indices_mode normalize), else matches nothing.
#define ONE_HOT(NAME, T, I)                                                                             \
    __kernel void NAME(__global const I* indices, __global const T* on, __global const T* off, __global T* y, \
                       int depth, int inner, int normalize) {                                           \
        const int i = get_global_id(0);                                                                 \
        const int in = i % inner, d = (i / inner) % depth, outer = i / (inner * depth);                 \
        long index = (long)indices[outer * inner + in];                                                 \
        if (normalize && index < 0) index += depth;                                                     \
        y[i] = index == d ? on[0] : off[0];                                                             \
    }
MOSAIC_EVERY_WORD_AND_INDEX(ONE_HOT, one_hot)

// Convert between element types: each side read and written through its GET_/PUT_ (00_common.cl's
// element tags), the value converted by EXPR of `v` (the source type, float for f32).
#define CONVERT(NAME, FROM, TO, EXPR)                                                 \
    __kernel void NAME(__global const T_##FROM* x, __global T_##TO* y) {              \
        const int i = get_global_id(0);                                               \
        const V_##FROM v = GET_##FROM(x, i);                                          \
        PUT_##TO(y, i, EXPR);                                                         \
    }
// Float to integer truncates toward zero and saturates, NaN becoming 0 (Convert-1 as the reference
// kernels implement it); integer to integer wraps.
CONVERT(convert_f32_i32, f32, i32, convert_int_sat(v))
CONVERT(convert_f32_i64, f32, i64, convert_long_sat(v))
CONVERT(convert_f32_u8, f32, u8, convert_uchar_sat(v))
CONVERT(convert_f32_boolean, f32, boolean, (uchar)(v != 0.0f))
CONVERT(convert_i32_f32, i32, f32, (float)v)
CONVERT(convert_i64_f32, i64, f32, (float)v)
CONVERT(convert_u8_f32, u8, f32, (float)v)
CONVERT(convert_boolean_f32, boolean, f32, (float)v)
CONVERT(convert_i32_i64, i32, i64, (long)v)
CONVERT(convert_i64_i32, i64, i32, (int)v)
CONVERT(convert_boolean_i32, boolean, i32, (int)v)
CONVERT(convert_boolean_i64, boolean, i64, (long)v)
// A caller's f32 tensor to and from the device's real one (gpu_infer_request.cpp, under f16): the
// model's inputs and outputs keep their f32 type whatever the device stores.
CONVERT(float_to_real, float, f32, v)
CONVERT(real_to_float, f32, float, v)

// Pad: each output element is the input element its position maps to, axis by axis (pad_ops.cpp's
// PadShape; mode 0 constant: outside the input, the pad value; 1 edge: clamped; 2 reflect: mirrored
// about the edge element; 3 symmetric: mirrored with it). Negative pads start inside the input.
typedef struct {
    int rank, mode;
    int out_dims[8];
    int in_dims[8];
    int in_strides[8];
    int begin[8];
} PadShape;

#define PAD(NAME, T)                                                                                 \
    __kernel void NAME(__global const T* x, __global T* y, __global const T* value, PadShape p) {   \
        const int i = get_global_id(0);                                                              \
        int rest = i, from = 0;                                                                      \
        bool outside = false;                                                                        \
        for (int d = p.rank - 1; d >= 0; --d) {                                                      \
            const int n = p.in_dims[d];                                                              \
            int k = rest % p.out_dims[d] - p.begin[d];                                               \
            rest /= p.out_dims[d];                                                                   \
            if (k < 0 || k >= n) {                                                                   \
                if (p.mode == 0) outside = true;                                                     \
                else if (p.mode == 1) k = clamp(k, 0, n - 1);                                        \
                else if (p.mode == 2) k = k < 0 ? -k : 2 * (n - 1) - k;                              \
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
