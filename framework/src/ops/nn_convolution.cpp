// Schemas of Convolution, GroupConvolution and their transposed forms (ConvolutionBackpropData,
// GroupConvolutionBackpropData), N-D over any number of spatial axes.
//
// Layouts: data [N, C, spatial...]; filters [C_out, C_in, k...] (forward), [C_in, C_out, k...]
// (backprop); the grouped forms add a leading group axis G with per-group channel counts.
#include "ops/nn_ops.hpp"

namespace mosaic::ops {

namespace {

using nn::AutoPad;

int64_t mul_dims(int64_t a, int64_t b) { return a < 0 || b < 0 ? kDynamicDim : a * b; }

// The parts of a filter shape, whatever the op: groups, per-group in/out channels, kernel.
struct FilterLayout {
    int64_t groups = 1, in_per_group = 0, out_per_group = 0;
    std::vector<int64_t> kernel;
};

FilterLayout filter_layout(const InferContext& ctx, bool grouped, bool backprop) {
    const Shape& data = ctx.input_shape(0);
    const Shape& filter = ctx.input_shape(1);
    const size_t expected_rank = data.size() + (grouped ? 1 : 0);
    ctx.check(filter.size() == expected_rank,
              "filter shape " + to_string(filter) + " must have rank " + std::to_string(expected_rank) +
                  " for data shape " + to_string(data) +
                  (grouped ? " ([G, C_out/G, C_in/G, k...] or [G, C_in/G, C_out/G, k...])" : ""));
    FilterLayout f;
    const size_t off = grouped ? 1 : 0;
    if (grouped) f.groups = filter[0];
    f.in_per_group = backprop ? filter[off] : filter[off + 1];
    f.out_per_group = backprop ? filter[off + 1] : filter[off];
    f.kernel.assign(filter.begin() + static_cast<std::ptrdiff_t>(off + 2), filter.end());
    for (int64_t k : f.kernel) ctx.check(k != 0, "filter shape " + to_string(filter) + " has an empty kernel axis");
    ctx.check(f.groups != 0, "filter shape " + to_string(filter) + " has zero groups");

    const int64_t expected_channels = mul_dims(f.groups, f.in_per_group);
    ctx.check(data[1] < 0 || expected_channels < 0 || data[1] == expected_channels,
              "data channels (" + std::to_string(data[1]) + " in data shape " + to_string(data) +
                  ") do not match the filter's input channels (" + std::to_string(expected_channels) +
                  " from filter shape " + to_string(filter) + ")");
    return f;
}

void check_common_inputs(const InferContext& ctx) {
    nn::check_numeric(ctx, 0, "data");
    nn::check_same_type(ctx, 0, 1);
    nn::check_rank(ctx, 0, "data", 3);
}

std::vector<PortInfo> infer_convolution(const InferContext& ctx, bool grouped) {
    check_common_inputs(ctx);
    const Shape& data = ctx.input_shape(0);
    const FilterLayout f = filter_layout(ctx, grouped, false);
    const size_t n = data.size() - 2;
    const auto strides = nn::spatial_attr(ctx, "strides", n, 1);
    const auto dilations = nn::spatial_attr(ctx, "dilations", n, 1, 1);
    const AutoPad auto_pad = nn::auto_pad_attr(ctx);
    const Shape in_spatial(data.begin() + 2, data.end());

    Shape out{data[0], mul_dims(f.groups, f.out_per_group)};
    const nn::Padding pads = nn::forward_padding(ctx, auto_pad, in_spatial, f.kernel, strides, dilations);
    for (size_t i = 0; i < n; ++i) {
        if (in_spatial[i] < 0 || f.kernel[i] < 0) {
            out.push_back(kDynamicDim);
        } else if (auto_pad == AutoPad::same_upper || auto_pad == AutoPad::same_lower) {
            out.push_back((in_spatial[i] + strides[i] - 1) / strides[i]);
        } else {
            out.push_back(nn::window_output_dim(ctx, in_spatial[i], pads.begin[i], pads.end[i], f.kernel[i],
                                                strides[i], dilations[i], nn::Rounding::floor, i));
        }
    }
    return {{ctx.input_type(0), out}};
}

std::vector<PortInfo> infer_backprop(const InferContext& ctx, bool grouped) {
    check_common_inputs(ctx);
    const Shape& data = ctx.input_shape(0);
    const FilterLayout f = filter_layout(ctx, grouped, true);
    const size_t n = data.size() - 2;
    const auto strides = nn::spatial_attr(ctx, "strides", n, 1);
    const auto dilations = nn::spatial_attr(ctx, "dilations", n, 1, 1);
    const auto output_padding = nn::spatial_attr(ctx, "output_padding", n, 0, 0);
    const AutoPad auto_pad = nn::auto_pad_attr(ctx);

    Shape out{data[0], mul_dims(f.groups, f.out_per_group)};
    if (ctx.input_count() == 3) {
        nn::check_integer(ctx, 2, "output_shape");
        nn::check_rank(ctx, 2, "output_shape", 1, 1);
        const auto spatial = ctx.const_ints(2, "output_shape");
        ctx.check(spatial.size() == n, "output_shape [" + nn::join(spatial) + "] must have one value per spatial axis (" +
                                           std::to_string(n) + ")");
        for (int64_t d : spatial)
            ctx.check(d > 0, "output_shape [" + nn::join(spatial) + "] must be positive");
        out.insert(out.end(), spatial.begin(), spatial.end());
        return {{ctx.input_type(0), out}};
    }

    // Without output_shape, same_* and valid both mean no padding.
    std::vector<int64_t> pads_begin(n, 0), pads_end(n, 0);
    if (auto_pad == AutoPad::explicit_pads) {
        pads_begin = nn::spatial_attr(ctx, "pads_begin", n, 0);
        pads_end = nn::spatial_attr(ctx, "pads_end", n, 0);
    }
    for (size_t i = 0; i < n; ++i) {
        const int64_t in = data[i + 2], k = f.kernel[i];
        if (in < 0 || k < 0) {
            out.push_back(kDynamicDim);
            continue;
        }
        const int64_t dim = strides[i] * (in - 1) + dilations[i] * (k - 1) + 1 - pads_begin[i] - pads_end[i] +
                            output_padding[i];
        ctx.check(dim > 0, "output spatial axis " + std::to_string(i) + " would have size " + std::to_string(dim) +
                               " (input " + std::to_string(in) + ", kernel " + std::to_string(k) + ", pads " +
                               std::to_string(pads_begin[i]) + "/" + std::to_string(pads_end[i]) + ")");
        out.push_back(dim);
    }
    return {{ctx.input_type(0), out}};
}

}  // namespace

void register_nn_convolution_ops(OpRegistry& r) {
    r.add({"Convolution", {"opset1"}, 2, 2, [](const InferContext& ctx) { return infer_convolution(ctx, false); }});
    r.add({"GroupConvolution", {"opset1"}, 2, 2,
           [](const InferContext& ctx) { return infer_convolution(ctx, true); }});
    r.add({"ConvolutionBackpropData", {"opset1"}, 2, 3,
           [](const InferContext& ctx) { return infer_backprop(ctx, false); }});
    r.add({"GroupConvolutionBackpropData", {"opset1"}, 2, 3,
           [](const InferContext& ctx) { return infer_backprop(ctx, true); }});
}

}  // namespace mosaic::ops
