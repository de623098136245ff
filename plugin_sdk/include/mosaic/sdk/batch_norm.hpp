// BatchNormInference as a per-channel affine map, y = x * scale[c] + shift[c]: what a device folds
// into the convolution before it (the scale into each output channel's filter, the shift into its
// bias) or runs as one multiply-add. The CPU and GPU devices share it, so both fold alike.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace mosaic::sdk {

// Where BatchNormInference-1 and -5 take their inputs: opset5 reads the data first, opset1 after
// gamma and beta.
struct BatchNormPorts {
    size_t data, gamma, beta, mean, variance;
};
inline BatchNormPorts batch_norm_ports(bool opset5) {
    return opset5 ? BatchNormPorts{0, 1, 2, 3, 4} : BatchNormPorts{2, 0, 1, 3, 4};
}

struct ChannelAffine {
    std::vector<float> scale, shift;
};

// scale = gamma / sqrt(variance + epsilon) (in double, as OpenVINO's reference), shift = (bias -
// mean) * scale + beta, where `bias` (one value a channel, or null for none) is what the
// convolution before the normalisation added.
inline ChannelAffine batch_norm_affine(const float* gamma, const float* beta, const float* mean, const float* variance,
                                       double epsilon, size_t channels, const float* bias = nullptr) {
    ChannelAffine a;
    for (size_t c = 0; c < channels; ++c) {
        const auto scale = static_cast<float>(gamma[c] / std::sqrt(static_cast<double>(variance[c]) + epsilon));
        a.scale.push_back(scale);
        a.shift.push_back(((bias ? bias[c] : 0.0f) - mean[c]) * scale + beta[c]);
    }
    return a;
}

}  // namespace mosaic::sdk
