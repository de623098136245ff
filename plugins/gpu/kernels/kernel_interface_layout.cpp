// kernel_interface.h's structs and codes, checked when the plugin compiles to be laid out on the
// host as OpenCL C lays them out on the device. A kernel receives a struct as the bytes the host
// passes (clSetKernelArg with its sizeof) and reads member k at byte 4k (every member a 4-byte int
// or float, in C's order, unpadded). A member the host sized or placed otherwise would not fail
// anywhere else: every kernel would read the members after it shifted.
#include "kernels/kernel_interface.h"

#include <cstddef>

namespace mosaic::gpu_plugin {

static_assert(sizeof(int) == 4 && sizeof(float) == 4, "kernel_interface.h's members are OpenCL C's 4-byte int and float");
#define MOSAIC_KERNEL_ARG_AT(S, member, word) \
    static_assert(offsetof(S, member) == 4 * (word), #S "::" #member " is not at byte 4 * " #word ", where OpenCL C reads it")
#define MOSAIC_KERNEL_ARG_WORDS(S, words) \
    static_assert(sizeof(S) == 4 * (words), #S " is not " #words " words, as OpenCL C lays it out")

MOSAIC_KERNEL_ARG_AT(Walk, rank, 0);
MOSAIC_KERNEL_ARG_AT(Walk, dims, 1);
MOSAIC_KERNEL_ARG_AT(Walk, in_strides, 1 + MOSAIC_MAX_RANK);
MOSAIC_KERNEL_ARG_AT(Walk, other_strides, 1 + 2 * MOSAIC_MAX_RANK);
MOSAIC_KERNEL_ARG_AT(Walk, out_strides, 1 + 3 * MOSAIC_MAX_RANK);
MOSAIC_KERNEL_ARG_WORDS(Walk, 1 + 4 * MOSAIC_MAX_RANK);

MOSAIC_KERNEL_ARG_AT(EpilogueArgs, has_bias, 0);
MOSAIC_KERNEL_ARG_AT(EpilogueArgs, channels, 1);
MOSAIC_KERNEL_ARG_AT(EpilogueArgs, inner, 2);
MOSAIC_KERNEL_ARG_AT(EpilogueArgs, act1, 3);
MOSAIC_KERNEL_ARG_AT(EpilogueArgs, act1_a, 4);
MOSAIC_KERNEL_ARG_AT(EpilogueArgs, act1_b, 5);
MOSAIC_KERNEL_ARG_AT(EpilogueArgs, has_residual, 6);
MOSAIC_KERNEL_ARG_AT(EpilogueArgs, act2, 7);
MOSAIC_KERNEL_ARG_AT(EpilogueArgs, act2_a, 8);
MOSAIC_KERNEL_ARG_AT(EpilogueArgs, act2_b, 9);
MOSAIC_KERNEL_ARG_AT(EpilogueArgs, bias_per_column, 10);
MOSAIC_KERNEL_ARG_WORDS(EpilogueArgs, 11);

MOSAIC_KERNEL_ARG_AT(ConvShape, channels, 0);
MOSAIC_KERNEL_ARG_AT(ConvShape, in_h, 1);
MOSAIC_KERNEL_ARG_AT(ConvShape, in_w, 2);
MOSAIC_KERNEL_ARG_AT(ConvShape, out_h, 3);
MOSAIC_KERNEL_ARG_AT(ConvShape, out_w, 4);
MOSAIC_KERNEL_ARG_AT(ConvShape, kernel_h, 5);
MOSAIC_KERNEL_ARG_AT(ConvShape, kernel_w, 6);
MOSAIC_KERNEL_ARG_AT(ConvShape, stride_h, 7);
MOSAIC_KERNEL_ARG_AT(ConvShape, stride_w, 8);
MOSAIC_KERNEL_ARG_AT(ConvShape, dilation_h, 9);
MOSAIC_KERNEL_ARG_AT(ConvShape, dilation_w, 10);
MOSAIC_KERNEL_ARG_AT(ConvShape, pad_top, 11);
MOSAIC_KERNEL_ARG_AT(ConvShape, pad_left, 12);
MOSAIC_KERNEL_ARG_WORDS(ConvShape, 13);

MOSAIC_KERNEL_ARG_AT(AttentionArgs, batch_rank, 0);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, batch_dims, 1);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, q_strides, 1 + ATTENTION_MAX_BATCH);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, k_strides, 1 + 2 * ATTENTION_MAX_BATCH);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, v_strides, 1 + 3 * ATTENTION_MAX_BATCH);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, mask_strides, 1 + 4 * ATTENTION_MAX_BATCH);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, queries, 1 + 5 * ATTENTION_MAX_BATCH);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, keys, 2 + 5 * ATTENTION_MAX_BATCH);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, depth, 3 + 5 * ATTENTION_MAX_BATCH);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, value_depth, 4 + 5 * ATTENTION_MAX_BATCH);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, mask, 5 + 5 * ATTENTION_MAX_BATCH);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, mask_row_stride, 6 + 5 * ATTENTION_MAX_BATCH);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, mask_col_stride, 7 + 5 * ATTENTION_MAX_BATCH);
MOSAIC_KERNEL_ARG_AT(AttentionArgs, scale, 8 + 5 * ATTENTION_MAX_BATCH);
MOSAIC_KERNEL_ARG_WORDS(AttentionArgs, 9 + 5 * ATTENTION_MAX_BATCH);

