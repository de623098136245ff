// Schemas of TopK-1, TopK-3 and TopK-11 (which adds `stable`): the k largest or smallest elements
// along an axis, with their indices. Both outputs have the data shape with the axis resized to k.
#include "ops/nn_ops.hpp"

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_topk(const InferContext& ctx, bool v11) {
    nn::check_numeric(ctx, 0, "data");
    nn::check_rank(ctx, 0, "data", 1);
    nn::check_integer(ctx, 1, "k");
    const Shape& k_shape = ctx.input_shape(1);
    ctx.check(k_shape.empty() || (k_shape.size() == 1 && k_shape[0] == 1),
              "k must be a scalar, got shape " + to_string(k_shape));

    Shape out = ctx.input_shape(0);
    const int64_t axis =
        normalize_axis(ctx, ctx.attrs().get_int("axis"), static_cast<int64_t>(out.size()), "attribute 'axis'");
    nn::choice_attr(ctx, "mode", {"max", "min"});
    nn::choice_attr(ctx, "sort", {"value", "index", "none"});
    if (v11) ctx.attrs().get_bool("stable", false);
    const std::string index_name = ctx.attrs().get_string("index_element_type", "i32");
    const ElementType index_type = element_type_from_string(index_name);
    ctx.check(index_type == ElementType::i32 || index_type == ElementType::i64,
              "attribute 'index_element_type' must be i32 or i64, got '" + index_name + "'");

    int64_t& dim = out[static_cast<size_t>(axis)];
    // A k computed when the model runs: the axis is known then (the framework runs the model in
    // stages around such an op, cut_model.hpp).
    if (!ctx.input_value(1)) {
        dim = kDynamicDim;
        return {{ctx.input_type(0), out}, {index_type, out}};
    }
    const int64_t k = ctx.const_ints(1, "k").at(0);
    ctx.check(k >= 0, "k must be non-negative, got " + std::to_string(k));
    ctx.check(dim < 0 || k <= dim, "k = " + std::to_string(k) + " exceeds the size " + std::to_string(dim) +
                                       " of axis " + std::to_string(axis) + " of data shape " +
                                       to_string(ctx.input_shape(0)));
    dim = k;
    return {{ctx.input_type(0), out}, {index_type, out}};
}

}  // namespace

void register_nn_topk_ops(OpRegistry& r) {
    r.add({"TopK", {"opset1", "opset3"}, 2, 2, [](const InferContext& ctx) { return infer_topk(ctx, false); }});
    r.add({"TopK", {"opset11"}, 2, 2, [](const InferContext& ctx) { return infer_topk(ctx, true); }});
}

}  // namespace mosaic::ops
