// ONNX NonMaxSuppression's selection, what Mosaic's NonMaxSuppression-mosaic1 computes. Shared by
// its reference kernel and its shape inference, whose row count is the number of boxes selected
// (known once the boxes and scores are: a model computing them runs in stages around the op,
// framework/src/graph/cut_model.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mosaic::reference {

struct NmsSettings {
    int64_t max_per_class = 0;              // input 2; absent: 0, so nothing is selected (ONNX)
    double iou_threshold = 0;               // input 3; a box overlapping a kept one by more is dropped
    std::optional<double> score_threshold;  // input 4; absent: no box is dropped for its score
    bool center_point = false;              // center_point_box 1: [x_center, y_center, width, height]
};

// The (batch, class, box) triple of each selected box: per batch, per class, the boxes of highest
// score first (ties: the lower index), each kept unless it overlaps one already kept by more than
// the IoU threshold, at most max_per_class of them. `boxes` is [batches, count, 4] and `scores`
// [batches, classes, count], row-major. Throws std::runtime_error when the sizes disagree.
std::vector<int64_t> select_boxes(const std::vector<double>& boxes, const std::vector<double>& scores, int64_t batches,
                                  int64_t classes, int64_t count, const NmsSettings& settings);

// Why boxes [B, N, 4] and scores [B, C, N] do not fit NonMaxSuppression, or "".
std::string nms_shape_error(const std::vector<int64_t>& boxes, const std::vector<int64_t>& scores);

}  // namespace mosaic::reference
