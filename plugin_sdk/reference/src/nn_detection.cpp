// Reference kernel of NonMaxSuppression-mosaic1 (ONNX's semantics) and the selection it shares with
// the op's shape inference (mosaic/reference/detection.hpp).
#include "nn_kernels.hpp"

#include <mosaic/reference/detection.hpp>

#include <algorithm>
#include <stdexcept>

namespace mosaic::reference {

namespace {

struct Box {
    double y_min, x_min, y_max, x_max;
};

// center_point: [x_center, y_center, w, h]; else any two opposite corners [y1, x1, y2, x2].
Box box_at(const std::vector<double>& boxes, size_t i, bool center_point) {
    const double* b = boxes.data() + 4 * i;
    if (center_point) return {b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
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

}  // namespace

std::string nms_shape_error(const std::vector<int64_t>& boxes, const std::vector<int64_t>& scores) {
    if (boxes.size() != 3 || boxes[2] != 4 || scores.size() != 3 || scores[0] != boxes[0] || scores[2] != boxes[1])
        return "boxes must be [batches, boxes, 4] and scores [batches, classes, boxes], got " + to_string(boxes) +
               " and " + to_string(scores);
    return "";
}

std::vector<int64_t> select_boxes(const std::vector<double>& boxes, const std::vector<double>& scores, int64_t batches,
                                  int64_t classes, int64_t count, const NmsSettings& s) {
    if (boxes.size() != static_cast<size_t>(batches * count * 4) || scores.size() != static_cast<size_t>(batches * classes * count))
        throw std::runtime_error("NonMaxSuppression: " + std::to_string(boxes.size()) + " box coordinates and " +
                                 std::to_string(scores.size()) + " scores do not fit " + std::to_string(batches) +
                                 " batches of " + std::to_string(count) + " boxes and " + std::to_string(classes) + " classes");
    std::vector<int64_t> selected;
    for (int64_t b = 0; b < batches; ++b)
        for (int64_t c = 0; c < classes; ++c) {
            const double* score = scores.data() + (b * classes + c) * count;
            std::vector<int64_t> order;
            for (int64_t i = 0; i < count; ++i)
                if (!s.score_threshold || score[i] > *s.score_threshold) order.push_back(i);
            std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return score[x] > score[y]; });
            std::vector<Box> kept;
            for (int64_t i : order) {
                if (static_cast<int64_t>(kept.size()) >= s.max_per_class) break;
                const Box box = box_at(boxes, static_cast<size_t>(b * count + i), s.center_point);
                if (std::any_of(kept.begin(), kept.end(), [&](const Box& k) { return overlaps_more_than(k, box, s.iou_threshold); }))
                    continue;
                kept.push_back(box);
                selected.insert(selected.end(), {b, c, i});
            }
        }
    return selected;
}

namespace nn {

namespace {

// One value of an optional scalar input (a [1] or [] tensor), or `fallback` when absent.
double optional_scalar(const KernelArgs& args, size_t i, const char* what, double fallback) {
    if (i >= args.inputs.size()) return fallback;
    const std::vector<double> v = read_floats(args.inputs[i]);
    if (v.size() != 1)
        throw std::runtime_error("NonMaxSuppression: " + std::string(what) + " must hold one value, got " + std::to_string(v.size()));
    return v[0];
}

void non_max_suppression_kernel(const KernelArgs& args) {
    if (args.inputs.size() < 2 || args.inputs.size() > 5 || args.outputs.size() != 1)
        throw std::runtime_error("NonMaxSuppression: expected 2 to 5 inputs and 1 output");
    const Shape &boxes = args.inputs[0].shape, &scores = args.inputs[1].shape;
    if (const std::string e = nms_shape_error(boxes, scores); !e.empty()) throw std::runtime_error("NonMaxSuppression: " + e);
    NmsSettings s;
    s.max_per_class = static_cast<int64_t>(optional_scalar(args, 2, "max_output_boxes_per_class", 0));
    s.iou_threshold = optional_scalar(args, 3, "iou_threshold", 0);
    if (args.inputs.size() > 4) s.score_threshold = optional_scalar(args, 4, "score_threshold", 0);
    s.center_point = args.attrs.get_int("center_point_box", 0) != 0;
    const std::vector<int64_t> selected =
        select_boxes(read_floats(args.inputs[0]), read_floats(args.inputs[1]), boxes[0], scores[1], boxes[1], s);
    const TensorView& out = args.outputs[0];
    if (out.shape != Shape{static_cast<int64_t>(selected.size() / 3), 3})
        throw std::runtime_error("NonMaxSuppression: the output is " + to_string(out.shape) + " but " +
                                 std::to_string(selected.size() / 3) + " boxes are selected");
    for (size_t i = 0; i < selected.size(); ++i) write_index(out, static_cast<int64_t>(i), selected[i]);
}

}  // namespace

void register_detection_kernels(KernelRegistry& r) { r.add("NonMaxSuppression", {"mosaic1"}, non_max_suppression_kernel); }

}  // namespace nn

}  // namespace mosaic::reference
