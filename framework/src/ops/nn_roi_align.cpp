// Schemas of ROIAlign-3 and ROIAlign-9 (which adds aligned_mode): average or max pooling of
// data [N, C, H, W] over each region of interest rois[r] = (x1, y1, x2, y2) of image
// batch_indices[r], sampled bilinearly, giving [NUM_ROIS, C, pooled_h, pooled_w].
#include "ops/nn_ops.hpp"

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_roi_align(const InferContext& ctx, bool v9) {
    nn::check_floating(ctx, 0, "data");
    nn::check_floating(ctx, 1, "rois");
    nn::check_integer(ctx, 2, "batch_indices");
    nn::check_rank(ctx, 0, "data", 4, 4);
    nn::check_rank(ctx, 1, "rois", 2, 2);
    nn::check_rank(ctx, 2, "batch_indices", 1, 1);
    const Shape& rois = ctx.input_shape(1);
    const Shape& indices = ctx.input_shape(2);
    ctx.check(rois[1] < 0 || rois[1] == 4, "rois shape " + to_string(rois) + " must be [NUM_ROIS, 4]");
    ctx.check(rois[0] < 0 || indices[0] < 0 || rois[0] == indices[0],
              "batch_indices shape " + to_string(indices) + " must have one index per ROI (rois shape " +
                  to_string(rois) + ")");
    const int64_t pooled_h = ctx.attrs().get_int("pooled_h"), pooled_w = ctx.attrs().get_int("pooled_w");
    ctx.check(pooled_h > 0 && pooled_w > 0, "attributes 'pooled_h' (" + std::to_string(pooled_h) + ") and 'pooled_w' (" +
                                                std::to_string(pooled_w) + ") must be positive");
    const int64_t sampling_ratio = ctx.attrs().get_int("sampling_ratio");
    ctx.check(sampling_ratio >= 0, "attribute 'sampling_ratio' must be non-negative, got " + std::to_string(sampling_ratio));
    const double spatial_scale = ctx.attrs().get_float("spatial_scale");
    ctx.check(spatial_scale > 0, "attribute 'spatial_scale' must be positive, got " +
                                     Attributes::format_float(spatial_scale));
    nn::choice_attr(ctx, "mode", {"avg", "max"});
    if (v9) nn::choice_attr(ctx, "aligned_mode", {"asymmetric", "half_pixel_for_nn", "half_pixel"}, "asymmetric");
    const int64_t num_rois = rois[0] >= 0 ? rois[0] : indices[0];
    return {{ctx.input_type(0), {num_rois, ctx.input_shape(0)[1], pooled_h, pooled_w}}};
}

}  // namespace

void register_nn_roi_align_ops(OpRegistry& r) {
    r.add({"ROIAlign", {"opset3"}, 3, 3, [](const InferContext& ctx) { return infer_roi_align(ctx, false); }});
    r.add({"ROIAlign", {"opset9"}, 3, 3, [](const InferContext& ctx) { return infer_roi_align(ctx, true); }});
}

}  // namespace mosaic::ops
