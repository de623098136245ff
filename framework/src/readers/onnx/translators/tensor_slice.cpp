// Translators of ONNX ops that cut tensors apart or join them: Slice, Split, Concat and Gather.
// Slice's and Split's bounds moved from attributes to inputs over the opsets; both forms map onto
// the same Mosaic ops, which read the bounds when they are known at build time.
#include "readers/onnx/onnx_node_context.hpp"

#include <cstdint>

namespace mosaic::onnx_import {

namespace {

Outputs concat(NodeContext& ctx) {
    Outputs inputs;
    for (size_t i = 0; i < ctx.input_count(); ++i)
        if (ctx.has_input(i)) inputs.push_back(ctx.input(i));
    if (inputs.empty()) ctx.fail("has no inputs");
    // Concat-1 (opsets before 4) makes the axis optional, default 1.
    if (ctx.opset() >= 4 && !ctx.has_attr("axis")) ctx.fail("has no attribute 'axis'");
    return {ctx.op("Concat", inputs, {{"axis", std::to_string(ctx.attr_int("axis", 1))}})};
}

// The outputs of a multi-output Mosaic node, given its first output.
Outputs all_outputs(Output first, size_t count) {
    Outputs outs;
    for (size_t i = 0; i < count; ++i) outs.push_back(Output{first.node, i});
    return outs;
}

// Equal parts, except that from opset 18 (num_outputs) the last part may be smaller:
// each part then has ceil(dim / parts) elements.
Outputs split_evenly(NodeContext& ctx, Output x, int64_t axis, int64_t parts) {
    const int64_t rank = ctx.rank(x);
    if (rank == 0) ctx.fail("cannot split a scalar");
    if (axis < -rank || axis >= rank)
        ctx.fail("attribute 'axis' " + std::to_string(axis) + " is out of range for input rank " + std::to_string(rank));
    const int64_t dim = ctx.shape(x)[static_cast<size_t>(axis < 0 ? axis + rank : axis)];
    const Output axis_input = ctx.scalar_i64(axis);
    if (dim < 0 || dim % parts == 0) {
        const Output first = ctx.op("Split", {x, axis_input}, {{"num_splits", std::to_string(parts)}});
        return all_outputs(first, static_cast<size_t>(parts));
    }
    if (ctx.opset() < 18)
        ctx.fail("dimension " + std::to_string(dim) + " of axis " + std::to_string(axis) +
                 " does not split into " + std::to_string(parts) + " equal parts; give the 'split' sizes");
    const int64_t chunk = (dim + parts - 1) / parts;
    if (chunk * (parts - 1) >= dim)
        ctx.fail("dimension " + std::to_string(dim) + " cannot be split into " + std::to_string(parts) +
                 " non-empty parts of at most " + std::to_string(chunk));
    std::vector<int64_t> lengths(static_cast<size_t>(parts), chunk);
    lengths.back() = dim - chunk * (parts - 1);
    const Output first = ctx.op("VariadicSplit", {x, axis_input, ctx.const_i64(lengths)});
    return all_outputs(first, static_cast<size_t>(parts));
}

// The part sizes, or no node for equal parts. They come from the 'split' attribute before opset 13,
// from the optional input from then on; Split-1 (opset 1) takes either, its input holding the sizes
// in the data's (floating-point) type, read when the model is read.
Output split_sizes(NodeContext& ctx) {
    if (ctx.opset() >= 13) return ctx.has_input(1) ? ctx.input(1) : Output{};
    if (ctx.opset() < 2 && ctx.has_input(1)) {
        if (ctx.has_attr("split")) ctx.fail("gives the sizes both as attribute 'split' and as input 1; give one");
        return ctx.const_i64(ctx.const_ints(1, "split"));
    }
    return ctx.has_attr("split") ? ctx.const_i64(ctx.attr_ints("split")) : Output{};
}

// Without sizes the outputs (or num_outputs, opset 18) say how many equal parts to make. Split-1
// gives its axis no default; the 0 that Split-2 made explicit is taken for it too.
Outputs split(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const int64_t axis = ctx.attr_int("axis", 0);
    const size_t parts = ctx.output_count();
    if (parts == 0) ctx.fail("has no outputs");
    const Output sizes = split_sizes(ctx);
    if (sizes.node == nullptr) {
        if (ctx.opset() >= 18 && ctx.has_attr("num_outputs") &&
            ctx.attr_int("num_outputs") != static_cast<int64_t>(parts))
            ctx.fail("attribute 'num_outputs' " + std::to_string(ctx.attr_int("num_outputs")) +
                     " differs from the node's " + std::to_string(parts) + " outputs");
        return split_evenly(ctx, x, axis, static_cast<int64_t>(parts));
    }
    if (ctx.shape(sizes) != Shape{static_cast<int64_t>(parts)})
        ctx.fail("'split' has shape " + to_string(ctx.shape(sizes)) + " but the node has " + std::to_string(parts) +
                 " outputs");
    return all_outputs(ctx.op("VariadicSplit", {x, ctx.scalar_i64(axis), sizes}), parts);
}

// Before opset 10 starts, ends and axes are attributes and the step is 1; from opset 10 they are
// inputs, with axes and steps optional. Mosaic's Slice takes steps before axes, so absent steps
// become ones when axes are given.
Outputs slice(NodeContext& ctx) {
    const Output x = ctx.input(0);
    if (ctx.opset() < 10) {
        const std::vector<int64_t> starts = ctx.attr_ints("starts"), ends = ctx.attr_ints("ends");
        if (!ctx.has_attr("starts") || !ctx.has_attr("ends")) ctx.fail("needs attributes 'starts' and 'ends'");
        std::vector<int64_t> axes = ctx.attr_ints("axes");
        if (!ctx.has_attr("axes"))
            for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
        const std::vector<int64_t> steps(starts.size(), 1);
        return {ctx.op("Slice", {x, ctx.const_i64(starts), ctx.const_i64(ends), ctx.const_i64(steps),
                                 ctx.const_i64(axes)})};
    }
    Outputs inputs{x, ctx.input(1), ctx.input(2)};
    const bool has_axes = ctx.has_input(3), has_steps = ctx.has_input(4);
    if (has_steps) {
        inputs.push_back(ctx.input(4));
    } else if (has_axes) {
        const Shape& starts_shape = ctx.shape(ctx.input(1));
        if (starts_shape.size() != 1 || starts_shape[0] < 0)
            ctx.fail("input 1 (starts) must be a 1D tensor of known length, got shape " + to_string(starts_shape));
        // Each axis is sliced at most once; a declared length of 2^31 would be 16 GiB of steps
        // (found by the reference_plugin fuzzer).
        const auto rank = static_cast<int64_t>(ctx.shape(x).size());
        if (starts_shape[0] > rank)
            ctx.fail("input 1 (starts) has " + std::to_string(starts_shape[0]) + " entries, more than the " +
                     std::to_string(rank) + " axes of input 0 (data): each axis is sliced at most once");
        inputs.push_back(ctx.const_i64(std::vector<int64_t>(static_cast<size_t>(starts_shape[0]), 1)));
    }
    if (has_axes) inputs.push_back(ctx.input(3));
    return {ctx.op("Slice", inputs)};
}

// Gather-8 counts negative indices from the end of the axis, as ONNX does.
Outputs gather(NodeContext& ctx) {
    return {ctx.op("Gather", {ctx.input(0), ctx.input(1), ctx.scalar_i64(ctx.attr_int("axis", 0))},
                   {{"batch_dims", "0"}}, "opset8")};
}

const TranslatorRegistration registration({
    {"Concat", concat},
    {"Split", split},
    {"Slice", slice},
    {"Gather", gather},
});

}  // namespace

}  // namespace mosaic::onnx_import
