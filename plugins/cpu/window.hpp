// The geometry of a forward sliding window (convolution, pooling) in oneDNN's terms. Pads come
// from auto_pad exactly as the framework's shape inference resolves them; the end pads are then
// fitted to the output shape inference gave, because oneDNN requires
//   out = (in + pad_l + pad_r - ((kernel - 1) * dilation + 1)) / stride + 1
// to hold exactly, which is also how a ceil-rounded pooling is expressed.
#pragma once

#include <mosaic/attributes.hpp>
#include <mosaic/element_type.hpp>

#include <oneapi/dnnl/dnnl.hpp>

namespace mosaic::cpu_plugin {

struct WindowGeometry {
    dnnl::memory::dims kernel, strides, dilations;  // dilations as oneDNN counts them: OpenVINO's - 1
    dnnl::memory::dims pad_l, pad_r;
    bool declared_padding = false;  // whether the op itself pads (before any fitting to the output)
};

// `in`, `out`: spatial dims; `kernel`: spatial kernel dims. False when the window cannot be
// expressed for oneDNN (a negative pad): the caller falls back to the reference kernel.
bool resolve_window(const Attributes& attrs, const Shape& in, const Shape& out, const Shape& kernel,
                    bool has_dilations, WindowGeometry& geometry);

// A transposed convolution's window as the reference kernel reads it: explicit pads as given,
// same_* spreading the padding that makes output_shape (the larger half first for same_upper),
// valid none; the end padding is whatever fits the output shape inference gave
//   out = (in - 1) * stride + (kernel - 1) * dilation + 1 - pad_l - pad_r.
// False when it would be negative (output_padding), which oneDNN cannot express.
bool resolve_transposed_window(const Attributes& attrs, const Shape& in, const Shape& out, const Shape& kernel,
                               bool has_output_shape, WindowGeometry& geometry);

}  // namespace mosaic::cpu_plugin
