// Translators of ONNX ops that change or report a tensor's shape without computing new values:
// Reshape, Flatten, Squeeze, Unsqueeze, Transpose, DepthToSpace, SpaceToDepth, Shape and Size.
// Each maps onto the OpenVINO op of the same meaning, Flatten onto a Reshape and Shape's start/end
// onto a Slice of ShapeOf. Shape-valued inputs (Reshape's shape, Squeeze's axes...) are passed
// through, so the Mosaic op's shape inference reads them when they are known.
#include "readers/onnx/onnx_node_context.hpp"

#include <algorithm>

namespace mosaic::onnx_import {

namespace {

// ONNX Reshape copies a 0 from the input shape unless allowzero (opset 14) asks for a real 0.
// Reshape-1 (opsets before 5) takes the new shape as its `shape` attribute, with the same 0 and -1.
Outputs reshape(NodeContext& ctx) {
    const bool allow_zero = ctx.attr_int("allowzero", 0) != 0;
    Output shape;
    if (ctx.opset() >= 5) {
        shape = ctx.input(1);
    } else {
        if (!ctx.has_attr("shape")) ctx.fail("attribute 'shape' is required before opset 5");
        shape = ctx.const_i64(ctx.attr_ints("shape"));
    }
    return {ctx.op("Reshape", {ctx.input(0), shape}, {{"special_zero", allow_zero ? "false" : "true"}})};
}

// The axis attribute of a node whose axes range over [-rank, rank] (Flatten's split point).
int64_t split_point(NodeContext& ctx, int64_t axis, int64_t rank) {
    if (axis < -rank || axis > rank)
        ctx.fail("attribute 'axis' " + std::to_string(axis) + " is out of range [" + std::to_string(-rank) + ", " +
                 std::to_string(rank) + "] for input rank " + std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
}

// The product of dims [from, to), or -1 when one of them is dynamic.
int64_t dims_product(const Shape& shape, int64_t from, int64_t to) {
    int64_t product = 1;
    for (int64_t d = from; d < to; ++d) {
        if (shape[static_cast<size_t>(d)] < 0) return -1;
        product *= shape[static_cast<size_t>(d)];
    }
    return product;
}

// Flatten: [d0 * ... * d(axis-1), d(axis) * ... * d(rank-1)]; an empty product is 1. With dynamic
// dims on one side of the axis its size is Reshape's -1; on both, the outer size is computed from
// the input's shape when the model runs (folded once the shape is known) and the inner is the -1.
Outputs flatten(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const int64_t rank = ctx.rank(x);
    const int64_t axis = split_point(ctx, ctx.attr_int("axis", 1), rank);
    const int64_t outer = dims_product(ctx.shape(x), 0, axis);
    const int64_t inner = dims_product(ctx.shape(x), axis, rank);
    if (outer >= 0 || inner >= 0)
        return {ctx.op("Reshape", {x, ctx.const_i64({outer, inner})}, {{"special_zero", "false"}})};
    const Output leading = ctx.op("Slice", {ctx.shape_of(x), ctx.const_i64({0}), ctx.const_i64({axis}), ctx.const_i64({1}),
                                            ctx.const_i64({0})});
    const Output outer_size = ctx.op("ReduceProd", {leading, ctx.const_i64({0})}, {{"keep_dims", "true"}});
    const Output target = ctx.op("Concat", {outer_size, ctx.const_i64({-1})}, {{"axis", "0"}});
    return {ctx.op("Reshape", {x, target}, {{"special_zero", "false"}})};
}

// Axes come from an attribute before opset 13 and from an optional input from then on.
Outputs squeeze(NodeContext& ctx) {
    const Output x = ctx.input(0);
    if (ctx.opset() >= 13) {
        if (!ctx.has_input(1)) return {ctx.op("Squeeze", {x})};
        return {ctx.op("Squeeze", {x, ctx.input(1)})};
    }
    if (!ctx.has_attr("axes")) return {ctx.op("Squeeze", {x})};
    return {ctx.op("Squeeze", {x, ctx.const_i64(ctx.attr_ints("axes"))})};
}

Outputs unsqueeze(NodeContext& ctx) {
    const Output x = ctx.input(0);
    if (ctx.opset() >= 13) return {ctx.op("Unsqueeze", {x, ctx.input(1)})};
    if (!ctx.has_attr("axes")) ctx.fail("has no attribute 'axes' (required before opset 13)");
    return {ctx.op("Unsqueeze", {x, ctx.const_i64(ctx.attr_ints("axes"))})};
}

// Without perm both ONNX and OpenVINO reverse the axes; Mosaic's Transpose takes an empty order for that.
Outputs transpose(NodeContext& ctx) {
    return {ctx.op("Transpose", {ctx.input(0), ctx.const_i64(ctx.attr_ints("perm"))})};
}

// ONNX's DCR (depth-column-row) order is OpenVINO's blocks_first; CRD is depth_first.
Outputs depth_to_space(NodeContext& ctx) {
    const std::string mode = ctx.attr_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") ctx.fail("attribute 'mode' must be DCR or CRD, got '" + mode + "'");
    return {ctx.op("DepthToSpace", {ctx.input(0)},
                   {{"mode", mode == "DCR" ? "blocks_first" : "depth_first"},
                    {"block_size", std::to_string(ctx.attr_int("blocksize"))}})};
}

// ONNX's SpaceToDepth has a single order, OpenVINO's blocks_first.
Outputs space_to_depth(NodeContext& ctx) {
    return {ctx.op("SpaceToDepth", {ctx.input(0)},
                   {{"mode", "blocks_first"}, {"block_size", std::to_string(ctx.attr_int("blocksize"))}})};
}

// Shape's start and end (opset 15) clamp into [0, rank] after counting negatives from the end.
Outputs shape(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const Output dims = ctx.shape_of(x);
    const int64_t rank = ctx.rank(x);
    auto bound = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
    const int64_t start = bound(ctx.attr_int("start", 0));
    const int64_t end = std::max(start, bound(ctx.attr_int("end", rank)));
    if (start == 0 && end == rank) return {dims};
    return {ctx.op("Slice", {dims, ctx.const_i64({start}), ctx.const_i64({end}), ctx.const_i64({1}),
                             ctx.const_i64({0})})};
}

// The element count as an i64 scalar: the product of the dims, 1 for a scalar.
Outputs size(NodeContext& ctx) {
    const Output x = ctx.input(0);
    if (is_static(ctx.shape(x))) return {ctx.scalar_i64(shape_size(ctx.shape(x)))};
    return {ctx.op("ReduceProd", {ctx.shape_of(x), ctx.const_i64({0})}, {{"keep_dims", "false"}})};
}

const TranslatorRegistration registration({
    {"Reshape", reshape},
    {"Flatten", flatten},
    {"Squeeze", squeeze},
    {"Unsqueeze", unsqueeze},
    {"Transpose", transpose},
    {"DepthToSpace", depth_to_space},
    {"SpaceToDepth", space_to_depth},
    {"Shape", shape},
    {"Size", size},
});

}  // namespace

}  // namespace mosaic::onnx_import
