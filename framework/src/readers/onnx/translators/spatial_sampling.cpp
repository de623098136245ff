// Translators of ONNX ops that sample a feature map at computed positions: GridSample onto
// GridSample-9 and RoiAlign onto ROIAlign-9, as OpenVINO's ONNX frontend maps them.
#include "readers/onnx/onnx_node_context.hpp"

#include <string>

namespace mosaic::onnx_import {

namespace {

// Opset 20 renamed bilinear and bicubic to linear and cubic (and went N-D, which GridSample-9
// is not); both spellings map to GridSample-9's.
Outputs grid_sample(NodeContext& ctx) {
    const Output data = ctx.input(0);
    if (ctx.rank(data) != 4)
        ctx.unsupported("only 4-D input (N, C, H, W) is supported, got shape " + to_string(ctx.shape(data)));
    std::string mode = ctx.attr_string("mode", "bilinear");
    if (mode == "linear") mode = "bilinear";
    else if (mode == "cubic") mode = "bicubic";
    if (mode != "bilinear" && mode != "bicubic" && mode != "nearest")
        ctx.fail("attribute 'mode' is '" + mode + "' (expected bilinear, bicubic or nearest)");
    const std::string padding = ctx.attr_string("padding_mode", "zeros");
    if (padding != "zeros" && padding != "border" && padding != "reflection")
        ctx.fail("attribute 'padding_mode' is '" + padding + "' (expected zeros, border or reflection)");
    return {ctx.op("GridSample", {data, ctx.input(1)},
                   {{"align_corners", ctx.attr_int("align_corners", 0) ? "true" : "false"},
                    {"mode", mode},
                    {"padding_mode", padding}})};
}

// ONNX's half_pixel shifts the scaled ROI by -0.5 pixel, which ROIAlign-9 calls half_pixel_for_nn;
// output_half_pixel (and opset 10, which predates the attribute) is ROIAlign's asymmetric.
Outputs roi_align(NodeContext& ctx) {
    const std::string transform =
        ctx.attr_string("coordinate_transformation_mode", ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
    std::string aligned_mode;
    if (transform == "half_pixel") aligned_mode = "half_pixel_for_nn";
    else if (transform == "output_half_pixel") aligned_mode = "asymmetric";
    else ctx.fail("attribute 'coordinate_transformation_mode' is '" + transform + "' (expected half_pixel or output_half_pixel)");
    const std::string mode = ctx.attr_string("mode", "avg");
    if (mode == "max")
        ctx.unsupported("mode 'max' is not supported: ONNX takes the largest weighted corner of each sample, "
                        "ROIAlign the largest interpolated sample");
    if (mode != "avg") ctx.fail("attribute 'mode' is '" + mode + "' (expected avg or max)");
    Attributes attrs;
    attrs.set("pooled_h", ctx.attr_int("output_height", 1));
    attrs.set("pooled_w", ctx.attr_int("output_width", 1));
    attrs.set("sampling_ratio", ctx.attr_int("sampling_ratio", 0));
    attrs.set("spatial_scale", ctx.attr_float("spatial_scale", 1.0));
    attrs.set("mode", mode);
    attrs.set("aligned_mode", aligned_mode);
    return {ctx.op("ROIAlign", {ctx.input(0), ctx.input(1), ctx.input(2)}, attrs, "opset9")};
}

const TranslatorRegistration registration({
    {"GridSample", grid_sample},
    {"RoiAlign", roi_align},
});

}  // namespace

}  // namespace mosaic::onnx_import
