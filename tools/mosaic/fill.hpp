// Deterministic input data for inputs the user did not supply, so that two runs of the same
// command (or a run on two devices) see identical inputs.
#pragma once

#include <mosaic/tensor.hpp>

#include <cstdint>
#include <string>

namespace mosaic::cli {

// Floating types: uniform in [0, 1). Integer types: small values 0..9 (valid as indices for most
// ops). boolean: 0 or 1. The generator is SplitMix64, fully specified here, so the values are the
// same with every compiler and standard library.
Tensor deterministic_tensor(ElementType type, const Shape& shape, uint64_t seed);

// What deterministic_tensor() puts in a tensor of `type`, for messages.
std::string deterministic_fill_description(ElementType type);

// The seed used for model input number `index`.
inline uint64_t input_seed(size_t index) { return 0x6d6f73616963ull + index; }

}  // namespace mosaic::cli
