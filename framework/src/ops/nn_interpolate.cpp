// Schemas of Interpolate-4 (data, sizes, scales[, axes]) and Interpolate-11 (data,
// scales_or_sizes[, axes]). The data is zero-padded by pads_begin/pads_end first; then each listed
// axis gets its size from `sizes`, or floor(padded * scale) in `scales` mode.
#include "ops/nn_ops.hpp"

namespace mosaic::ops {

namespace {

struct Ports {
    size_t sizes, scales, axes;
};

void check_modes(const InferContext& ctx, bool v11) {
    const std::string mode =
        v11 ? nn::choice_attr(ctx, "mode",
                              {"nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow"})
            : nn::choice_attr(ctx, "mode", {"nearest", "linear", "linear_onnx", "cubic"});
    ctx.check(mode.find("pillow") == std::string::npos,
              "mode '" + mode + "' is not implemented; use linear, linear_onnx, cubic or nearest");
    nn::choice_attr(ctx, "coordinate_transformation_mode",
                    {"half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners"},
                    "half_pixel");
    nn::choice_attr(ctx, "nearest_mode", {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"},
                    "round_prefer_floor");
    ctx.attrs().get_bool("antialias", false);
    ctx.attrs().get_float("cube_coeff", -0.75);
}

// pads_begin / pads_end: up to one non-negative value per axis, missing ones are zero.
std::vector<int64_t> pads_attr(const InferContext& ctx, const char* name, size_t rank) {
    std::vector<int64_t> pads = ctx.attrs().get_ints(name, {});
    ctx.check(pads.size() <= rank, std::string("attribute '") + name + "' = " + nn::join(pads) +
                                       " has more values than the data rank " + std::to_string(rank));
    for (int64_t p : pads)
        ctx.check(p >= 0, std::string("attribute '") + name + "' = " + nn::join(pads) + " must be non-negative");
    pads.resize(rank, 0);
    return pads;
}

std::vector<PortInfo> infer_interpolate(const InferContext& ctx, bool v11) {
    nn::check_numeric(ctx, 0, "data");
    check_modes(ctx, v11);
    const bool use_scales =
        nn::choice_attr(ctx, "shape_calculation_mode", {"sizes", "scales"}) == "scales";
    const Shape& data = ctx.input_shape(0);
    const size_t rank = data.size();
    const Ports ports = v11 ? Ports{1, 1, 2} : Ports{1, 2, 3};
    const bool has_axes = ctx.input_count() > ports.axes;

    if (!v11 || !use_scales) nn::check_integer(ctx, ports.sizes, "sizes");
    if (!v11 || use_scales) nn::check_floating(ctx, ports.scales, "scales");
    const char* names_v4[] = {"data", "sizes", "scales", "axes"};
    const char* names_v11[] = {"data", "scales_or_sizes", "axes"};
    for (size_t i = 1; i < ctx.input_count(); ++i) nn::check_rank(ctx, i, (v11 ? names_v11 : names_v4)[i], 1, 1);

    std::vector<int64_t> axes(rank);
    for (size_t i = 0; i < rank; ++i) axes[i] = static_cast<int64_t>(i);
    if (has_axes) {
        nn::check_integer(ctx, ports.axes, "axes");
        axes = nn::normalize_axes(ctx, ctx.const_ints(ports.axes, "axes"), static_cast<int64_t>(rank), "axes");
    }

    const auto pads_begin = pads_attr(ctx, "pads_begin", rank);
    const auto pads_end = pads_attr(ctx, "pads_end", rank);
    Shape out(rank);
    for (size_t i = 0; i < rank; ++i) out[i] = data[i] < 0 ? kDynamicDim : data[i] + pads_begin[i] + pads_end[i];

    // Sizes or scales computed when the model runs (from the shape of another tensor, as an FPN
    // upsamples to its neighbour): the resized axes are known then (data_movement_ops.hpp).
    if (!ctx.input_value(use_scales ? ports.scales : ports.sizes)) {
        for (int64_t axis : axes) out[static_cast<size_t>(axis)] = kDynamicDim;
        return {{ctx.input_type(0), out}};
    }
    if (use_scales) {
        const auto scales = ctx.const_floats(ports.scales, "scales");
        ctx.check(scales.size() == axes.size(), "scales has " + std::to_string(scales.size()) + " values but there are " +
                                                    std::to_string(axes.size()) + " axes");
        for (size_t i = 0; i < axes.size(); ++i) {
            const auto scale = static_cast<float>(scales[i]);
            ctx.check(scale > 0, "scales must be positive, got " + std::to_string(scales[i]) + " for axis " +
                                     std::to_string(axes[i]));
            int64_t& d = out[static_cast<size_t>(axes[i])];
            // Computed in float with a small epsilon exactly as OpenVINO does, so 0.333 * 3 gives 1.
            if (d >= 0 && scale != 1.0f) d = static_cast<int64_t>(static_cast<float>(d) * (scale + 1.0e-6f));
        }
    } else {
        const auto sizes = ctx.const_ints(ports.sizes, "sizes");
        ctx.check(sizes.size() == axes.size(), "sizes [" + nn::join(sizes) + "] has " + std::to_string(sizes.size()) +
                                                   " values but there are " + std::to_string(axes.size()) + " axes");
        for (size_t i = 0; i < axes.size(); ++i) {
            ctx.check(sizes[i] >= 0, "sizes [" + nn::join(sizes) + "] must be non-negative");
            out[static_cast<size_t>(axes[i])] = sizes[i];
        }
    }
    return {{ctx.input_type(0), out}};
}

}  // namespace

void register_nn_interpolate_ops(OpRegistry& r) {
    r.add({"Interpolate", {"opset4"}, 3, 4, [](const InferContext& ctx) { return infer_interpolate(ctx, false); }});
    r.add({"Interpolate", {"opset11"}, 2, 3, [](const InferContext& ctx) { return infer_interpolate(ctx, true); }});
}

}  // namespace mosaic::ops
