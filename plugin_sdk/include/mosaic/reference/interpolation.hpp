// Interpolate-4/11 in the separable modes, nearest, linear_onnx and cubic, as per-axis tap tables: the
// reference kernel computes its outputs from them, and a device plugin can upload them and run one
// gather-and-weigh kernel with the reference's own coordinate mapping.
#pragma once

#include <mosaic/reference/kernels.hpp>

#include <cstdint>
#include <vector>

namespace mosaic::reference {

// The taps of one data axis: output coordinate o reads source coordinates index[o * count + t]
// (t < count) of the padded data with weights weight[o * count + t].
struct AxisTaps {
    int64_t count = 1;
    std::vector<int64_t> index;
    std::vector<float> weight;
};

// One AxisTaps per data axis of the Interpolate in `args` (attributes, the data's and output's
// shapes, and its scales/sizes/axes inputs' values; the data's values are not read). An output
// element is the sum, over every choice of one tap per axis, of the product of the taps' weights
// times the element they pick. Throws std::runtime_error for the other modes and bad arguments.
std::vector<AxisTaps> separable_interpolate_taps(const KernelArgs& args);

}  // namespace mosaic::reference
