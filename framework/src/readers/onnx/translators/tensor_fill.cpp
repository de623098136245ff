// Translators of ONNX ops that make new elements by repeating, padding or generating values: Pad,
// Expand, Tile, ConstantOfShape and Range.
#include "readers/onnx/onnx_node_context.hpp"
#include "readers/onnx/onnx_tensor.hpp"

namespace mosaic::onnx_import {

namespace {

// ONNX orders pads as [begin of each axis..., end of each axis...]; from opset 18 they may cover only
// the listed axes, and the others are not padded.
void split_pads(NodeContext& ctx, const std::vector<int64_t>& pads, const std::vector<int64_t>& axes, int64_t rank,
                std::vector<int64_t>& begin, std::vector<int64_t>& end) {
    if (pads.size() != 2 * axes.size())
        ctx.fail("pads has " + std::to_string(pads.size()) + " values but needs two per padded axis (" +
                 std::to_string(2 * axes.size()) + ")");
    begin.assign(static_cast<size_t>(rank), 0);
    end.assign(static_cast<size_t>(rank), 0);
    for (size_t i = 0; i < axes.size(); ++i) {
        const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
        if (axis < 0 || axis >= rank)
            ctx.fail("pad axis " + std::to_string(axes[i]) + " is out of range for input rank " + std::to_string(rank));
        begin[static_cast<size_t>(axis)] = pads[i];
        end[static_cast<size_t>(axis)] = pads[i + axes.size()];
    }
}

// The pad value as a scalar of the data's type: the 'value' attribute before opset 11, the optional
// constant_value input from then on (a one-element 1D tensor is accepted too), else zero.
Output pad_value(NodeContext& ctx, const Output& x) {
    if (ctx.opset() < 11) return ctx.scalar_of(ctx.type(x), ctx.attr_float("value", 0));
    if (!ctx.has_input(2)) return ctx.scalar_of(ctx.type(x), 0);
    const Output v = ctx.input(2);
    if (ctx.shape(v) == Shape{1}) return ctx.op("Squeeze", {v});
    if (!ctx.shape(v).empty()) ctx.fail("constant_value must be a scalar, got shape " + to_string(ctx.shape(v)));
    return v;
}

Outputs pad(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const int64_t rank = ctx.rank(x);
    const std::string mode = ctx.attr_string("mode", "constant");
    if (mode == "wrap") ctx.unsupported("mode 'wrap' is not supported (Mosaic's Pad has no wrapping mode)");
    if (mode != "constant" && mode != "reflect" && mode != "edge")
        ctx.fail("attribute 'mode' must be constant, reflect or edge, got '" + mode + "'");

    // Pads computed when the model runs (TensorFlow's "same" padding from the input's shape): begin
    // and end are the two halves of the list, sliced by ops that fold once the shapes are set.
    if (ctx.opset() >= 11 && !ctx.value(ctx.input(1)) && !(ctx.opset() >= 18 && ctx.has_input(3))) {
        Outputs inputs{x};
        for (int64_t half = 0; half < 2; ++half)
            inputs.push_back(ctx.op("Slice", {ctx.convert(ctx.input(1), ElementType::i64), ctx.const_i64({half * rank}),
                                              ctx.const_i64({(half + 1) * rank}), ctx.const_i64({1}), ctx.const_i64({0})},
                                    {}, "opset8"));
        if (mode == "constant") inputs.push_back(pad_value(ctx, x));
        return {ctx.op("Pad", inputs, {{"pad_mode", mode}}, "opset12")};
    }
    std::vector<int64_t> pads, axes;
    if (ctx.opset() < 11) {
        pads = ctx.attr_ints(ctx.opset() < 2 ? "paddings" : "pads");
    } else {
        pads = ctx.const_ints(1, "pads");
        if (ctx.opset() >= 18 && ctx.has_input(3)) axes = ctx.const_ints(3, "axes");
    }
    if (axes.empty())
        for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    std::vector<int64_t> begin, end;
    split_pads(ctx, pads, axes, rank, begin, end);

    Outputs inputs{x, ctx.const_i64(begin), ctx.const_i64(end)};
    if (mode == "constant") inputs.push_back(pad_value(ctx, x));
    return {ctx.op("Pad", inputs, {{"pad_mode", mode}}, "opset12")};
}

// Expand broadcasts both ways: the result has the larger of each pair of dims.
Outputs expand(NodeContext& ctx) {
    return {ctx.op("Broadcast", {ctx.input(0), ctx.input(1)}, {{"mode", "bidirectional"}}, "opset3")};
}

// Tile-1 (opsets before 6) repeats along one axis: input 1 holds the number of copies and input 2
// the axis, one value each (of the data's type in the opset-1 schema, int64 in practice). Both
// must be known when the model is read, as Tile's repeats must be; the repeats are 1 elsewhere.
Output tile_1_repeats(NodeContext& ctx, int64_t rank) {
    const std::vector<int64_t> tiles = ctx.const_ints(1, "tiles"), axis_value = ctx.const_ints(2, "axis");
    if (tiles.size() != 1 || axis_value.size() != 1)
        ctx.fail("inputs 1 (tiles) and 2 (axis) must hold one value each, got " + std::to_string(tiles.size()) +
                 " and " + std::to_string(axis_value.size()));
    int64_t axis = axis_value[0];
    if (axis < -rank || axis >= rank)
        ctx.fail("axis " + std::to_string(axis) + " is out of range for input rank " + std::to_string(rank));
    if (axis < 0) axis += rank;
    std::vector<int64_t> repeats(static_cast<size_t>(rank), 1);
    repeats[static_cast<size_t>(axis)] = tiles[0];
    return ctx.const_i64(repeats);
}

Outputs tile(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const Output repeats = ctx.opset() < 6 ? tile_1_repeats(ctx, ctx.rank(x)) : ctx.input(1);
    return {ctx.op("Tile", {x, repeats})};
}

// The 'value' attribute is a one-element tensor whose type the output takes (default f32 zero);
// it is broadcast to the shape that input 0 holds.
Outputs constant_of_shape(NodeContext& ctx) {
    Output value;
    if (const ::onnx::TensorProto* t = ctx.attr_tensor("value")) {
        TensorData data = tensor_data(*t, ctx.base_dir(), ctx.where() + ", attribute 'value'");
        if (shape_size(data.shape) != 1)
            ctx.fail("attribute 'value' must hold one element, got shape " + to_string(data.shape));
        value = ctx.constant(data.type, {}, data.data);
    } else {
        value = ctx.scalar_of(ElementType::f32, 0);
    }
    return {ctx.op("Broadcast", {value, ctx.input(0)}, {{"mode", "numpy"}}, "opset3")};
}

// start, limit and delta share one type, which the output keeps.
Outputs range(NodeContext& ctx) {
    const Output start = ctx.input(0);
    return {ctx.op("Range", {start, ctx.input(1), ctx.input(2)}, {{"output_type", to_string(ctx.type(start))}},
                   "opset4")};
}

const TranslatorRegistration registration({
    {"Pad", pad},
    {"Expand", expand},
    {"Tile", tile},
    {"ConstantOfShape", constant_of_shape},
    {"Range", range},
});

}  // namespace

}  // namespace mosaic::onnx_import
