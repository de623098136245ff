// The nn group's schema files (ops/nn_*.cpp) and the helpers they share: attribute parsing for
// sliding-window ops (auto_pad, strides, pads) and element-type checks.
#pragma once

#include "ops/op_schema.hpp"

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace mosaic::ops {

void register_nn_convolution_ops(OpRegistry&);    // nn_convolution.cpp
void register_nn_matmul_ops(OpRegistry&);         // nn_matmul.cpp
void register_nn_pooling_ops(OpRegistry&);        // nn_pooling.cpp
void register_nn_softmax_ops(OpRegistry&);        // nn_softmax.cpp
void register_nn_normalization_ops(OpRegistry&);  // nn_normalization.cpp
void register_nn_interpolate_ops(OpRegistry&);    // nn_interpolate.cpp
void register_nn_topk_ops(OpRegistry&);           // nn_topk.cpp
void register_recurrent_ops(OpRegistry&);         // nn_recurrent.cpp
void register_nn_grid_sample_ops(OpRegistry&);    // nn_grid_sample.cpp
void register_nn_col2im_ops(OpRegistry&);         // nn_col2im.cpp
void register_nn_roi_align_ops(OpRegistry&);      // nn_roi_align.cpp
void register_nn_det_ops(OpRegistry&);            // nn_det.cpp
void register_nn_detection_ops(OpRegistry&);      // nn_detection.cpp
void register_nn_attention_ops(OpRegistry&);      // nn_attention.cpp

namespace nn {

// A string attribute that must be one of `choices` (compared case-insensitively); returns it in
// lower case. `fallback` is used when the attribute is absent; without one the attribute is required.
std::string choice_attr(const InferContext& ctx, const char* name, std::initializer_list<const char*> choices,
                        std::optional<std::string> fallback = std::nullopt);

enum class AutoPad { explicit_pads, same_upper, same_lower, valid };
// `auto_pad`: explicit (default; "notset" is a synonym), same_upper, same_lower or valid.
AutoPad auto_pad_attr(const InferContext& ctx);

// A per-spatial-axis list attribute (strides, dilations, pads, kernel) with exactly `count`
// values, each >= min_value. Absent: `fallback` repeated, or an error when there is none.
std::vector<int64_t> spatial_attr(const InferContext& ctx, const char* name, size_t count, int64_t min_value,
                                  std::optional<int64_t> fallback = std::nullopt);

struct Padding {
    std::vector<int64_t> begin, end;
};

// Pads of a forward sliding window (Convolution, pooling) per auto_pad: the explicit attributes,
// zeros for `valid`, or what keeps ceil(in / stride) outputs for `same_*` (the odd pad goes to the
// end for same_upper, to the beginning for same_lower). Dynamic input dims get zero pads.
Padding forward_padding(const InferContext& ctx, AutoPad auto_pad, const Shape& in_spatial,
                        const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                        const std::vector<int64_t>& dilations);

// How a sliding window's output count rounds (pooling's `rounding_type`): floor; ceil, which adds a
// window wherever part of one is left; ceil_torch (MaxPool-14, AvgPool-14: what PyTorch's
// ceil_mode and ONNX Runtime's do), which adds it only when it starts inside the data or the
// begin padding, never in the end padding.
enum class Rounding { floor, ceil, ceil_torch };

// The `rounding_type` attribute; ceil_torch only where `with_torch` (the opset-14 pooling ops).
Rounding rounding_attr(const InferContext& ctx, bool with_torch);

// The windows of a padded span (padded input - dilated kernel, >= 0) at `stride`: span / stride + 1
// rounded as `rounding` says, `data_end` = input + begin padding (ceil_torch drops a last window
// starting at or past it; tested by division, the product may pass the integer's range). On any
// integer type: the ONNX reader's LpPool sizes run in 128 bits.
template <class I>
I window_count(I span, I stride, I data_end, Rounding rounding) {
    if (rounding == Rounding::floor) return span / stride + 1;
    const I last = span / stride + (span % stride != 0 ? 1 : 0);  // the last window, rounded up
    if (rounding == Rounding::ceil_torch && (data_end == 0 || last > (data_end - 1) / stride)) return last;
    return last + 1;
}

// (in + pads - dilated kernel) / stride + 1 rounded as `rounding` says; fails when the dilated
// kernel does not fit in the padded input. Propagates a dynamic input dim.
int64_t window_output_dim(const InferContext& ctx, int64_t in, int64_t pad_begin, int64_t pad_end, int64_t kernel,
                          int64_t stride, int64_t dilation, Rounding rounding, size_t axis);

void check_floating(const InferContext& ctx, size_t input, const char* what);
// Any type but boolean and undefined.
void check_numeric(const InferContext& ctx, size_t input, const char* what);
void check_integer(const InferContext& ctx, size_t input, const char* what);
void check_same_type(const InferContext& ctx, size_t a, size_t b);
void check_rank(const InferContext& ctx, size_t input, const char* what, int64_t min_rank, int64_t max_rank = -1);

// Normalises and validates a list of axes: each in [-rank, rank), no repeats.
std::vector<int64_t> normalize_axes(const InferContext& ctx, const std::vector<int64_t>& axes, int64_t rank,
                                    const char* what);

std::string join(const std::vector<int64_t>& values);

}  // namespace nn
}  // namespace mosaic::ops
