// Fixed-seed weights and attribute helpers shared by the model generators in this folder, so every
// generated model is byte-identical on every build and platform.
#pragma once

#include <mosaic/model.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace mosaic::models {

// SplitMix64: fully specified, so the weights do not depend on the standard library.
class Generator {
public:
    explicit Generator(uint64_t seed) : state_(seed) {}
    // Uniform in [-limit, limit).
    float uniform(float limit) {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        const float unit = static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
        return (2.0f * unit - 1.0f) * limit;
    }

private:
    uint64_t state_;
};

inline std::vector<float> random_values(Generator& gen, int64_t count, float limit) {
    std::vector<float> v(static_cast<size_t>(count));
    for (float& x : v) x = gen.uniform(limit);
    return v;
}

// He-uniform: variance 2 / fan_in, which keeps the activation scale through a ReLU.
inline float he_limit(int64_t fan_in) { return std::sqrt(6.0f / static_cast<float>(fan_in)); }

// 3x3, stride 1, "same" padding.
inline Attributes conv3x3_attrs() {
    return {{"strides", "1,1"}, {"dilations", "1,1"}, {"pads_begin", "1,1"}, {"pads_end", "1,1"}, {"auto_pad", "explicit"}};
}

// k x k window, stride k, no padding.
inline Attributes pool_attrs(int64_t k) {
    const std::string kk = std::to_string(k) + "," + std::to_string(k);
    return {{"strides", kk}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"kernel", kk},
            {"rounding_type", "floor"}, {"auto_pad", "explicit"}};
}

inline Attributes numpy_broadcast() { return {{"auto_broadcast", "numpy"}}; }

}  // namespace mosaic::models
