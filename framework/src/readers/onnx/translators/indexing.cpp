// Translators of ONNX ops that read, place or generate elements by position: ScatterND,
// ScatterElements, Scatter (deprecated), GatherND, GatherElements, CumSum, OneHot, ReverseSequence,
// Einsum, EyeLike, NonZero, Trilu and Compress. Most map onto the OpenVINO op of the same meaning;
// Trilu and Compress are decomposed as OpenVINO's ONNX frontend does. NonZero (and Compress, built
// on it) has a data-dependent output shape, so it needs its input known when the model is read.
#include "readers/onnx/onnx_node_context.hpp"
#include "readers/onnx/onnx_tensor.hpp"

namespace mosaic::onnx_import {

namespace {

Attributes attrs_of(std::initializer_list<std::pair<const char*, std::string>> entries) {
    Attributes a;
    for (const auto& [name, value] : entries) a.set(name, value);
    return a;
}

std::string bool_text(int64_t v) { return v ? "true" : "false"; }

// ONNX names reductions by the operator (add, mul); OpenVINO by the result (sum, prod).
std::string scatter_reduction(NodeContext& ctx) {
    const std::string r = ctx.attr_string("reduction", "none");
    if (r == "none" || r == "max" || r == "min") return r;
    if (r == "add") return "sum";
    if (r == "mul") return "prod";
    ctx.unsupported("reduction '" + r + "' is not supported (expected none, add, mul, max or min)");
}

Outputs scatter_nd(NodeContext& ctx) {
    return {ctx.op("ScatterNDUpdate", {ctx.input(0), ctx.input(1), ctx.input(2)},
                   attrs_of({{"reduction", scatter_reduction(ctx)}}))};
}

// ScatterElements, and Scatter, its deprecated name (opsets 9 and 10, without reductions).
Outputs scatter_elements(NodeContext& ctx) {
    const Output axis = ctx.scalar_i64(ctx.attr_int("axis", 0));
    return {ctx.op("ScatterElementsUpdate", {ctx.input(0), ctx.input(1), ctx.input(2), axis},
                   attrs_of({{"reduction", scatter_reduction(ctx)}, {"use_init_val", "true"}}))};
}

// ONNX GatherND keeps batch dimensions unflattened, as GatherND-8 does.
Outputs gather_nd(NodeContext& ctx) {
    return {ctx.op("GatherND", {ctx.input(0), ctx.input(1)},
                   attrs_of({{"batch_dims", std::to_string(ctx.attr_int("batch_dims", 0))}}), "opset8")};
}

Outputs gather_elements(NodeContext& ctx) {
    return {ctx.op("GatherElements", {ctx.input(0), ctx.input(1)},
                   attrs_of({{"axis", std::to_string(ctx.attr_int("axis", 0))}}))};
}

Outputs cum_sum(NodeContext& ctx) {
    return {ctx.op("CumSum", {ctx.input(0), ctx.input(1)},
                   attrs_of({{"exclusive", bool_text(ctx.attr_int("exclusive", 0))},
                             {"reverse", bool_text(ctx.attr_int("reverse", 0))}}))};
}

// ONNX takes indices and depth of any numeric type and packs [off_value, on_value] in one tensor;
// negative indices count back from depth (opset 11 says so; opset 9 leaves them undefined).
Outputs one_hot(NodeContext& ctx) {
    const Output indices = ctx.convert(ctx.input(0), ElementType::i64);
    const Output depth = ctx.convert(ctx.input(1), ElementType::i64);
    const Output values = ctx.input(2);
    const Output axis0 = ctx.scalar_i64(0);
    const Output off = ctx.op("Gather", {values, ctx.scalar_i64(0), axis0});
    const Output on = ctx.op("Gather", {values, ctx.scalar_i64(1), axis0});
    return {ctx.op("OneHot", {indices, depth, on, off},
                   attrs_of({{"axis", std::to_string(ctx.attr_int("axis", -1))},
                             {"negative_indices_mode", "normalize"}}))};
}

Outputs reverse_sequence(NodeContext& ctx) {
    return {ctx.op("ReverseSequence", {ctx.input(0), ctx.input(1)},
                   attrs_of({{"batch_axis", std::to_string(ctx.attr_int("batch_axis", 1))},
                             {"seq_axis", std::to_string(ctx.attr_int("time_axis", 0))}}))};
}

Outputs einsum(NodeContext& ctx) {
    Outputs inputs;
    for (size_t i = 0; i < ctx.input_count(); ++i) inputs.push_back(ctx.input(i));
    const std::string equation = ctx.attr_string("equation", "");
    if (equation.empty()) ctx.fail("attribute 'equation' is missing or empty");
    return {ctx.op("Einsum", inputs, attrs_of({{"equation", equation}}))};
}

// Dimension `axis` of x as an i64 scalar, folded to a constant when the shape is static.
Output dim_of(NodeContext& ctx, const Output& x, int64_t axis) {
    return ctx.op("Gather", {ctx.shape_of(x), ctx.scalar_i64(axis), ctx.scalar_i64(0)});
}

Outputs eye_like(NodeContext& ctx) {
    const Output x = ctx.input(0);
    if (ctx.rank(x) != 2) ctx.fail("input must be 2D, got shape " + to_string(ctx.shape(x)));
    const ElementType type = ctx.has_attr("dtype") ? element_type_of(static_cast<int32_t>(ctx.attr_int("dtype")), ctx.where())
                                                   : ctx.type(x);
    return {ctx.op("Eye", {dim_of(ctx, x, 0), dim_of(ctx, x, 1), ctx.scalar_i64(ctx.attr_int("k", 0))},
                   attrs_of({{"output_type", to_string(type)}}))};
}

Outputs non_zero(NodeContext& ctx) {
    return {ctx.op("NonZero", {ctx.input(0)}, attrs_of({{"output_type", "i64"}}))};
}

// Unique-mosaic1 has ONNX's semantics and outputs (the values, where each first occurs, each
// element's or slice's unique one, the counts); its count is known when the model runs.
Outputs unique(NodeContext& ctx) {
    Attributes attrs = attrs_of({{"sorted", std::to_string(ctx.attr_int("sorted", 1))}});
    if (ctx.has_attr("axis")) attrs.set("axis", std::to_string(ctx.attr_int("axis")));
    const Output y = ctx.op("Unique", {ctx.input(0)}, attrs, "mosaic1");
    return {y, Output{y.node, 1}, Output{y.node, 2}, Output{y.node, 3}};
}

// Trilu keeps the elements on and above (upper) or on and below (lower) diagonal k of the last
// two axes and zeroes the rest: Select over a mask built from a column range compared with a row
// range shifted by k.
Outputs trilu(NodeContext& ctx) {
    const Output x = ctx.input(0);
    if (ctx.rank(x) < 2) ctx.fail("input must have rank >= 2, got shape " + to_string(ctx.shape(x)));
    const Output k = ctx.has_input(1) ? ctx.convert(ctx.input(1), ElementType::i64) : ctx.scalar_i64(0);
    const Output zero = ctx.scalar_i64(0), one = ctx.scalar_i64(1);
    const Attributes range_attrs = attrs_of({{"output_type", "i64"}});
    const Output rows = ctx.op("Range", {zero, dim_of(ctx, x, ctx.rank(x) - 2), one}, range_attrs);
    const Output columns = ctx.op("Range", {zero, dim_of(ctx, x, ctx.rank(x) - 1), one}, range_attrs);
    const Output shifted_rows = ctx.op("Add", {ctx.op("Unsqueeze", {rows, ctx.scalar_i64(1)}), k});
    const bool upper = ctx.attr_int("upper", 1) != 0;
    const Output mask = ctx.op(upper ? "GreaterEqual" : "LessEqual", {columns, shifted_rows});
    return {ctx.op("Select", {mask, x, ctx.scalar_of(ctx.type(x), 0)})};
}

// Compress keeps the slices along `axis` (of the flattened input when absent) whose condition is
// true: a Gather of the positions NonZero finds in the condition.
Outputs compress(NodeContext& ctx) {
    Output x = ctx.input(0);
    const Output positions = ctx.op("NonZero", {ctx.input(1)}, attrs_of({{"output_type", "i64"}}));
    const Output indices = ctx.op("Squeeze", {positions, ctx.scalar_i64(0)});
    int64_t axis = 0;
    if (ctx.has_attr("axis")) axis = ctx.attr_int("axis");
    else x = ctx.op("Reshape", {x, ctx.const_i64({-1})}, attrs_of({{"special_zero", "false"}}));
    return {ctx.op("Gather", {x, indices, ctx.scalar_i64(axis)})};
}

const TranslatorRegistration registration({
    {"ScatterND", scatter_nd},
    {"ScatterElements", scatter_elements},
    {"Scatter", scatter_elements},
    {"GatherND", gather_nd},
    {"GatherElements", gather_elements},
    {"CumSum", cum_sum},
    {"OneHot", one_hot},
    {"ReverseSequence", reverse_sequence},
    {"Einsum", einsum},
    {"EyeLike", eye_like},
    {"NonZero", non_zero},
    {"Unique", unique},
    {"Trilu", trilu},
    {"Compress", compress},
});

}  // namespace

}  // namespace mosaic::onnx_import
