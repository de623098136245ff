// Schemas of MaxPool-1, MaxPool-8 (dilations, a second output with the argmax indices) and
// AvgPool-1 over data [N, C, spatial...]; MaxPool-14 and AvgPool-14, the same with the rounding
// type ceil_torch, which OpenVINO's PyTorch front end writes for every max and average pooling;
// AvgPool-16, AvgPool-14 with dilations, which its ONNX front end writes.
#include "ops/nn_ops.hpp"

namespace mosaic::ops {

namespace {

using nn::AutoPad;

Shape pooled_shape(const InferContext& ctx, bool with_dilations, bool with_torch_rounding) {
    nn::check_rank(ctx, 0, "data", 3);
    const Shape& data = ctx.input_shape(0);
    const size_t n = data.size() - 2;
    const auto kernel = nn::spatial_attr(ctx, "kernel", n, 1);
    const auto strides = nn::spatial_attr(ctx, "strides", n, 1);
    const auto dilations =
        with_dilations ? nn::spatial_attr(ctx, "dilations", n, 1, 1) : std::vector<int64_t>(n, 1);
    const nn::Rounding rounding = nn::rounding_attr(ctx, with_torch_rounding);
    const AutoPad auto_pad = nn::auto_pad_attr(ctx);
    const Shape in_spatial(data.begin() + 2, data.end());
    const nn::Padding pads = nn::forward_padding(ctx, auto_pad, in_spatial, kernel, strides, dilations);

    Shape out{data[0], data[1]};
    for (size_t i = 0; i < n; ++i)
        out.push_back(nn::window_output_dim(ctx, in_spatial[i], pads.begin[i], pads.end[i], kernel[i], strides[i],
                                            dilations[i], rounding, i));
    return out;
}

std::vector<PortInfo> infer_max_pool_1(const InferContext& ctx) {
    nn::check_numeric(ctx, 0, "data");
    return {{ctx.input_type(0), pooled_shape(ctx, false, false)}};
}

// MaxPool-8 and MaxPool-14 (`torch_rounding`).
std::vector<PortInfo> infer_max_pool_with_indices(const InferContext& ctx, bool torch_rounding) {
    nn::check_numeric(ctx, 0, "data");
    const Shape out = pooled_shape(ctx, true, torch_rounding);
    const std::string index_name = ctx.attrs().get_string("index_element_type", "i64");
    const ElementType index_type = element_type_from_string(index_name);
    ctx.check(index_type == ElementType::i32 || index_type == ElementType::i64,
              "attribute 'index_element_type' must be i32 or i64, got '" + index_name + "'");
    normalize_axis(ctx, ctx.attrs().get_int("axis", 0), static_cast<int64_t>(out.size()), "attribute 'axis'");
    return {{ctx.input_type(0), out}, {index_type, out}};
}

// AvgPool-1, AvgPool-14 (`torch_rounding`) and AvgPool-16 (and `dilated`).
std::vector<PortInfo> infer_avg_pool(const InferContext& ctx, bool torch_rounding, bool dilated) {
    nn::check_floating(ctx, 0, "data");
    ctx.attrs().get_bool("exclude-pad");  // required, validated here so the kernel can rely on it
    return {{ctx.input_type(0), pooled_shape(ctx, dilated, torch_rounding)}};
}

}  // namespace

void register_nn_pooling_ops(OpRegistry& r) {
    r.add({"MaxPool", {"opset1"}, 1, 1, infer_max_pool_1});
    r.add({"MaxPool", {"opset8"}, 1, 1, [](const InferContext& ctx) { return infer_max_pool_with_indices(ctx, false); }});
    r.add({"MaxPool", {"opset14"}, 1, 1, [](const InferContext& ctx) { return infer_max_pool_with_indices(ctx, true); }});
    r.add({"AvgPool", {"opset1"}, 1, 1, [](const InferContext& ctx) { return infer_avg_pool(ctx, false, false); }});
    r.add({"AvgPool", {"opset14"}, 1, 1, [](const InferContext& ctx) { return infer_avg_pool(ctx, true, false); }});
    r.add({"AvgPool", {"opset16"}, 1, 1, [](const InferContext& ctx) { return infer_avg_pool(ctx, true, true); }});
}

}  // namespace mosaic::ops
