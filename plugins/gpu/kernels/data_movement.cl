// Copies that move elements without computing (ops/copy_executor.cpp: Transpose, Concat and Split
// pieces, Slice, Broadcast by a stride of 0, Tile; moved as raw words of the element's size), and
// Convert (ops/data_movement_ops.cpp).

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

// Convert between element types: each side read and written through its GET_/PUT_
// (common/storage.cl's element tags), the value converted by EXPR of `v` (the source type, float
// for f32).
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
CONVERT(convert_f32_i8, f32, i8, convert_char_sat(v))
CONVERT(convert_f32_boolean, f32, boolean, (uchar)(v != 0.0f))
CONVERT(convert_i32_f32, i32, f32, (float)v)
CONVERT(convert_i64_f32, i64, f32, (float)v)
CONVERT(convert_u8_f32, u8, f32, (float)v)
CONVERT(convert_i8_f32, i8, f32, (float)v)
CONVERT(convert_boolean_f32, boolean, f32, (float)v)
CONVERT(convert_i32_i64, i32, i64, (long)v)
CONVERT(convert_i64_i32, i64, i32, (int)v)
CONVERT(convert_boolean_i32, boolean, i32, (int)v)
CONVERT(convert_boolean_i64, boolean, i64, (long)v)
// To boolean: nonzero is true (an attention mask cast to bool); u8 and integers wrap between each other.
CONVERT(convert_i32_boolean, i32, boolean, (uchar)(v != 0))
CONVERT(convert_i64_boolean, i64, boolean, (uchar)(v != 0))
CONVERT(convert_u8_boolean, u8, boolean, (uchar)(v != 0))
CONVERT(convert_boolean_u8, boolean, u8, v)
CONVERT(convert_u8_i32, u8, i32, (int)v)
CONVERT(convert_u8_i64, u8, i64, (long)v)
CONVERT(convert_i32_u8, i32, u8, (uchar)v)
CONVERT(convert_i64_u8, i64, u8, (uchar)v)
// A caller's f32 tensor to and from the device's real one (runtime/gpu_infer_request.cpp, under
// f16): the model's inputs and outputs keep their f32 type whatever the device stores.
CONVERT(float_to_real, float, f32, v)
CONVERT(real_to_float, f32, float, v)