MOSAIC_KERNEL_ARG_AT(PoolShape, in_h, 0);
MOSAIC_KERNEL_ARG_AT(PoolShape, in_w, 1);
MOSAIC_KERNEL_ARG_AT(PoolShape, out_h, 2);
MOSAIC_KERNEL_ARG_AT(PoolShape, out_w, 3);
MOSAIC_KERNEL_ARG_AT(PoolShape, kernel_h, 4);
MOSAIC_KERNEL_ARG_AT(PoolShape, kernel_w, 5);
MOSAIC_KERNEL_ARG_AT(PoolShape, stride_h, 6);
MOSAIC_KERNEL_ARG_AT(PoolShape, stride_w, 7);
MOSAIC_KERNEL_ARG_AT(PoolShape, pad_top, 8);
MOSAIC_KERNEL_ARG_AT(PoolShape, pad_left, 9);
MOSAIC_KERNEL_ARG_AT(PoolShape, pad_bottom, 10);
MOSAIC_KERNEL_ARG_AT(PoolShape, pad_right, 11);
MOSAIC_KERNEL_ARG_AT(PoolShape, dilation_h, 12);
MOSAIC_KERNEL_ARG_AT(PoolShape, dilation_w, 13);
MOSAIC_KERNEL_ARG_AT(PoolShape, count_padding, 14);
MOSAIC_KERNEL_ARG_WORDS(PoolShape, 15);

MOSAIC_KERNEL_ARG_AT(PadShape, rank, 0);
MOSAIC_KERNEL_ARG_AT(PadShape, mode, 1);
MOSAIC_KERNEL_ARG_AT(PadShape, out_dims, 2);
MOSAIC_KERNEL_ARG_AT(PadShape, in_dims, 2 + MOSAIC_MAX_RANK);
MOSAIC_KERNEL_ARG_AT(PadShape, in_strides, 2 + 2 * MOSAIC_MAX_RANK);
MOSAIC_KERNEL_ARG_AT(PadShape, begin, 2 + 3 * MOSAIC_MAX_RANK);
MOSAIC_KERNEL_ARG_WORDS(PadShape, 2 + 4 * MOSAIC_MAX_RANK);

MOSAIC_KERNEL_ARG_AT(TapsArgs, rank, 0);
MOSAIC_KERNEL_ARG_AT(TapsArgs, dims, 1);
MOSAIC_KERNEL_ARG_AT(TapsArgs, in_strides, 1 + MOSAIC_MAX_RANK);
MOSAIC_KERNEL_ARG_AT(TapsArgs, count, 1 + 2 * MOSAIC_MAX_RANK);
MOSAIC_KERNEL_ARG_AT(TapsArgs, offset, 1 + 3 * MOSAIC_MAX_RANK);
MOSAIC_KERNEL_ARG_WORDS(TapsArgs, 1 + 4 * MOSAIC_MAX_RANK);

#undef MOSAIC_KERNEL_ARG_AT
#undef MOSAIC_KERNEL_ARG_WORDS

// The codes travel as an int argument (set_args passes a value as its bytes).
static_assert(sizeof(ActivationKind) == 4 && sizeof(OperandMode) == 4 && sizeof(BinaryOp) == 4 &&
                  sizeof(PredicateOp) == 4 && sizeof(ReduceOp) == 4 && sizeof(PadMode) == 4,
              "kernel_interface.h's codes are passed to kernels as 4-byte ints");

}  // namespace mosaic::gpu_plugin
