#include "ops/window_shape.hpp"

#include <algorithm>

namespace mosaic::gpu_plugin {

Window2d window_of(const Attributes& a, const Shape& in, const Shape& out, const std::vector<int64_t>& kernel) {
    Window2d w;
    const auto strides = a.get_ints("strides", {1, 1});
    const auto dilations = a.get_ints("dilations", {1, 1});
    w.kernel_h = kernel.at(0);
    w.kernel_w = kernel.at(1);
    w.stride_h = strides.at(0);
    w.stride_w = strides.at(1);
    w.dilation_h = dilations.at(0);
    w.dilation_w = dilations.at(1);
    const std::string pad = a.get_string("auto_pad", "explicit");
    if (pad == "same_upper" || pad == "same_lower" || pad == "SAME_UPPER" || pad == "SAME_LOWER") {
        auto total = [](int64_t in_dim, int64_t out_dim, int64_t k, int64_t s, int64_t d) {
            return std::max<int64_t>(0, (out_dim - 1) * s + (k - 1) * d + 1 - in_dim);
        };
        const int64_t th = total(in[2], out[2], w.kernel_h, w.stride_h, w.dilation_h);
        const int64_t tw = total(in[3], out[3], w.kernel_w, w.stride_w, w.dilation_w);
        const bool upper = pad == "same_upper" || pad == "SAME_UPPER";
        w.pad_top = upper ? th / 2 : th - th / 2;
        w.pad_left = upper ? tw / 2 : tw - tw / 2;
        w.pad_bottom = th - w.pad_top;
        w.pad_right = tw - w.pad_left;
    } else if (pad != "valid" && pad != "VALID") {
        const auto begin = a.get_ints("pads_begin", {0, 0}), end = a.get_ints("pads_end", {0, 0});
        w.pad_top = begin.at(0);
        w.pad_left = begin.at(1);
        w.pad_bottom = end.at(0);
        w.pad_right = end.at(1);
    }
    return w;
}

}  // namespace mosaic::gpu_plugin
