// Elements picked by indices computed at run time (ops/gather_ops.cpp): Gather, GatherElements and
// OneHot, any element type moved as words of its size, i32 or i64 indices.

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
