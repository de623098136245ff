// Op schemas of the data_movement group: the registration entry point and the helpers that the
// ops/data_movement_*.cpp files share.
#include "ops/data_movement_ops.hpp"

namespace mosaic::ops {

namespace dm {

std::string list_text(const std::vector<int64_t>& values) {
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
    return out + "]";
}

void require_integer(const InferContext& ctx, size_t i, std::string_view what) {
    ctx.check(is_integral(ctx.input_type(i)), "input " + std::to_string(i) + " (" + std::string(what) +
                                                  ") must have an integer element type, got " +
                                                  to_string(ctx.input_type(i)));
}

int64_t const_scalar(const InferContext& ctx, size_t i, std::string_view what) {
    require_integer(ctx, i, what);
    const Shape& shape = ctx.input_shape(i);
    ctx.check(shape.empty() || (shape.size() == 1 && shape[0] == 1),
              "input " + std::to_string(i) + " (" + std::string(what) + ") must be a scalar, got shape " +
                  to_string(shape));
    return ctx.const_ints(i, what).at(0);
}

std::vector<int64_t> const_list(const InferContext& ctx, size_t i, std::string_view what, bool allow_scalar) {
    require_integer(ctx, i, what);
    const Shape& shape = ctx.input_shape(i);
    ctx.check(shape.size() == 1 || (allow_scalar && shape.empty()),
              "input " + std::to_string(i) + " (" + std::string(what) + ") must be a 1D tensor" +
                  (allow_scalar ? " or a scalar" : "") + ", got shape " + to_string(shape));
    return ctx.const_ints(i, what);
}

size_t computed_list_length(const InferContext& ctx, size_t i, std::string_view what) {
    require_integer(ctx, i, what);
    const Shape& shape = ctx.input_shape(i);
    const std::string name = "input " + std::to_string(i) + " (" + std::string(what) + ")";
    ctx.check(shape.size() == 1 && shape[0] >= 0,
              name + " is computed when the model runs, so its length must be static to tell the output's rank; got shape " +
                  to_string(shape));
    ctx.check(shape[0] <= kMaxComputedRank, name + " has " + std::to_string(shape[0]) + " values, giving rank " +
                                                std::to_string(shape[0]) + "; at most " +
                                                std::to_string(kMaxComputedRank) + " is supported");
    return static_cast<size_t>(shape[0]);
}

}  // namespace dm

void register_data_movement_ops(OpRegistry& r) {
    register_concat_split_ops(r);
    register_reshape_ops(r);
    register_permute_ops(r);
    register_gather_ops(r);
    register_slice_ops(r);
    register_pad_ops(r);
    register_broadcast_ops(r);
    register_shape_ops(r);
    register_scatter_ops(r);
    register_index_ops(r);
    register_einsum_ops(r);
}

}  // namespace mosaic::ops
