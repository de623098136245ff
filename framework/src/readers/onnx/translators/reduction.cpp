// Translators of the ONNX reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd,
// ReduceL1 and ReduceL2 map onto the Mosaic op of the same name; ReduceSumSquare, ReduceLogSum and
// ReduceLogSumExp are decomposed as OpenVINO's ONNX frontend does (LogSumExp with the maximum
// subtracted first, so that large inputs do not overflow).
//
// The axes moved from an attribute to an optional input in opset 13 for ReduceSum and in opset 18
// for the others; noop_with_empty_axes came with the input. Absent or empty axes reduce over every
// axis unless noop_with_empty_axes is set; then they reduce nothing, so each element is reduced
// alone (x for ReduceSum, x*x for ReduceSumSquare, log(x) for ReduceLogSum, ...), as the ONNX
// reference does. Reducing over a zero-size axis gives the reduction's identity (0 for sums, 1 for
// products, -inf for ReduceMax, -inf for the logarithms of sums), which the Mosaic kernels produce.
#include "readers/onnx/onnx_node_context.hpp"

#include <limits>
#include <numeric>

namespace mosaic::onnx_import {

namespace {

struct Reduction {
    std::vector<int64_t> axes;  // empty: reduce nothing
    bool keep_dims = true;
};

// The opset from which the op takes its axes as input 1 instead of an attribute.
int64_t axes_input_opset(const std::string& op_type) { return op_type == "ReduceSum" ? 13 : 18; }

Reduction reduction_of(NodeContext& ctx, const Output& x) {
    Reduction r;
    r.keep_dims = ctx.attr_int("keepdims", 1) != 0;
    bool noop_with_empty_axes = false;
    if (ctx.opset() >= axes_input_opset(ctx.op_type())) {
        if (ctx.has_attr("axes"))
            ctx.fail("has attribute 'axes', which opset " + std::to_string(ctx.opset()) +
                     " replaced by input 1; give the axes as an input");
        if (ctx.has_input(1)) r.axes = ctx.const_ints(1, "axes");
        noop_with_empty_axes = ctx.attr_int("noop_with_empty_axes", 0) != 0;
    } else {
        r.axes = ctx.attr_ints("axes");
    }
    if (r.axes.empty() && !noop_with_empty_axes) {
        r.axes.resize(static_cast<size_t>(ctx.rank(x)));
        std::iota(r.axes.begin(), r.axes.end(), 0);
    }
    const int64_t rank = ctx.rank(x);
    for (int64_t& axis : r.axes) {
        if (axis < -rank || axis >= rank)
            ctx.fail("axis " + std::to_string(axis) + " is out of range for input shape " + to_string(ctx.shape(x)));
        if (axis < 0) axis += rank;
    }
    return r;
}

Output reduce(NodeContext& ctx, const std::string& type, const Output& x, const Reduction& r, bool keep_dims) {
    return ctx.op(type, {x, ctx.const_i64(r.axes)}, {{"keep_dims", keep_dims ? "true" : "false"}});
}

// The logarithms have no integer form: integer inputs are reduced in f64 and converted back
// (truncating), as the ONNX reference casts numpy's float result to the input type.
Output as_floating(NodeContext& ctx, const Output& x) {
    return is_floating(ctx.type(x)) ? x : ctx.convert(x, ElementType::f64);
}

Translator direct(const char* mosaic_type) {
    return [mosaic_type](NodeContext& ctx) -> Outputs {
        const Output x = ctx.input(0);
        const Reduction r = reduction_of(ctx, x);
        return {reduce(ctx, mosaic_type, x, r, r.keep_dims)};
    };
}

Outputs reduce_sum_square(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const Reduction r = reduction_of(ctx, x);
    return {reduce(ctx, "ReduceSum", ctx.op("Multiply", {x, x}), r, r.keep_dims)};
}

Outputs reduce_log_sum(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const Reduction r = reduction_of(ctx, x);
    const Output sum = ctx.op("Log", {reduce(ctx, "ReduceSum", as_floating(ctx, x), r, r.keep_dims)});
    return {ctx.convert(sum, ctx.type(x))};
}

// log(sum(exp(x))) = m + log(sum(exp(x - m))) with m the maximum. An infinite m (all -inf, an
// empty set, or +inf present) is replaced by 0 so that x - m does not produce NaN from inf - inf.
Outputs reduce_log_sum_exp(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const Reduction r = reduction_of(ctx, x);
    const Output xf = as_floating(ctx, x);
    const ElementType t = ctx.type(xf);
    const Output max = reduce(ctx, "ReduceMax", xf, r, true);
    const Output finite = ctx.op("Less", {ctx.op("Abs", {max}), ctx.scalar_of(t, std::numeric_limits<double>::infinity())});
    const Output shift = ctx.op("Select", {finite, max, ctx.scalar_of(t, 0)});
    const Output sum = reduce(ctx, "ReduceSum", ctx.op("Exp", {ctx.op("Subtract", {xf, shift})}), r, true);
    Output y = ctx.op("Add", {ctx.op("Log", {sum}), shift});
    if (!r.keep_dims && !r.axes.empty()) y = ctx.op("Squeeze", {y, ctx.const_i64(r.axes)});
    return {ctx.convert(y, ctx.type(x))};
}

const TranslatorRegistration registration({
    {"ReduceSum", direct("ReduceSum")},
    {"ReduceMean", direct("ReduceMean")},
    {"ReduceMax", direct("ReduceMax")},
    {"ReduceMin", direct("ReduceMin")},
    {"ReduceProd", direct("ReduceProd")},
    {"ReduceL1", direct("ReduceL1")},
    {"ReduceL2", direct("ReduceL2")},
    {"ReduceSumSquare", reduce_sum_square},
    {"ReduceLogSum", reduce_log_sum},
    {"ReduceLogSumExp", reduce_log_sum_exp},
});

}  // namespace

}  // namespace mosaic::onnx_import
