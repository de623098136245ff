// Where a work item's element lies in each operand: by a tensor walk (kernel_interface.h's Walk),
// or by a broadcast operand's indexing mode (OperandMode). Indices are 32-bit: the plugin refuses
// tensors of 2^31 elements or more (ops/op_registry.cpp).

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

// The offset of flat output index `i` in a broadcast operand, by its indexing mode
// (kernel_interface.h's OperandMode, which kernel_args.hpp's operand_index() picks).
inline int operand_offset(int mode, int inner, int i, const Walk* w, const int* strides) {
    switch (mode) {
        case OPERAND_SAME: return i;
        case OPERAND_TRAILING: return i % inner;
        case OPERAND_LEADING: return i / inner;
        case OPERAND_SCALAR: return 0;
        default: return walk_offset(w, i, strides);
    }
}
