// The padding of a sliding-window op (Convolution, pooling) from its attributes: explicit pads, or
// SAME_UPPER / SAME_LOWER / VALID, computed as OpenVINO does from the input and output sizes.
#pragma once

#include <mosaic/attributes.hpp>
#include <mosaic/element_type.hpp>

#include <vector>

namespace mosaic::gpu_plugin {

struct Window2d {
    int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
    int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};

// `in`, `out`: N, C, H, W; `kernel`: the 2 window dims.
Window2d window_of(const Attributes& a, const Shape& in, const Shape& out, const std::vector<int64_t>& kernel);

}  // namespace mosaic::gpu_plugin
