// Translators of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, decomposed as OpenVINO's
// ONNX frontend does: SoftmaxCrossEntropyLoss is LogSoftmax over the class axis (1) followed by the
// negative log-likelihood, which picks each sample's class value with GatherElements, weights it
// and reduces.
//
// Labels equal to ignore_index get weight 0 and are replaced by class 0 before any gather, since
// ignore_index may lie outside [0, C). The mean divides by the sum of the weights actually applied
// (the count of labels not ignored when there are no weights), as the ONNX reference does.
#include "readers/onnx/onnx_node_context.hpp"

#include <numeric>
#include <optional>

namespace mosaic::onnx_import {

namespace {

Output all_axes_sum(NodeContext& ctx, const Output& x) {
    std::vector<int64_t> axes(static_cast<size_t>(ctx.rank(x)));
    std::iota(axes.begin(), axes.end(), 0);
    return ctx.op("ReduceSum", {x, ctx.const_i64(axes)}, {{"keep_dims", "false"}});
}

// The loss of log-probabilities `log_prob` (N, C, d1, ..., dk) against class labels (N, d1, ..., dk).
Output negative_log_likelihood(NodeContext& ctx, const Output& log_prob, const Output& labels,
                               std::optional<Output> weights) {
    const std::string reduction = ctx.attr_string("reduction", "mean");
    if (reduction != "none" && reduction != "sum" && reduction != "mean")
        ctx.fail("attribute 'reduction' is '" + reduction + "'; expected none, sum or mean");
    if (ctx.rank(log_prob) < 2)
        ctx.fail("input 0 must have shape (N, C, d1, ..., dk), got " + to_string(ctx.shape(log_prob)));
    if (ctx.rank(labels) != ctx.rank(log_prob) - 1)
        ctx.fail("labels of shape " + to_string(ctx.shape(labels)) + " must have one dimension less than input " +
                 to_string(ctx.shape(log_prob)));
    const ElementType t = ctx.type(log_prob);

    Output label = ctx.convert(labels, ElementType::i64);
    std::optional<Output> kept;  // labels not ignored
    if (ctx.has_attr("ignore_index")) {
        kept = ctx.op("NotEqual", {label, ctx.scalar_i64(ctx.attr_int("ignore_index"))});
        label = ctx.op("Select", {*kept, label, ctx.scalar_i64(0)});
    }

    const Output class_axis = ctx.scalar_i64(1);
    const Output picked = ctx.op(
        "Squeeze", {ctx.op("GatherElements", {log_prob, ctx.op("Unsqueeze", {label, class_axis})}, {{"axis", "1"}}),
                    class_axis});
    if (weights) weights = ctx.op("Gather", {*weights, label, ctx.scalar_i64(0)}, {{"batch_dims", "0"}});
    if (kept) weights = ctx.op("Select", {*kept, weights ? *weights : ctx.scalar_of(t, 1), ctx.scalar_of(t, 0)});

    Output loss = ctx.op("Negative", {picked});
    if (weights) loss = ctx.op("Multiply", {loss, *weights});
    if (reduction == "none") return loss;
    if (reduction == "sum") return all_axes_sum(ctx, loss);
    if (!weights) {
        std::vector<int64_t> axes(static_cast<size_t>(ctx.rank(loss)));
        std::iota(axes.begin(), axes.end(), 0);
        return ctx.op("ReduceMean", {loss, ctx.const_i64(axes)}, {{"keep_dims", "false"}});
    }
    return ctx.op("Divide", {all_axes_sum(ctx, loss), all_axes_sum(ctx, *weights)});
}

std::optional<Output> optional_input(NodeContext& ctx, size_t i) {
    return ctx.has_input(i) ? std::optional<Output>(ctx.input(i)) : std::nullopt;
}

Outputs negative_log_likelihood_loss(NodeContext& ctx) {
    return {negative_log_likelihood(ctx, ctx.input(0), ctx.input(1), optional_input(ctx, 2))};
}

Outputs softmax_cross_entropy_loss(NodeContext& ctx) {
    const Output scores = ctx.input(0);
    if (ctx.rank(scores) < 2)
        ctx.fail("input 0 (scores) must have shape (N, C, d1, ..., dk), got " + to_string(ctx.shape(scores)));
    const Output log_prob = ctx.op("LogSoftmax", {scores}, {{"axis", "1"}});
    Outputs outs{negative_log_likelihood(ctx, log_prob, ctx.input(1), optional_input(ctx, 2))};
    if (ctx.has_output(1)) outs.push_back(log_prob);
    return outs;
}

const TranslatorRegistration registration({
    {"NegativeLogLikelihoodLoss", negative_log_likelihood_loss},
    {"SoftmaxCrossEntropyLoss", softmax_cross_entropy_loss},
});

}  // namespace

}  // namespace mosaic::onnx_import
