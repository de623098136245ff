// Translator of ONNX NonMaxSuppression. Its output has as many rows as boxes survive, which only
// the values decide, while Mosaic's shapes are fixed when the model is read (OpenVINO's
// NonMaxSuppression pads a worst-case output instead, a different contract). So the selection is
// computed here when every input is known at build time, and becomes a constant; otherwise the
// node is unsupported with the wording that asks for the inputs' values.
#include "readers/onnx/onnx_node_context.hpp"

#include <algorithm>
#include <numeric>

namespace mosaic::onnx_import {

namespace {

struct Box {
    double y_min, x_min, y_max, x_max;
};

// center_point_box 0: any two opposite corners [y1, x1, y2, x2]; 1: [x_center, y_center, w, h].
Box box_at(const std::vector<double>& boxes, size_t i, bool center_point) {
    const double* b = boxes.data() + 4 * i;
    if (center_point)
        return {b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
    return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

bool overlaps_more_than(const Box& a, const Box& b, double iou_threshold) {
    const double ih = std::min(a.y_max, b.y_max) - std::max(a.y_min, b.y_min);
    const double iw = std::min(a.x_max, b.x_max) - std::max(a.x_min, b.x_min);
    if (ih <= 0 || iw <= 0) return false;
    const double area_a = (a.y_max - a.y_min) * (a.x_max - a.x_min);
    const double area_b = (b.y_max - b.y_min) * (b.x_max - b.x_min);
    const double intersection = ih * iw, union_area = area_a + area_b - intersection;
    if (area_a <= 0 || area_b <= 0 || union_area <= 0) return false;
    return intersection / union_area > iou_threshold;
}

double optional_float(NodeContext& ctx, size_t input, const char* what, double fallback) {
    if (!ctx.has_input(input)) return fallback;
    const std::vector<double> v = ctx.const_floats(input, what);
    if (v.size() != 1) ctx.fail(std::string(what) + " must hold one value, got " + std::to_string(v.size()));
    return v[0];
}

Outputs non_max_suppression(NodeContext& ctx) {
    const Shape& boxes_shape = ctx.shape(ctx.input(0));
    const Shape& scores_shape = ctx.shape(ctx.input(1));
    if (boxes_shape.size() != 3 || boxes_shape[2] != 4 || scores_shape.size() != 3 ||
        scores_shape[0] != boxes_shape[0] || scores_shape[2] != boxes_shape[1])
        ctx.fail("boxes must be [batches, boxes, 4] and scores [batches, classes, boxes], got " + to_string(boxes_shape) +
                 " and " + to_string(scores_shape));
    int64_t max_per_class = 0;
    if (ctx.has_input(2)) {
        const std::vector<int64_t> v = ctx.const_ints(2, "max_output_boxes_per_class");
        if (v.size() != 1) ctx.fail("max_output_boxes_per_class must hold one value, got " + std::to_string(v.size()));
        max_per_class = v[0];
    }
    const double iou_threshold = optional_float(ctx, 3, "iou_threshold", 0);
    const bool has_score_threshold = ctx.has_input(4);
    const double score_threshold = optional_float(ctx, 4, "score_threshold", 0);
    const std::vector<double> boxes = ctx.const_floats(0, "boxes");
    const std::vector<double> scores = ctx.const_floats(1, "scores");
    const bool center_point = ctx.attr_int("center_point_box", 0) != 0;

    const int64_t batches = boxes_shape[0], classes = scores_shape[1], count = boxes_shape[1];
    std::vector<int64_t> selected;
    for (int64_t b = 0; b < batches; ++b)
        for (int64_t c = 0; c < classes; ++c) {
            const double* s = scores.data() + (b * classes + c) * count;
            std::vector<int64_t> order;
            for (int64_t i = 0; i < count; ++i)
                if (!has_score_threshold || s[i] > score_threshold) order.push_back(i);
            // Highest score first; ties keep the lower box index first.
            std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return s[x] > s[y]; });
            std::vector<Box> kept;
            for (int64_t i : order) {
                if (static_cast<int64_t>(kept.size()) >= max_per_class) break;
                const Box box = box_at(boxes, static_cast<size_t>(b * count + i), center_point);
                if (std::any_of(kept.begin(), kept.end(), [&](const Box& k) { return overlaps_more_than(k, box, iou_threshold); }))
                    continue;
                kept.push_back(box);
                selected.insert(selected.end(), {b, c, i});
            }
        }
    return {ctx.const_i64(selected, {static_cast<int64_t>(selected.size() / 3), 3})};
}

const TranslatorRegistration registration({{"NonMaxSuppression", non_max_suppression}});

}  // namespace

}  // namespace mosaic::onnx_import
