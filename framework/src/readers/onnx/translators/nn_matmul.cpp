// Translators of ONNX's matrix products: MatMul and Gemm (alpha * A' B' + beta * C). The integer
// forms (MatMulInteger, QLinearMatMul) are in quantization.cpp.
#include "readers/onnx/onnx_node_context.hpp"
#include "readers/onnx/translators/legacy_broadcast.hpp"

namespace mosaic::onnx_import {

namespace {

Outputs matmul(NodeContext& ctx) { return {ctx.op("MatMul", {ctx.input(0), ctx.input(1)})}; }

// C as it is added to Y = alpha * A' B'. Before opset 7 (Gemm-1/6) C is broadcast only when the
// `broadcast` attribute asks, lined up with Y's last dims; otherwise it has Y's shape [M, N].
Output gemm_bias(NodeContext& ctx, const Output& y) {
    const Output c = ctx.input(2);
    if (ctx.opset() >= 7) return c;
    if (ctx.attr_int("broadcast", 0) != 0) return align_at_axis(ctx, y, c, ctx.rank(y) - ctx.rank(c), "input C");
    require_same_shape(ctx, y, c, "the product A * B and input C",
                       "must be equal without broadcast=1 (opsets before 7); set broadcast=1 to broadcast C");
    return c;
}

Outputs gemm(NodeContext& ctx) {
    const Output a = ctx.input(0), b = ctx.input(1);
    if (ctx.rank(a) != 2 || ctx.rank(b) != 2)
        ctx.fail("inputs A and B must be matrices, got shapes " + to_string(ctx.shape(a)) + " and " +
                 to_string(ctx.shape(b)));
    const ElementType t = ctx.type(a);
    Attributes attrs;
    attrs.set("transpose_a", ctx.attr_int("transA", 0) != 0);
    attrs.set("transpose_b", ctx.attr_int("transB", 0) != 0);
    Output y = ctx.op("MatMul", {a, b}, attrs);
    const double alpha = ctx.attr_float("alpha", 1.0), beta = ctx.attr_float("beta", 1.0);
    if (alpha != 1.0) y = ctx.op("Multiply", {y, ctx.scalar_of(t, alpha)});
    if (!ctx.has_input(2) || beta == 0.0) return {y};
    Output c = gemm_bias(ctx, y);
    if (beta != 1.0) c = ctx.op("Multiply", {c, ctx.scalar_of(t, beta)});
    return {ctx.op("Add", {y, c})};
}

const TranslatorRegistration registration({
    {"MatMul", matmul},
    {"Gemm", gemm},
});

}  // namespace

}  // namespace mosaic::onnx_import
