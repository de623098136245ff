// Translators of ONNX's quantization ops: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
// QLinearMatMul, QLinearConv, MatMulInteger and ConvInteger.
//
// Mosaic has no FakeQuantize, so quantizing is spelled out in f32 as the ONNX spec defines it:
// saturate(round_half_to_even(x / scale) + zero_point). Integer products (MatMulInteger,
// ConvInteger and the accumulation inside QLinearMatMul/QLinearConv) run on i32 operands with the
// zero points subtracted first, so they are exact; only the requantization is floating point.
#include "readers/onnx/onnx_node_context.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace mosaic::onnx_import {

namespace {

struct IntegerRange {
    double low, high;
};

IntegerRange range_of(NodeContext& ctx, ElementType type) {
    switch (type) {
        case ElementType::u8: return {0, 255};
        case ElementType::i8: return {-128, 127};
        case ElementType::u16: return {0, 65535};
        case ElementType::i16: return {-32768, 32767};
        default:
            ctx.unsupported(std::string("quantized element type ") + to_string(type) +
                            " is not supported (expected u8, i8, u16 or i16)");
    }
}

int64_t normalized_axis(NodeContext& ctx, int64_t axis, int64_t rank) {
    if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
        ctx.fail("attribute 'axis' (" + std::to_string(axis) + ") is out of range for rank " + std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
}

// A scale or zero point that broadcasts against a tensor of rank `rank`: scalars and one-element
// tensors apply to the whole tensor; a 1-D tensor of more elements applies along `axis`, so it is
// reshaped to [C, 1, ...] with one trailing 1 per axis after `axis`.
Output along_axis(NodeContext& ctx, Output p, int64_t rank, int64_t axis) {
    const Shape& s = ctx.shape(p);
    if (s.empty()) return p;
    if (s.size() == 1 && s[0] == 1)
        return ctx.op("Reshape", {p, ctx.const_i64({}, {0})}, {{"special_zero", "false"}});
    if (s.size() != 1)
        ctx.fail("scale and zero point must be scalars or 1-D (per-axis), got shape " + to_string(s));
    std::vector<int64_t> target(static_cast<size_t>(rank - normalized_axis(ctx, axis, rank)), 1);
    target[0] = -1;
    return ctx.op("Reshape", {p, ctx.const_i64(target)}, {{"special_zero", "false"}});
}

Output as_f32(NodeContext& ctx, Output x) { return ctx.convert(x, ElementType::f32); }

// Blocked quantization (opset 21's block_size): parameter `p` holds one value per `block`
// consecutive indices along `axis` of x and has x's shape elsewhere. Each value is repeated over
// its block (Unsqueeze, Tile, Reshape) and the last block cut to x's length, giving x's shape.
Output expand_blocks(NodeContext& ctx, Output p, Output x, int64_t axis, int64_t block) {
    const Shape &xs = ctx.shape(x), &ps = ctx.shape(p);
    const auto a = static_cast<size_t>(normalized_axis(ctx, axis, ctx.rank(x)));
    if (block < 0) ctx.fail("attribute 'block_size' must not be negative, got " + std::to_string(block));
    if (ps.size() != xs.size())
        ctx.fail("blocked quantization needs a scale of the input's rank " + std::to_string(xs.size()) + ", got shape " +
                 to_string(ps));
    if (std::any_of(xs.begin(), xs.end(), [](int64_t d) { return d < 0; }) ||
        std::any_of(ps.begin(), ps.end(), [](int64_t d) { return d < 0; }))
        ctx.unsupported("blocked quantization of a tensor of dynamic shape " + to_string(xs));
    for (size_t i = 0; i < xs.size(); ++i) {
        const int64_t want = i == a ? (xs[i] + block - 1) / block : xs[i];
        if (ps[i] != want)
            ctx.fail("with block_size " + std::to_string(block) + " the scale and zero point for input " + to_string(xs) +
                     " must have " + std::to_string(want) + " values along axis " + std::to_string(i) + ", got shape " +
                     to_string(ps));
    }
    std::vector<int64_t> repeats(xs.size() + 1, 1);
    repeats[a + 1] = block;
    const Output tiled = ctx.op("Tile", {ctx.op("Unsqueeze", {p, ctx.scalar_i64(static_cast<int64_t>(a) + 1)}),
                                         ctx.const_i64(repeats)});
    std::vector<int64_t> merged(ps.begin(), ps.end());
    merged[a] *= block;
    const Output flat = ctx.op("Reshape", {tiled, ctx.const_i64(merged)}, {{"special_zero", "false"}});
    if (merged[a] == xs[a]) return flat;
    return ctx.op("Slice", {flat, ctx.const_i64({0}), ctx.const_i64({xs[a]}), ctx.const_i64({1}),
                            ctx.const_i64({static_cast<int64_t>(a)})});
}

// The scale or zero point input `i` shaped to broadcast against x: per tensor, per axis or blocked.
Output parameter(NodeContext& ctx, size_t i, Output x, int64_t axis) {
    const int64_t block = ctx.attr_int("block_size", 0);
    if (block != 0) return expand_blocks(ctx, ctx.input(i), x, axis, block);
    return along_axis(ctx, ctx.input(i), ctx.rank(x), axis);
}

// What a model states wrongly about a quantization, checked where the reader knows the values (a
// scale or zero point is almost always an initializer): a scale of NaN or infinity (every result
// would be NaN or infinity), of zero where it divides (QuantizeLinear), a zero point of another
// type than the integers it belongs to, and per-axis parameters whose length is not the tensor's
// dimension.
void check_parameters(NodeContext& ctx, Output x, size_t scale_input, size_t zero_point_input, int64_t axis,
                      ElementType integer_type, bool zero_scale_allowed) {
    const Output scale = ctx.input(scale_input);
    const Shape& ss = ctx.shape(scale);
    const int64_t rank = ctx.rank(x);
    if (ss.size() == 1 && ss[0] != 1 && rank > 0 && ctx.attr_int("block_size", 0) == 0) {
        const int64_t a = normalized_axis(ctx, axis, rank);
        const int64_t dim = ctx.shape(x)[static_cast<size_t>(a)];
        if (dim >= 0 && ss[0] >= 0 && ss[0] != dim)
            ctx.fail("the scale has " + std::to_string(ss[0]) + " values but axis " + std::to_string(a) + " of input " +
                     to_string(ctx.shape(x)) + " has " + std::to_string(dim) + ": give one scale per index along 'axis'");
    }
    if (const ops::KnownValue* v = ctx.value(scale))
        for (double s : v->as_floats())
            if ((s == 0 && !zero_scale_allowed) || !std::isfinite(s))
                ctx.fail("scale " + Attributes::format_float(s) +
                         " is not a usable scale (" + (s == 0 ? "quantizing divides by it" : "NaN or infinite") +
                         "); the quantizer that wrote the model saw a constant tensor or a broken calibration: give a "
                         "finite non-zero scale");
    if (!ctx.has_input(zero_point_input)) return;
    const Output zp = ctx.input(zero_point_input);
    if (ctx.type(zp) != integer_type)
        ctx.fail("the zero point is " + std::string(to_string(ctx.type(zp))) + " but the quantized tensor is " +
                 to_string(integer_type) + ": they must have one type");
    const Shape& zs = ctx.shape(zp);
    if (shape_size(zs) != shape_size(ss) && shape_size(zs) >= 0 && shape_size(ss) >= 0)
        ctx.fail("the zero point has shape " + to_string(zs) + " and the scale " + to_string(ss) +
                 ": they must have one shape");
}

// saturate(round_half_to_even(v) + zero_point) in `type`; v and zero_point are f32.
Output requantize(NodeContext& ctx, Output v, const Output* zero_point_f32, ElementType type) {
    const IntegerRange r = range_of(ctx, type);
    Output q = ctx.op("Round", {v}, {{"mode", "half_to_even"}});
    if (zero_point_f32) q = ctx.op("Add", {q, *zero_point_f32});
    q = ctx.op("Clamp", {q}, {{"min", Attributes::format_float(r.low)}, {"max", Attributes::format_float(r.high)}});
    return ctx.convert(q, type);
}

Outputs quantize_linear(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const int64_t axis = ctx.attr_int("axis", 1);
    const ElementType type = ctx.has_input(2) ? ctx.type(ctx.input(2)) : ElementType::u8;
    range_of(ctx, type);
    check_parameters(ctx, x, 1, 2, axis, type, false);
    const Output scale = as_f32(ctx, parameter(ctx, 1, x, axis));
    const Output scaled = ctx.op("Divide", {as_f32(ctx, x), scale});
    if (!ctx.has_input(2)) return {requantize(ctx, scaled, nullptr, type)};
    const Output zero_point = as_f32(ctx, parameter(ctx, 2, x, axis));
    return {requantize(ctx, scaled, &zero_point, type)};
}

Outputs dequantize_linear(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const int64_t axis = ctx.attr_int("axis", 1);
    // A zero scale dequantizes to zeros (a dead channel of per-channel weights): allowed.
    check_parameters(ctx, x, 1, 2, axis, ctx.type(x), true);
    const ElementType out_type = ctx.type(ctx.input(1));
    Output y = as_f32(ctx, x);
    if (ctx.has_input(2)) y = ctx.op("Subtract", {y, as_f32(ctx, parameter(ctx, 2, x, axis))});
    y = ctx.op("Multiply", {y, as_f32(ctx, parameter(ctx, 1, x, axis))});
    return {ctx.convert(y, out_type)};
}

// Quantizes to u8 over [min(0, min x), max(0, max x)], so that 0 is exactly representable.
Outputs dynamic_quantize_linear(NodeContext& ctx) {
    const Output x = as_f32(ctx, ctx.input(0));
    std::vector<int64_t> all_axes(static_cast<size_t>(ctx.rank(x)));
    for (size_t i = 0; i < all_axes.size(); ++i) all_axes[i] = static_cast<int64_t>(i);
    const Output axes = ctx.const_i64(all_axes);
    const Output zero = ctx.scalar_of(ElementType::f32, 0);
    const Attributes reduce{{"keep_dims", "false"}};
    const Output low = ctx.op("Minimum", {ctx.op("ReduceMin", {x, axes}, reduce), zero});
    const Output high = ctx.op("Maximum", {ctx.op("ReduceMax", {x, axes}, reduce), zero});
    const Output scale = ctx.op("Divide", {ctx.op("Subtract", {high, low}), ctx.scalar_of(ElementType::f32, 255)});
    const Output unclipped = ctx.op("Subtract", {zero, ctx.op("Divide", {low, scale})});
    const Output zero_point_f32 =
        ctx.op("Round", {ctx.op("Clamp", {unclipped}, {{"min", "0"}, {"max", "255"}})}, {{"mode", "half_to_even"}});
    const Output y = requantize(ctx, ctx.op("Divide", {x, scale}), &zero_point_f32, ElementType::u8);
    return {y, scale, ctx.convert(zero_point_f32, ElementType::u8)};
}

// x - zero_point in i32; `zero_point` is already shaped to broadcast against x.
Output centered(NodeContext& ctx, Output x, std::optional<Output> zero_point) {
    Output v = ctx.convert(x, ElementType::i32);
    if (zero_point) v = ctx.op("Subtract", {v, ctx.convert(*zero_point, ElementType::i32)});
    return v;
}

// MatMulInteger's A zero point: per tensor, or per row (an M-vector for a 2-D A, [..., M, 1]
// for N-D), which a trailing axis turns into a column that broadcasts along K.
std::optional<Output> row_zero_point(NodeContext& ctx, size_t input) {
    if (!ctx.has_input(input)) return std::nullopt;
    const Output zp = ctx.input(input);
    const Shape& s = ctx.shape(zp);
    if (s.size() == 1 && s[0] != 1) return ctx.op("Unsqueeze", {zp, ctx.scalar_i64(-1)});
    return zp;
}

// B's zero point: per tensor, or per column (an N-vector, or [..., 1, N]), which broadcasts as is.
std::optional<Output> column_zero_point(NodeContext& ctx, size_t input) {
    if (!ctx.has_input(input)) return std::nullopt;
    return ctx.input(input);
}

Output integer_matmul(NodeContext& ctx, size_t a, std::optional<Output> a_zp, size_t b, std::optional<Output> b_zp) {
    return ctx.op("MatMul", {centered(ctx, ctx.input(a), a_zp), centered(ctx, ctx.input(b), b_zp)},
                  {{"transpose_a", "false"}, {"transpose_b", "false"}});
}

Outputs matmul_integer(NodeContext& ctx) {
    return {integer_matmul(ctx, 0, row_zero_point(ctx, 2), 1, column_zero_point(ctx, 3))};
}

// The scale that takes an i32 accumulator of x * w to the output's quantization:
// x_scale * w_scale / y_scale, all f32.
Output requantize_scale(NodeContext& ctx, Output x_scale, Output w_scale, Output y_scale) {
    return ctx.op("Divide", {ctx.op("Multiply", {as_f32(ctx, x_scale), as_f32(ctx, w_scale)}), as_f32(ctx, y_scale)});
}

Outputs qlinear_matmul(NodeContext& ctx) {
    const Output product = integer_matmul(ctx, 0, row_zero_point(ctx, 2), 3, column_zero_point(ctx, 5));
    // a_scale follows a_zero_point's layout (per row), b_scale b_zero_point's (per column).
    const Output a_scale = ctx.shape(ctx.input(1)).size() == 1 && ctx.shape(ctx.input(1))[0] != 1
                               ? ctx.op("Unsqueeze", {ctx.input(1), ctx.scalar_i64(-1)})
                               : ctx.input(1);
    const Output multiplier = requantize_scale(ctx, a_scale, ctx.input(4), ctx.input(6));
    const Output y_zp = as_f32(ctx, ctx.input(7));
    return {requantize(ctx, ctx.op("Multiply", {as_f32(ctx, product), multiplier}), &y_zp, ctx.type(ctx.input(7)))};
}

// ONNX Conv's attributes as Convolution's (or GroupConvolution's, reshaping the filter to
// [G, M/G, C/G, k...]) over already centred i32 operands.
Output integer_conv(NodeContext& ctx, Output x, Output w) {
    const int64_t spatial = ctx.rank(x) - 2;
    if (spatial < 1) ctx.fail("input must have rank >= 3 ([N, C, spatial...]), got shape " + to_string(ctx.shape(x)));
    const auto n = static_cast<size_t>(spatial);
    const std::vector<int64_t> strides = ctx.attr_ints("strides", std::vector<int64_t>(n, 1));
    const std::vector<int64_t> dilations = ctx.attr_ints("dilations", std::vector<int64_t>(n, 1));
    const std::vector<int64_t> pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
    if (strides.size() != n || dilations.size() != n || pads.size() != 2 * n)
        ctx.fail("strides, dilations and pads must have " + std::to_string(n) + ", " + std::to_string(n) + " and " +
                 std::to_string(2 * n) + " values for input shape " + to_string(ctx.shape(x)));
    std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
    if (auto_pad == "NOTSET") auto_pad = "explicit";
    else if (auto_pad == "SAME_UPPER") auto_pad = "same_upper";
    else if (auto_pad == "SAME_LOWER") auto_pad = "same_lower";
    else if (auto_pad == "VALID") auto_pad = "valid";
    else ctx.fail("attribute 'auto_pad' is '" + auto_pad + "' (expected NOTSET, SAME_UPPER, SAME_LOWER or VALID)");

    Attributes attrs;
    attrs.set("strides", strides);
    attrs.set("dilations", dilations);
    attrs.set("pads_begin", std::vector<int64_t>(pads.begin(), pads.begin() + spatial));
    attrs.set("pads_end", std::vector<int64_t>(pads.begin() + spatial, pads.end()));
    attrs.set("auto_pad", auto_pad);
    const int64_t group = ctx.attr_int("group", 1);
    if (group == 1) return ctx.op("Convolution", {x, w}, attrs);
    if (group < 1) ctx.fail("attribute 'group' must be positive, got " + std::to_string(group));
    std::vector<int64_t> grouped{group, -1};
    const Shape& ws = ctx.shape(w);
    grouped.insert(grouped.end(), ws.begin() + 1, ws.end());
    const Output gw = ctx.op("Reshape", {w, ctx.const_i64(grouped)}, {{"special_zero", "false"}});
    return ctx.op("GroupConvolution", {x, gw}, attrs);
}

// A per-output-channel tensor ([M]) shaped to broadcast over a filter [M, C, k...]; scalars and
// one-element tensors as they are.
Output per_channel(NodeContext& ctx, Output p, int64_t rank) { return along_axis(ctx, p, rank, 0); }

Outputs conv_integer(NodeContext& ctx) {
    const Output x = ctx.input(0), w = ctx.input(1);
    const Output cx = centered(ctx, x, ctx.has_input(2) ? std::optional<Output>(ctx.input(2)) : std::nullopt);
    const Output cw = centered(ctx, w, ctx.has_input(3) ? std::optional<Output>(per_channel(ctx, ctx.input(3), ctx.rank(w)))
                                                        : std::nullopt);
    return {integer_conv(ctx, cx, cw)};
}

Outputs qlinear_conv(NodeContext& ctx) {
    const Output x = ctx.input(0), w = ctx.input(3);
    const int64_t out_rank = ctx.rank(x);
    const Output cx = centered(ctx, x, ctx.input(2));
    const Output cw = centered(ctx, w, per_channel(ctx, ctx.input(5), ctx.rank(w)));
    Output acc = integer_conv(ctx, cx, cw);
    // The bias is i32 in the accumulator's scale, one per output channel (axis 1 of the output).
    if (ctx.has_input(8))
        acc = ctx.op("Add", {acc, along_axis(ctx, ctx.convert(ctx.input(8), ElementType::i32), out_rank, 1)});
    const Output w_scale = along_axis(ctx, ctx.input(4), out_rank, 1);
    const Output multiplier = requantize_scale(ctx, ctx.input(1), w_scale, ctx.input(6));
    const Output y_zp = as_f32(ctx, ctx.input(7));
    return {requantize(ctx, ctx.op("Multiply", {as_f32(ctx, acc), multiplier}), &y_zp, ctx.type(ctx.input(7)))};
}

const TranslatorRegistration registration({
    {"QuantizeLinear", quantize_linear},
    {"DequantizeLinear", dequantize_linear},
    {"DynamicQuantizeLinear", dynamic_quantize_linear},
    {"MatMulInteger", matmul_integer},
    {"QLinearMatMul", qlinear_matmul},
    {"ConvInteger", conv_integer},
    {"QLinearConv", qlinear_conv},
});

}  // namespace

}  // namespace mosaic::onnx_import
