// Schema of NonMaxSuppression-mosaic1: ONNX's NonMaxSuppression (OpenVINO's NonMaxSuppression pads
// a worst-case output or sorts across classes instead, another contract). Inputs boxes [B, N, 4],
// scores [B, C, N] (floating), and optionally max_output_boxes_per_class (integer), iou_threshold
// and score_threshold (floating), each one value; attribute center_point_box (0 or 1). Output
// selected_indices [M, 3] i64, one (batch, class, box) row per box selected: M is known when the
// inputs' values are (the framework then folds the op, or runs it between the stages of a model
// that computes its boxes, cut_model.hpp), else dynamic.
#include "ops/nn_ops.hpp"

#include <mosaic/reference/detection.hpp>

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_non_max_suppression(const InferContext& ctx) {
    nn::check_floating(ctx, 0, "boxes");
    nn::check_floating(ctx, 1, "scores");
    nn::check_rank(ctx, 0, "boxes", 3, 3);  // [batches, boxes, 4]
    nn::check_rank(ctx, 1, "scores", 3, 3);  // [batches, classes, boxes]
    const Shape &boxes = ctx.input_shape(0), &scores = ctx.input_shape(1);
    const bool dynamic = boxes.size() != 3 || scores.size() != 3 || !is_static(boxes) || !is_static(scores);
    if (!dynamic) ctx.check(reference::nms_shape_error(boxes, scores).empty(), reference::nms_shape_error(boxes, scores));
    const char* names[] = {"boxes", "scores", "max_output_boxes_per_class", "iou_threshold", "score_threshold"};
    for (size_t i = 2; i < ctx.input_count(); ++i) {
        ctx.check(shape_size(ctx.input_shape(i)) == 1 || !is_static(ctx.input_shape(i)),
                  std::string(names[i]) + " must hold one value, got shape " + to_string(ctx.input_shape(i)));
        if (i == 2) ctx.check(is_integral(ctx.input_type(i)), "max_output_boxes_per_class must be an integer");
        else nn::check_floating(ctx, i, names[i]);
    }
    const int64_t center = ctx.attrs().get_int("center_point_box", 0);
    ctx.check(center == 0 || center == 1, "center_point_box must be 0 or 1, got " + std::to_string(center));
    // How many boxes survive is known only with every input's value.
    for (size_t i = 0; i < ctx.input_count(); ++i)
        if (dynamic || !ctx.input_value(i)) return {{ElementType::i64, Shape{kDynamicDim, 3}}};
    reference::NmsSettings s;
    if (ctx.input_count() > 2) s.max_per_class = ctx.const_ints(2, names[2]).at(0);
    if (ctx.input_count() > 3) s.iou_threshold = ctx.const_floats(3, names[3]).at(0);
    if (ctx.input_count() > 4) s.score_threshold = ctx.const_floats(4, names[4]).at(0);
    s.center_point = center == 1;
    const std::vector<int64_t> selected = reference::select_boxes(ctx.input_value(0)->as_floats(), ctx.input_value(1)->as_floats(),
                                                                  boxes[0], scores[1], boxes[1], s);
    return {{ElementType::i64, Shape{static_cast<int64_t>(selected.size() / 3), 3}}};
}

}  // namespace

void register_nn_detection_ops(OpRegistry& r) {
    r.add({"NonMaxSuppression", {"mosaic1"}, 2, 5, infer_non_max_suppression});
}

}  // namespace mosaic::ops
