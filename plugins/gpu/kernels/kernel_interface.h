// What the host and the kernels must agree on, written once: the codes kernels switch on, the
// sizes both sides compute with, and the structs kernels take by value. Plain C that OpenCL C and
// C++ both read: every program begins with this text (kernels/prelude.txt), and the plugin's C++
// includes it (through kernels/kernel_args.hpp). Struct members are 4-byte ints and floats only,
// so that both sides put member k at byte 4k (kernel_interface_layout.cpp checks the host's): a
// long, a size_t, a bool or a vector type is sized or aligned differently on some hosts.
#ifndef MOSAIC_GPU_KERNEL_INTERFACE_H
#define MOSAIC_GPU_KERNEL_INTERFACE_H

#ifdef __cplusplus
namespace mosaic::gpu_plugin {
// A member's starting value on the host, whose structs start from their defaults; OpenCL C has no
// member initializers and needs none (a kernel receives the host's values).
#define MOSAIC_HOST_DEFAULT(...) = __VA_ARGS__
#else
#define MOSAIC_HOST_DEFAULT(...)
#endif

// The most dims a walk, a pad or an interpolation takes.
#define MOSAIC_MAX_RANK 8

// The tiled GEMM's tiles (gemm.cl; gemm/tiled_gemm.cpp packs operands with them). GEMM_MR rows of
// a register tile: 2 * 8 accumulators of 16 floats leave AVX-512's other 16 registers for the
// operands (measured against 4, 6, 12 and 14 rows: docs/benchmarks.md). GEMM_NR columns of a panel
// of B: two float16. GEMM_MT tiles of A a work item: enough work per item that scheduling is
// noise, and few enough that a small GEMM still gives every core work items.
#define GEMM_MR 8
#define GEMM_NR 32
#define GEMM_MT 4

// What a sixteen-wide window kernel keeps of the input in private memory: row windows of at most
// WINDOW_MAX values (common/window_rows.cl's load_window), at most RING_MAX rows of them at once
// (conv.cl's depthwise_column16_f32, which ops/conv_ops.cpp picks only within both).
#define WINDOW_MAX 48
#define RING_MAX 8

// Activations (common/activation.cl's activate(); ops/activation.cpp maps ops to them), with the
// parameters a and b where they take any.
typedef enum ActivationKind {
    ACT_NONE = 0,
    ACT_RELU = 1,
    ACT_CLAMP = 2,  // a = min, b = max
    ACT_SIGMOID = 3,
    ACT_TANH = 4,
    ACT_ELU = 5,  // a = alpha
    ACT_GELU_ERF = 6,
    ACT_GELU_TANH = 7,
    ACT_SWISH = 8,  // a = beta
    ACT_HSWISH = 9,
    ACT_HSIGMOID = 10,
    ACT_MISH = 11,
    ACT_SOFTPLUS = 12,
    ACT_EXP = 13,
    ACT_LOG = 14,
    ACT_SQRT = 15,
    ACT_ABS = 16,
    ACT_NEGATIVE = 17,
    ACT_ERF = 18,
    ACT_FLOOR = 19,
    ACT_CEIL = 20,
    ACT_LINEAR = 21,  // a * x + b
    ACT_SIN = 22,
    ACT_COS = 23,
    ACT_RECIPROCAL = 24,
    ACT_SIGN = 25,
    ACT_LEAKY = 26,         // x < 0 ? a * x : x (PRelu with a scalar slope)
    ACT_HARD_SIGMOID = 27,  // clamp(a * x + b, 0, 1)
    ACT_SELU = 28,          // a = alpha, b = lambda
    ACT_SQUARE = 29,
    ACT_POW = 30,  // pow(x, a)
    ACT_TAN = 31,
    ACT_ASIN = 32,
    ACT_ACOS = 33,
    ACT_ATAN = 34,
    ACT_SINH = 35,
    ACT_COSH = 36,
    ACT_ASINH = 37,
    ACT_ACOSH = 38,
    ACT_ATANH = 39,
    ACT_ROUND_EVEN = 40,  // halves to the even neighbour (rint in the default rounding mode)
    ACT_ROUND_AWAY = 41,  // halves away from zero
    ACT_DIVIDE = 42,      // x / a, correctly rounded (a quantization's x / scale: x * (1 / a) moves ties)
} ActivationKind;

// How a kernel finds a broadcast operand's element for flat output index i (kernels/kernel_args.hpp's
// operand_index() picks the mode, common/indexing.cl's operand_offset() follows it): most
// broadcasts need one division or none, not a walk's one per dimension.
typedef enum OperandMode {
    OPERAND_WALK = 0,      // the walk's strides
    OPERAND_SAME = 1,      // i
    OPERAND_TRAILING = 2,  // i % inner: a bias vector over the trailing dims
    OPERAND_LEADING = 3,   // i / inner: a per-row statistic over the leading ones
    OPERAND_SCALAR = 4,    // 0
} OperandMode;

// Binary arithmetic (eltwise.cl; ops/eltwise_ops.cpp).
typedef enum BinaryOp {
    BIN_ADD = 0,
    BIN_SUB = 1,
    BIN_MUL = 2,
    BIN_DIV = 3,
    BIN_MAX = 4,
    BIN_MIN = 5,
    BIN_POW = 6,
    BIN_SQDIFF = 7,
    BIN_PRELU = 8,      // x < 0 ? slope * x : x
    BIN_MOD = 9,        // fmod: the sign follows the dividend
    BIN_FLOORMOD = 10,  // the sign follows the divisor (Python's %)
} BinaryOp;

// Comparisons and logical ops (predicate.cl; ops/predicate_ops.cpp).
typedef enum PredicateOp {
    PRED_EQ = 0,
    PRED_NE = 1,
    PRED_LT = 2,
    PRED_LE = 3,
    PRED_GT = 4,
    PRED_GE = 5,
    PRED_AND = 6,
    PRED_OR = 7,
    PRED_XOR = 8,
} PredicateOp;

// Reductions (normalization.cl; ops/normalization_ops.cpp). Softmax and MVN combine partial
// results with REDUCE_MAX and REDUCE_SUM too.
typedef enum ReduceOp {
    REDUCE_SUM = 0,
    REDUCE_MEAN = 1,
    REDUCE_MAX = 2,
    REDUCE_MIN = 3,
    REDUCE_PROD = 4,
    REDUCE_L1 = 5,
    REDUCE_L2 = 6,
} ReduceOp;

// Pad's pad_mode: where an output position outside the input reads (pad.cl; ops/pad_ops.cpp).
typedef enum PadMode {
    PAD_CONSTANT = 0,   // nowhere: the pad value
    PAD_EDGE = 1,       // the edge element
    PAD_REFLECT = 2,    // mirrored about the edge element
    PAD_SYMMETRIC = 3,  // mirrored with it
} PadMode;

// A tensor walk: `rank` output dims and, per operand, the stride of each dim in elements (0 where
// the operand broadcasts). kernels/kernel_args.hpp's make_walk() fills one.
typedef struct Walk {
    int rank MOSAIC_HOST_DEFAULT(0);
    int dims[MOSAIC_MAX_RANK] MOSAIC_HOST_DEFAULT({});
    int in_strides[MOSAIC_MAX_RANK] MOSAIC_HOST_DEFAULT({});
    int other_strides[MOSAIC_MAX_RANK] MOSAIC_HOST_DEFAULT({});
    int out_strides[MOSAIC_MAX_RANK] MOSAIC_HOST_DEFAULT({});
} Walk;

// What a convolution or MatMul applies to each result, in this order: a per-channel bias, the
// first activation, a residual tensor of the output's shape, the second activation
// (common/epilogue.cl's apply_epilogue; ops/fusion.cpp fills it). All zero: nothing.
typedef struct EpilogueArgs {
    int has_bias MOSAIC_HOST_DEFAULT(0);
    int channels MOSAIC_HOST_DEFAULT(1);  // bias index = (i / inner) % channels
    int inner MOSAIC_HOST_DEFAULT(1);
    int act1 MOSAIC_HOST_DEFAULT(ACT_NONE);
    float act1_a MOSAIC_HOST_DEFAULT(0);
    float act1_b MOSAIC_HOST_DEFAULT(0);
    int has_residual MOSAIC_HOST_DEFAULT(0);
    int act2 MOSAIC_HOST_DEFAULT(ACT_NONE);
    float act2_a MOSAIC_HOST_DEFAULT(0);
    float act2_b MOSAIC_HOST_DEFAULT(0);
    // Which way a GEMM's C holds the channels (gemm.cl's gemm_store_tile): one a column (a
    // MatMul's last axis), else one a row (a convolution's). Told, not guessed from `inner`: a
    // convolution over a 1x1 map has inner 1 too, and took one channel's bias for every row
    // (paddle2onnx's squeeze-and-excitation blocks, wrong on the GPU).
    int bias_per_column MOSAIC_HOST_DEFAULT(0);
} EpilogueArgs;

// A 2-D convolution (conv.cl, conv_transpose.cl, gemm_conv.cl): one group's input channels, the
// image and output sizes, the window.
typedef struct ConvShape {
    int channels, in_h, in_w;  // of one group's input
    int out_h, out_w;
    int kernel_h, kernel_w;
    int stride_h, stride_w;
    int dilation_h, dilation_w;
    int pad_top, pad_left;
} ConvShape;

// A 2-D pooling over the two trailing dims of an N, C, H, W tensor (pooling.cl).
typedef struct PoolShape {
    int in_h, in_w, out_h, out_w;
    int kernel_h, kernel_w, stride_h, stride_w;
    int pad_top, pad_left, pad_bottom, pad_right;
    int dilation_h, dilation_w;
    int count_padding;  // average: divide by the whole kernel size (padding included and present)
} PoolShape;

// Pad (pad.cl): each output dim's input dim, the input's strides, and where the input begins in
// the output (negative: cropped).
typedef struct PadShape {
    int rank MOSAIC_HOST_DEFAULT(0);
    int mode MOSAIC_HOST_DEFAULT(PAD_CONSTANT);
    int out_dims[MOSAIC_MAX_RANK] MOSAIC_HOST_DEFAULT({});
    int in_dims[MOSAIC_MAX_RANK] MOSAIC_HOST_DEFAULT({});
    int in_strides[MOSAIC_MAX_RANK] MOSAIC_HOST_DEFAULT({});
    int begin[MOSAIC_MAX_RANK] MOSAIC_HOST_DEFAULT({});
} PadShape;

// Interpolate's tap tables (interpolate.cl): per axis, how many taps each output coordinate reads
// and where the axis's entries start in the index and weight tables.
typedef struct TapsArgs {
    int rank MOSAIC_HOST_DEFAULT(0);
    int dims[MOSAIC_MAX_RANK] MOSAIC_HOST_DEFAULT({});        // output dims
    int in_strides[MOSAIC_MAX_RANK] MOSAIC_HOST_DEFAULT({});  // input strides
    int count[MOSAIC_MAX_RANK] MOSAIC_HOST_DEFAULT({});       // taps per output coordinate of each axis (1, 2 or 4)
    int offset[MOSAIC_MAX_RANK] MOSAIC_HOST_DEFAULT({});      // where each axis's table starts
} TapsArgs;

// ScaledDotProductAttention (attention.cl; ops/attention_ops.cpp): the batch axes the output has and
// each operand's strides along them (0 where it broadcasts), the matrices' sizes, the mask and how
// the scores are scaled. A work item keeps a query row's weighted sum of values in private memory:
// at most ATTENTION_MAX_VALUE of them.
#define ATTENTION_MAX_BATCH 6
#define ATTENTION_MAX_VALUE 256
typedef enum AttentionMask {
    ATTENTION_NO_MASK = 0,
    ATTENTION_BOOLEAN_MASK = 1,   // false: the key is not attended to
    ATTENTION_ADDITIVE_MASK = 2,  // added to the scores
    ATTENTION_CAUSAL = 3,         // key s attends to query l where s <= l (the causal attribute)
} AttentionMask;
typedef struct AttentionArgs {
    int batch_rank MOSAIC_HOST_DEFAULT(0);
    int batch_dims[ATTENTION_MAX_BATCH] MOSAIC_HOST_DEFAULT({});
    int q_strides[ATTENTION_MAX_BATCH] MOSAIC_HOST_DEFAULT({});
    int k_strides[ATTENTION_MAX_BATCH] MOSAIC_HOST_DEFAULT({});
    int v_strides[ATTENTION_MAX_BATCH] MOSAIC_HOST_DEFAULT({});
    int mask_strides[ATTENTION_MAX_BATCH] MOSAIC_HOST_DEFAULT({});
    int queries MOSAIC_HOST_DEFAULT(1);     // L
    int keys MOSAIC_HOST_DEFAULT(1);        // S
    int depth MOSAIC_HOST_DEFAULT(1);       // E: of a query and a key
    int value_depth MOSAIC_HOST_DEFAULT(1); // Ev
    int mask MOSAIC_HOST_DEFAULT(ATTENTION_NO_MASK);
    int mask_row_stride MOSAIC_HOST_DEFAULT(0);  // along L
    int mask_col_stride MOSAIC_HOST_DEFAULT(0);  // along S
    float scale MOSAIC_HOST_DEFAULT(1);
} AttentionArgs;

#undef MOSAIC_HOST_DEFAULT
#ifdef __cplusplus
}  // namespace mosaic::gpu_plugin
#endif

#endif  // MOSAIC_GPU_KERNEL_INTERFACE_H
