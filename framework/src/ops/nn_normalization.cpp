// Schemas of the normalisation ops: MVN-1 (named by opset2, the first opset holding it), MVN-6,
// BatchNormInference-1 and -5 (the same op with a different input order), NormalizeL2-1, LRN-1 and
// GroupNormalization-12 (what OpenVINO converts torch's group_norm to: PoolFormer, MobileViTV2).
// Each output has the data input's type and shape.
#include "ops/nn_ops.hpp"

namespace mosaic::ops {

namespace {

// An axes input: integer, at most 1-D, known at build time, each axis valid and named once.
std::vector<int64_t> axes_input(const InferContext& ctx, size_t input, int64_t rank) {
    nn::check_integer(ctx, input, "axes");
    nn::check_rank(ctx, input, "axes", 0, 1);
    return nn::normalize_axes(ctx, ctx.const_ints(input, "axes"), rank, "axes");
}

std::vector<PortInfo> infer_mvn_6(const InferContext& ctx) {
    nn::check_floating(ctx, 0, "data");
    axes_input(ctx, 1, static_cast<int64_t>(ctx.input_shape(0).size()));
    ctx.attrs().get_bool("normalize_variance");
    ctx.attrs().get_float("eps");
    nn::choice_attr(ctx, "eps_mode", {"inside_sqrt", "outside_sqrt"});
    return {ctx.input(0)};
}

std::vector<PortInfo> infer_mvn_1(const InferContext& ctx) {
    nn::check_floating(ctx, 0, "data");
    const int64_t rank = static_cast<int64_t>(ctx.input_shape(0).size());
    ctx.attrs().get_float("eps");
    ctx.attrs().get_bool("normalize_variance", false);
    ctx.attrs().get_bool("across_channels", false);
    const auto axes = ctx.attrs().get_ints("reduction_axes", {});
    if (axes.empty()) nn::check_rank(ctx, 0, "data", 2);
    nn::normalize_axes(ctx, axes, rank, "attribute 'reduction_axes'");
    return {ctx.input(0)};
}

std::vector<PortInfo> infer_batch_norm(const InferContext& ctx, bool data_first) {
    const size_t data = data_first ? 0 : 2;
    const char* names[5] = {"gamma", "beta", "data", "mean", "variance"};
    const size_t order[5] = {data_first ? 1u : 0u, data_first ? 2u : 1u, data, 3, 4};  // input of each name
    nn::check_floating(ctx, data, "data");
    nn::check_rank(ctx, data, "data", 2);
    const int64_t channels = ctx.input_shape(data)[1];
    for (size_t k = 0; k < 5; ++k) {
        const size_t i = order[k];
        if (i == data) continue;
        nn::check_same_type(ctx, data, i);
        nn::check_rank(ctx, i, names[k], 1, 1);
        const int64_t c = ctx.input_shape(i)[0];
        ctx.check(c < 0 || channels < 0 || c == channels,
                  std::string(names[k]) + " has shape " + to_string(ctx.input_shape(i)) + " but data " +
                      to_string(ctx.input_shape(data)) + " has " + std::to_string(channels) + " channels");
    }
    const double eps = ctx.attrs().get_float("epsilon");
    ctx.check(eps >= 0, "attribute 'epsilon' must be non-negative, got " + std::to_string(eps));
    return {ctx.input(data)};
}

// GroupNormalization-12: data [N, C, ...], scale and bias [C]; num_groups divides C.
std::vector<PortInfo> infer_group_normalization(const InferContext& ctx) {
    nn::check_floating(ctx, 0, "data");
    nn::check_rank(ctx, 0, "data", 2);
    const int64_t channels = ctx.input_shape(0)[1];
    const char* names[2] = {"scale", "bias"};
    for (size_t i = 1; i < 3; ++i) {
        nn::check_same_type(ctx, 0, i);
        nn::check_rank(ctx, i, names[i - 1], 1, 1);
        const int64_t c = ctx.input_shape(i)[0];
        ctx.check(c < 0 || channels < 0 || c == channels, std::string(names[i - 1]) + " has shape " +
                                                              to_string(ctx.input_shape(i)) + " but data " +
                                                              to_string(ctx.input_shape(0)) + " has " +
                                                              std::to_string(channels) + " channels");
    }
    const int64_t groups = ctx.attrs().get_int("num_groups");
    ctx.check(groups > 0, "attribute 'num_groups' must be positive, got " + std::to_string(groups));
    ctx.check(channels < 0 || channels % groups == 0, "attribute 'num_groups' " + std::to_string(groups) +
                                                          " does not divide the data's " + std::to_string(channels) +
                                                          " channels");
    const double eps = ctx.attrs().get_float("epsilon");
    ctx.check(eps >= 0, "attribute 'epsilon' must be non-negative, got " + std::to_string(eps));
    return {ctx.input(0)};
}

std::vector<PortInfo> infer_normalize_l2(const InferContext& ctx) {
    nn::check_floating(ctx, 0, "data");
    axes_input(ctx, 1, static_cast<int64_t>(ctx.input_shape(0).size()));
    ctx.attrs().get_float("eps");
    nn::choice_attr(ctx, "eps_mode", {"add", "max"});
    return {ctx.input(0)};
}

std::vector<PortInfo> infer_lrn(const InferContext& ctx) {
    nn::check_floating(ctx, 0, "data");
    axes_input(ctx, 1, static_cast<int64_t>(ctx.input_shape(0).size()));
    ctx.attrs().get_float("alpha");
    ctx.attrs().get_float("beta");
    ctx.attrs().get_float("bias");
    const int64_t size = ctx.attrs().get_int("size");
    ctx.check(size > 0, "attribute 'size' must be positive, got " + std::to_string(size));
    return {ctx.input(0)};
}

}  // namespace

void register_nn_normalization_ops(OpRegistry& r) {
    r.add({"MVN", {"opset2"}, 1, 1, infer_mvn_1});
    r.add({"MVN", {"opset6"}, 2, 2, infer_mvn_6});
    r.add({"BatchNormInference", {"opset1"}, 5, 5,
           [](const InferContext& ctx) { return infer_batch_norm(ctx, false); }});
    r.add({"BatchNormInference", {"opset5"}, 5, 5,
           [](const InferContext& ctx) { return infer_batch_norm(ctx, true); }});
    r.add({"NormalizeL2", {"opset1"}, 2, 2, infer_normalize_l2});
    r.add({"LRN", {"opset1"}, 2, 2, infer_lrn});
    r.add({"GroupNormalization", {"opset12"}, 3, 3, infer_group_normalization});
}

}  // namespace mosaic::ops
