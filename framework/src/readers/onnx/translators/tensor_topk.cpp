// Translators of ONNX ops that pick elements by rank along an axis: TopK, ArgMax and ArgMin. ArgMax
// and ArgMin are a TopK with k = 1 keeping only the indices, as in OpenVINO's ONNX frontend.
#include "readers/onnx/onnx_node_context.hpp"

#include <cstdint>
#include <limits>

namespace mosaic::onnx_import {

namespace {

// Mosaic's TopK-11 keeps equal values in index order (stable), which ONNX asks for from opset 11.
Output top_k(NodeContext& ctx, Output x, Output k, int64_t axis, bool largest, bool sorted) {
    return ctx.op("TopK", {x, k},
                  {{"axis", std::to_string(axis)},
                   {"mode", largest ? "max" : "min"},
                   {"sort", sorted ? "value" : "none"},
                   {"index_element_type", "i64"},
                   {"stable", "true"}},
                  "opset11");
}

// k is an attribute before opset 10 and a one-element input from then on; largest and sorted
// arrive in opset 11.
Outputs topk(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const Output k = ctx.opset() < 10 ? ctx.scalar_i64(ctx.attr_int("k")) : ctx.input(1);
    const Output values = top_k(ctx, x, k, ctx.attr_int("axis", -1), ctx.attr_int("largest", 1) != 0,
                                ctx.attr_int("sorted", 1) != 0);
    return {values, Output{values.node, 1}};
}

// The last index of x's axis (its size - 1) as an i64 scalar, read from ShapeOf when the size is
// only known when the model runs.
Output last_index(NodeContext& ctx, Output x, int64_t axis) {
    const int64_t dim = ctx.shape(x)[static_cast<size_t>(axis)];
    if (dim >= 0) return ctx.scalar_i64(dim - 1);
    const Output size = ctx.op("Gather", {ctx.shape_of(x), ctx.scalar_i64(axis), ctx.scalar_i64(0)},
                               {{"batch_dims", "0"}}, "opset8");
    return ctx.op("Subtract", {size, ctx.scalar_i64(1)});
}

// select_last_index (opset 12) picks the last of equal extremes: TopK picks the first, so it runs
// on the axis reversed and the index is mirrored back (size - 1 - index).
Outputs arg_extreme(NodeContext& ctx, bool largest) {
    Output x = ctx.input(0);
    const int64_t rank = ctx.rank(x);
    const int64_t raw_axis = ctx.attr_int("axis", 0);
    if (raw_axis < -rank || raw_axis >= rank)
        ctx.fail("attribute 'axis' " + std::to_string(raw_axis) + " is out of range for input rank " +
                 std::to_string(rank));
    const int64_t axis = raw_axis < 0 ? raw_axis + rank : raw_axis;
    const bool last = ctx.attr_int("select_last_index", 0) != 0;
    if (last)
        x = ctx.op("Slice", {x, ctx.const_i64({-1}), ctx.const_i64({std::numeric_limits<int64_t>::min()}),
                             ctx.const_i64({-1}), ctx.const_i64({axis})});
    const Output values = top_k(ctx, x, ctx.scalar_i64(1), axis, largest, true);
    Output index{values.node, 1};
    if (last) {
        index = ctx.op("Subtract", {last_index(ctx, x, axis), index});
    }
    if (ctx.attr_int("keepdims", 1) == 0) index = ctx.op("Squeeze", {index, ctx.const_i64({axis})});
    return {index};
}

Outputs arg_max(NodeContext& ctx) { return arg_extreme(ctx, true); }
Outputs arg_min(NodeContext& ctx) { return arg_extreme(ctx, false); }

const TranslatorRegistration registration({
    {"TopK", topk},
    {"ArgMax", arg_max},
    {"ArgMin", arg_min},
});

}  // namespace

}  // namespace mosaic::onnx_import
