// The padding of the convolutions as the reference kernels resolve it, for device plugins that
// must place their windows exactly where REFERENCE does: the transposed forms' same_upper and
// same_lower distribute the padding that makes the requested output_shape, which no attribute
// states.
#pragma once

#include <mosaic/reference/kernels.hpp>

#include <cstdint>
#include <vector>

namespace mosaic::reference {

// The pads before each spatial axis of the Convolution, GroupConvolution,
// ConvolutionBackpropData or GroupConvolutionBackpropData in `args` (its attributes and the shapes
// of its inputs and output; no values are read). Throws std::runtime_error for inconsistent shapes
// or attributes.
std::vector<int64_t> convolution_pads_begin(const KernelArgs& args);

}  // namespace mosaic::reference
