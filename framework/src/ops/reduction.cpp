// Schemas of the reductions. Input 1 holds the axes: a constant scalar or 1D tensor of an integer
// type with unique values in [-rank, rank-1]; empty axes mean no reduction (the identity). With
// keep_dims the reduced dims stay as 1, otherwise they are removed.
#include "ops/elementwise_ops.hpp"

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_reduction(const InferContext& ctx, bool logical) {
    const ElementType t = logical ? require_boolean(ctx, 0) : require_numeric(ctx, 0);
    const ElementType axes_type = ctx.input_type(1);
    ctx.check(is_integral(axes_type),
              std::string("input 1 (axes) must have an integer element type, got ") + to_string(axes_type));
    ctx.check(ctx.input_shape(1).size() <= 1,
              "input 1 (axes) must be a scalar or 1D tensor, got shape " + to_string(ctx.input_shape(1)));
    const bool keep_dims = bool_attr(ctx, "keep_dims", false);

    const Shape& data = ctx.input_shape(0);
    const int64_t rank = static_cast<int64_t>(data.size());
    std::vector<bool> reduced(data.size(), false);
    for (int64_t axis : ctx.const_ints(1, "axes")) {
        const size_t d = static_cast<size_t>(normalize_axis(ctx, axis, rank, "axis"));
        ctx.check(!reduced[d], "axes contain axis " + std::to_string(d) + " more than once");
        reduced[d] = true;
    }
    Shape out;
    for (size_t d = 0; d < data.size(); ++d) {
        if (!reduced[d]) out.push_back(data[d]);
        else if (keep_dims) out.push_back(1);
    }
    return {{t, out}};
}

}  // namespace

void register_reduction_ops(OpRegistry& r) {
    auto arithmetic = [](const InferContext& ctx) { return infer_reduction(ctx, false); };
    auto logical = [](const InferContext& ctx) { return infer_reduction(ctx, true); };
    for (const char* type : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"})
        r.add({type, {"opset1"}, 2, 2, arithmetic});
    for (const char* type : {"ReduceL1", "ReduceL2"}) r.add({type, {"opset4"}, 2, 2, arithmetic});
    for (const char* type : {"ReduceLogicalAnd", "ReduceLogicalOr"}) r.add({type, {"opset1"}, 2, 2, logical});
}

}  // namespace mosaic::ops
