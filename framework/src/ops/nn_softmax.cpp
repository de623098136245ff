// Schemas of Softmax-1 (axis in [0, rank)), Softmax-8 and LogSoftmax-5 (axis in [-rank, rank)).
// The output has the input's type and shape.
#include "ops/nn_ops.hpp"

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_softmax(const InferContext& ctx, bool negative_axis) {
    nn::check_floating(ctx, 0, "data");
    nn::check_rank(ctx, 0, "data", 1);
    const int64_t rank = static_cast<int64_t>(ctx.input_shape(0).size());
    const int64_t axis = ctx.attrs().get_int("axis", 1);
    if (!negative_axis)
        ctx.check(axis >= 0, "attribute 'axis' " + std::to_string(axis) +
                                 " must be non-negative in this version (use Softmax-8 for negative axes)");
    normalize_axis(ctx, axis, rank, "attribute 'axis'");
    return {ctx.input(0)};
}

}  // namespace

void register_nn_softmax_ops(OpRegistry& r) {
    r.add({"Softmax", {"opset1"}, 1, 1, [](const InferContext& ctx) { return infer_softmax(ctx, false); }});
    r.add({"Softmax", {"opset8"}, 1, 1, [](const InferContext& ctx) { return infer_softmax(ctx, true); }});
    r.add({"LogSoftmax", {"opset5"}, 1, 1, [](const InferContext& ctx) { return infer_softmax(ctx, true); }});
}

}  // namespace mosaic::ops
