// Comparisons, logical ops and Select with numpy broadcasting (ops/predicate_ops.cpp): the masks of
// encoders and decoders.

// Comparisons and logical ops, to a boolean (one byte, 0 or 1): one kernel for each element type
// of the operands, from one definition.
#define MOSAIC_DEFINE_PREDICATE(SUFFIX)                                                                               \
    __kernel void predicate_bcast_##SUFFIX(__global const T_##SUFFIX* a, __global const T_##SUFFIX* b,            \
                                           __global uchar* y, int op, Walk w, int a_mode, int a_inner, int b_mode, \
                                           int b_inner) {                                                          \
        const int i = get_global_id(0);                                                                            \
        const V_##SUFFIX va = GET_##SUFFIX(a, operand_offset(a_mode, a_inner, i, &w, w.in_strides));              \
        const V_##SUFFIX vb = GET_##SUFFIX(b, operand_offset(b_mode, b_inner, i, &w, w.other_strides));           \
        bool r = false;                                                                                            \
        switch (op) {                                                                                              \
            case PRED_EQ: r = va == vb; break;                                                                     \
            case PRED_NE: r = va != vb; break;                                                                     \
            case PRED_LT: r = va < vb; break;                                                                      \
            case PRED_LE: r = va <= vb; break;                                                                     \
            case PRED_GT: r = va > vb; break;                                                                      \
            case PRED_GE: r = va >= vb; break;                                                                     \
            case PRED_AND: r = va != 0 && vb != 0; break;                                                          \
            case PRED_OR: r = va != 0 || vb != 0; break;                                                           \
            case PRED_XOR: r = (va != 0) != (vb != 0); break;                                                      \
        }                                                                                                          \
        y[i] = r ? 1 : 0;                                                                                          \
    }
MOSAIC_DEFINE_PREDICATE(f32)
MOSAIC_DEFINE_PREDICATE(i32)
MOSAIC_DEFINE_PREDICATE(i64)
MOSAIC_DEFINE_PREDICATE(u8)

__kernel void logical_not_u8(__global const uchar* x, __global uchar* y) {
    const int i = get_global_id(0);
    y[i] = x[i] ? 0 : 1;
}

// Select(cond, a, b) with numpy broadcasting of all three: `wc` walks the condition (in_strides)
// and a (other_strides), `wb` walks b (in_strides); modes as operand_offset's. It only picks, so
// one kernel for each element size moves any type as words (f32 under the f16 hint: 2 bytes).
#define SELECT_BCAST(NAME, T)                                                                              \
    __kernel void NAME(__global const uchar* cond, __global const T* a, __global const T* b, __global T* y, \
                       Walk wc, Walk wb, int c_mode, int c_inner, int a_mode, int a_inner, int b_mode,       \
                       int b_inner) {                                                                     \
        const int i = get_global_id(0);                                                                   \
        y[i] = cond[operand_offset(c_mode, c_inner, i, &wc, wc.in_strides)]                               \
                   ? a[operand_offset(a_mode, a_inner, i, &wc, wc.other_strides)]                         \
                   : b[operand_offset(b_mode, b_inner, i, &wb, wb.in_strides)];                           \
    }
SELECT_BCAST(select_bcast_u8, uchar)
SELECT_BCAST(select_bcast_u16, ushort)
SELECT_BCAST(select_bcast_u32, uint)
SELECT_BCAST(select_bcast_u64, ulong)
