// Translators of ONNX's normalisation ops: BatchNormalization (inference, the training mode of
// opsets 1-6 (is_test=0) and 14/15 that also updates the running statistics, and the
// per-activation statistics of spatial=0 before opset 9), InstanceNormalization,
// LayerNormalization, MeanVarianceNormalization and LRN. They map onto BatchNormInference-5, MVN-6
// and LRN-1 where those mean the same, as OpenVINO's ONNX frontend does; LayerNormalization is
// decomposed into reductions because its Mean and InvStdDev outputs are needed as well.
#include "readers/onnx/onnx_node_context.hpp"
#include "readers/onnx/onnx_tensor.hpp"
#include "readers/onnx/translators/legacy_broadcast.hpp"

namespace mosaic::onnx_import {

namespace {

Output reduce(NodeContext& ctx, const char* type, const Output& x, const std::vector<int64_t>& axes, bool keep_dims) {
    return ctx.op(type, {x, ctx.const_i64(axes)}, {{"keep_dims", keep_dims ? "true" : "false"}});
}

// `values` reshaped to [1, C, 1, ...] so that it broadcasts over data of rank `rank` along axis 1.
Output per_channel(NodeContext& ctx, const Output& values, int64_t rank) {
    std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
    shape[1] = -1;
    return ctx.op("Reshape", {values, ctx.const_i64(shape)}, {{"special_zero", "false"}});
}

Output mvn(NodeContext& ctx, const Output& x, const std::vector<int64_t>& axes, double eps) {
    Attributes attrs;
    attrs.set("normalize_variance", true);
    attrs.set("eps", eps);
    attrs.set("eps_mode", "inside_sqrt");
    return ctx.op("MVN", {x, ctx.const_i64(axes)}, attrs, "opset6");
}

// BatchNormalization's inputs after X, in X's element type.
struct BatchNormInputs {
    Output scale, bias, mean, var;
};

// Y = (X - mean) / sqrt(var + eps) * scale + bias. Per channel (inputs of shape [C]) that is
// BatchNormInference. Per activation (spatial=0, opsets before 9: one value per element of a
// sample, inputs of shape [C, D1, ...] as per_activation_inputs lines them up) it is spelled out.
Output normalize(NodeContext& ctx, const Output& x, const BatchNormInputs& in, double eps, bool per_activation) {
    if (!per_activation) {
        Attributes attrs;
        attrs.set("epsilon", eps);
        return ctx.op("BatchNormInference", {x, in.scale, in.bias, in.mean, in.var}, attrs, "opset5");
    }
    const Output std_dev = ctx.op("Sqrt", {ctx.op("Add", {in.var, ctx.scalar_of(ctx.type(x), eps)})});
    const Output normalized = ctx.op("Divide", {ctx.op("Subtract", {x, in.mean}), std_dev});
    return ctx.op("Add", {ctx.op("Multiply", {normalized, in.scale}), in.bias});
}

// The inputs of a per-activation node lined up with X from axis 1, so that numpy broadcasting
// spreads them over the batch axis (a [C] input becomes [C, 1, ...]: one value per channel).
BatchNormInputs per_activation_inputs(NodeContext& ctx, const Output& x, const BatchNormInputs& in) {
    return {align_at_axis(ctx, x, in.scale, 1, "input scale"), align_at_axis(ctx, x, in.bias, 1, "input B"),
            align_at_axis(ctx, x, in.mean, 1, "input mean"), align_at_axis(ctx, x, in.var, 1, "input var")};
}

// Training mode normalises with the batch's own statistics (population variance over every axis
// but the channel, or over the batch axis only per activation) and blends them into the running
// ones: running * momentum + batch * (1 - momentum). The saved_mean and saved_var outputs of
// opsets before 7 are left out: what they hold (Caffe2 saved the inverse standard deviation) is
// not specified, and they serve only gradients.
Outputs batch_norm_training(NodeContext& ctx, const Output& x, const BatchNormInputs& in, double eps,
                            bool per_activation) {
    const ElementType t = ctx.type(x);
    std::vector<int64_t> axes{0};
    if (!per_activation)
        for (int64_t a : range_from(2, ctx.rank(x))) axes.push_back(a);
    const Output batch_mean = reduce(ctx, "ReduceMean", x, axes, true);
    const Output batch_var = reduce(ctx, "ReduceMean", ctx.op("SquaredDifference", {x, batch_mean}), axes, false);
    const Output flat_mean = reduce(ctx, "ReduceMean", x, axes, false);
    const Output y = normalize(ctx, x, {in.scale, in.bias, flat_mean, batch_var}, eps, per_activation);
    Outputs outs{y};
    const double momentum = ctx.attr_float("momentum", 0.9);
    const Output keep = ctx.scalar_of(t, momentum), take = ctx.scalar_of(t, 1.0 - momentum);
    auto blend = [&](const Output& running, const Output& batch) {
        return ctx.op("Add", {ctx.op("Multiply", {running, keep}), ctx.op("Multiply", {batch, take})});
    };
    if (ctx.has_output(1)) outs.push_back(blend(in.mean, flat_mean));
    if (ctx.has_output(2)) {
        if (outs.size() < 2) outs.push_back(flat_mean);
        outs.push_back(blend(in.var, batch_var));
    }
    return outs;
}

// Whether the node normalises with the batch's statistics: is_test=0 (the default) before opset 7,
// training_mode=1 from opset 14; opsets 7 to 13 define inference only.
bool batch_norm_trains(NodeContext& ctx) {
    if (ctx.opset() < 7) return ctx.attr_int("is_test", 0) == 0;
    return ctx.opset() >= 14 && ctx.attr_int("training_mode", 0) != 0;
}

// The `consumed_inputs` attribute of BatchNormalization-1 is ignored (a memory-reuse hint).
Outputs batch_normalization(NodeContext& ctx) {
    const Output x = ctx.input(0);
    if (ctx.rank(x) < 2) ctx.fail("input X must have rank >= 2 ([N, C, ...]), got shape " + to_string(ctx.shape(x)));
    // spatial=0 (opsets before 9) keeps statistics per activation; over [N, C] that is per channel anyway.
    const bool per_activation = ctx.opset() < 9 && ctx.attr_int("spatial", 1) == 0 && ctx.rank(x) > 2;
    const ElementType t = ctx.type(x);
    BatchNormInputs in{ctx.convert(ctx.input(1), t), ctx.convert(ctx.input(2), t), ctx.convert(ctx.input(3), t),
                       ctx.convert(ctx.input(4), t)};
    if (per_activation) in = per_activation_inputs(ctx, x, in);
    const double eps = ctx.attr_float("epsilon", 1e-5);
    if (batch_norm_trains(ctx)) return batch_norm_training(ctx, x, in, eps, per_activation);
    return {normalize(ctx, x, in, eps, per_activation)};
}

Outputs instance_normalization(NodeContext& ctx) {
    const Output x = ctx.input(0);
    if (ctx.rank(x) < 3)
        ctx.fail("input must have rank >= 3 ([N, C, spatial...]), got shape " + to_string(ctx.shape(x)));
    const Output normalized = mvn(ctx, x, range_from(2, ctx.rank(x)), ctx.attr_float("epsilon", 1e-5));
    const Output scaled = ctx.op("Multiply", {normalized, per_channel(ctx, ctx.input(1), ctx.rank(x))});
    return {ctx.op("Add", {scaled, per_channel(ctx, ctx.input(2), ctx.rank(x))})};
}

// Y = (X - mean) * InvStdDev * Scale + B over the axes from `axis` on, with the statistics computed
// in stash_type (f32 by default, whatever X's type) and kept as outputs of shape X's with the
// normalised axes set to 1.
Outputs layer_normalization(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const int64_t rank = ctx.rank(x);
    int64_t axis = ctx.attr_int("axis", -1);
    if (axis < -rank || axis >= rank)
        ctx.fail("attribute 'axis' = " + std::to_string(axis) + " is out of range for input rank " +
                 std::to_string(rank));
    if (axis < 0) axis += rank;
    const ElementType stash = element_type_of(static_cast<int32_t>(ctx.attr_int("stash_type", 1)), ctx.where());
    if (!is_floating(stash))
        ctx.fail(std::string("attribute 'stash_type' must name a floating-point type, got ") + to_string(stash));
    const std::vector<int64_t> axes = range_from(axis, rank);

    const Output xs = ctx.convert(x, stash);
    const Output mean = reduce(ctx, "ReduceMean", xs, axes, true);
    const Output centered = ctx.op("Subtract", {xs, mean});
    const Output var = reduce(ctx, "ReduceMean", ctx.op("Multiply", {centered, centered}), axes, true);
    const Output std_dev =
        ctx.op("Sqrt", {ctx.op("Add", {var, ctx.scalar_of(stash, ctx.attr_float("epsilon", 1e-5))})});
    const Output inv_std_dev = ctx.op("Divide", {ctx.scalar_of(stash, 1.0), std_dev});
    Output y = ctx.convert(ctx.op("Multiply", {centered, inv_std_dev}), ctx.type(x));
    y = ctx.op("Multiply", {y, ctx.input(1)});
    if (ctx.has_input(2)) y = ctx.op("Add", {y, ctx.input(2)});
    return {y, mean, inv_std_dev};
}

// (X - mean) / sqrt(variance + 1e-9) over `axes` (default: all but channels), as ONNX's function
// body defines it.
Outputs mean_variance_normalization(NodeContext& ctx) {
    const Output x = ctx.input(0);
    return {mvn(ctx, x, ctx.attr_ints("axes", {0, 2, 3}), 1e-9)};
}

// LRN's window over channels is [c - floor((size-1)/2), c + ceil((size-1)/2)]. LRN-1's window is
// symmetric, so it serves odd sizes; an even size sums its window with an AvgPool over the channel
// axis instead, padded by the uneven halves (the padding counts, so the average is sum / size).
Output even_lrn(NodeContext& ctx, const Output& x, int64_t size, double alpha, double beta, double bias) {
    const Shape& xs = ctx.shape(x);
    const ElementType t = ctx.type(x);
    const Output squares = ctx.op("Multiply", {x, x});
    const Attributes reshape{{"special_zero", "false"}};
    const Output as_image = ctx.op("Reshape", {squares, ctx.const_i64({xs[0], 1, xs[1], -1})}, reshape);
    Attributes pool;
    pool.set("kernel", std::vector<int64_t>{size, 1});
    pool.set("strides", std::vector<int64_t>{1, 1});
    pool.set("pads_begin", std::vector<int64_t>{(size - 1) / 2, 0});
    pool.set("pads_end", std::vector<int64_t>{size / 2, 0});
    pool.set("exclude-pad", false);
    pool.set("rounding_type", "floor");
    pool.set("auto_pad", "explicit");
    const Output mean = ctx.op("AvgPool", {as_image}, pool);
    const Output window_mean = ctx.op("Reshape", {mean, ctx.shape_of(x)}, reshape);
    const Output base =
        ctx.op("Add", {ctx.scalar_of(t, bias), ctx.op("Multiply", {window_mean, ctx.scalar_of(t, alpha)})});
    return ctx.op("Divide", {x, ctx.op("Power", {base, ctx.scalar_of(t, beta)})});
}

Outputs lrn(NodeContext& ctx) {
    const Output x = ctx.input(0);
    if (ctx.rank(x) < 2) ctx.fail("input must have rank >= 2 ([N, C, ...]), got shape " + to_string(ctx.shape(x)));
    const int64_t size = ctx.attr_int("size");
    if (size < 1) ctx.fail("attribute 'size' must be positive, got " + std::to_string(size));
    const double alpha = ctx.attr_float("alpha", 1e-4), beta = ctx.attr_float("beta", 0.75);
    const double bias = ctx.attr_float("bias", 1.0);
    if (size % 2 == 0) return {even_lrn(ctx, x, size, alpha, beta, bias)};
    Attributes attrs;
    attrs.set("alpha", alpha);
    attrs.set("beta", beta);
    attrs.set("bias", bias);
    attrs.set("size", size);
    return {ctx.op("LRN", {x, ctx.const_i64({1})}, attrs)};
}

const TranslatorRegistration registration({
    {"BatchNormalization", batch_normalization},
    {"InstanceNormalization", instance_normalization},
    {"LayerNormalization", layer_normalization},
    {"MeanVarianceNormalization", mean_variance_normalization},
    {"LRN", lrn},
});

}  // namespace

}  // namespace mosaic::onnx_import
