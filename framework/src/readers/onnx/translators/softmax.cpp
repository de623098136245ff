// Translators of Softmax, LogSoftmax and Hardmax. Before opset 13 these ops coerce the input to 2D
// at `axis` (default 1): dims [0, axis) become the rows, dims [axis, rank) the columns normalized
// together; from opset 13 they normalize along the one axis (default -1). The older form is
// built, as in OpenVINO's ONNX frontend, as a reshape to 2D around the per-axis op.
// Hardmax is the one-hot of the first maximum along the axis: a stable TopK with k = 1 gives its
// index, and OneHot spreads it back over the axis.
#include "readers/onnx/onnx_node_context.hpp"

namespace mosaic::onnx_import {

namespace {

using PerAxis = std::function<Output(NodeContext&, const Output&, int64_t axis)>;

int64_t normalized_axis(NodeContext& ctx, const Output& x, int64_t axis) {
    const int64_t rank = ctx.rank(x);
    if (axis < -rank || axis >= rank)
        ctx.fail("attribute 'axis' " + std::to_string(axis) + " is out of range for input shape " +
                 to_string(ctx.shape(x)));
    return axis < 0 ? axis + rank : axis;
}

// Applies `per_axis` along the node's axis, coercing the input to 2D first before opset 13.
Output along_axis(NodeContext& ctx, const PerAxis& per_axis) {
    const Output x = ctx.input(0);
    if (ctx.rank(x) == 0) ctx.fail("input must have rank >= 1, got a scalar");
    if (ctx.opset() >= 13) return per_axis(ctx, x, normalized_axis(ctx, x, ctx.attr_int("axis", -1)));

    const int64_t axis = normalized_axis(ctx, x, ctx.attr_int("axis", 1));
    const Shape& shape = ctx.shape(x);
    if (axis == ctx.rank(x) - 1) return per_axis(ctx, x, axis);
    if (!is_static(shape)) {
        // The 2-D shape from the input's, computed by ops that fold once the shapes are set:
        // [product of the dims before the axis, product of the rest].
        const Output dims = ctx.shape_of(x);
        auto product = [&](int64_t from, int64_t to) {
            const Output part = ctx.op("Slice", {dims, ctx.const_i64({from}), ctx.const_i64({to}), ctx.const_i64({1}),
                                                 ctx.const_i64({0})}, {}, "opset8");
            return ctx.op("ReduceProd", {part, ctx.const_i64({0})}, {{"keep_dims", "true"}});
        };
        const Output rows_columns = ctx.op("Concat", {product(0, axis), product(axis, ctx.rank(x))}, {{"axis", "0"}});
        const Output flat = ctx.op("Reshape", {x, rows_columns}, {{"special_zero", "false"}});
        return ctx.op("Reshape", {per_axis(ctx, flat, 1), dims}, {{"special_zero", "false"}});
    }
    // Checked: with a zero dimension the input is empty whatever the others say, so they are not
    // bounded by its size ([0,2147483647,7,2147483647] was found by fuzzing).
    int64_t rows = 1, columns = 1;
    for (int64_t d = 0; d < ctx.rank(x); ++d)
        if (__builtin_mul_overflow(d < axis ? rows : columns, shape[static_cast<size_t>(d)], d < axis ? &rows : &columns))
            ctx.fail("input shape " + to_string(shape) + " cannot be coerced to 2-D at axis " + std::to_string(axis) +
                     ": a side holds more than 2^63 elements");
    const Output flat = ctx.op("Reshape", {x, ctx.const_i64({rows, columns})}, {{"special_zero", "false"}});
    return ctx.op("Reshape", {per_axis(ctx, flat, 1), ctx.shape_of(x)}, {{"special_zero", "false"}});
}

Output softmax_along(NodeContext& ctx, const Output& x, int64_t axis) {
    return ctx.op("Softmax", {x}, {{"axis", std::to_string(axis)}}, "opset8");
}

Output log_softmax_along(NodeContext& ctx, const Output& x, int64_t axis) {
    return ctx.op("LogSoftmax", {x}, {{"axis", std::to_string(axis)}});
}

Output hardmax_along(NodeContext& ctx, const Output& x, int64_t axis) {
    const ElementType t = ctx.type(x);
    // A dynamic axis's length is computed, folding once the shapes are set.
    const int64_t length = ctx.shape(x)[static_cast<size_t>(axis)];
    const Output depth = length >= 0 ? ctx.scalar_i64(length)
                                     : ctx.op("Gather", {ctx.shape_of(x), ctx.scalar_i64(axis), ctx.scalar_i64(0)});
    // TopK cannot take one element of an empty axis; the output is then empty as well.
    if (shape_size(ctx.shape(x)) == 0) return ctx.op("Multiply", {x, ctx.scalar_of(t, 0)});
    const Output top = ctx.op("TopK", {x, ctx.scalar_i64(1)},
                              {{"axis", std::to_string(axis)},
                               {"mode", "max"},
                               {"sort", "none"},
                               {"index_element_type", "i64"},
                               {"stable", "true"}},
                              "opset11");
    const Output index = ctx.op("Squeeze", {Output{top.node, 1}, ctx.scalar_i64(axis)});
    return ctx.op("OneHot", {index, depth, ctx.scalar_of(t, 1), ctx.scalar_of(t, 0)},
                  {{"axis", std::to_string(axis)}});
}

Outputs softmax(NodeContext& ctx) { return {along_axis(ctx, softmax_along)}; }
Outputs log_softmax(NodeContext& ctx) { return {along_axis(ctx, log_softmax_along)}; }
Outputs hardmax(NodeContext& ctx) { return {along_axis(ctx, hardmax_along)}; }

const TranslatorRegistration registration({
    {"Softmax", softmax},
    {"LogSoftmax", log_softmax},
    {"Hardmax", hardmax},
});

}  // namespace

}  // namespace mosaic::onnx_import
