#include "window.hpp"

#include "graph_queries.hpp"

#include <algorithm>
#include <cctype>

namespace mosaic::cpu_plugin {

namespace {

std::vector<int64_t> list_or(const Attributes& attrs, const char* name, size_t n, int64_t fallback) {
    std::vector<int64_t> v = attrs.get_ints(name, std::vector<int64_t>(n, fallback));
    if (v.empty()) v.assign(n, fallback);
    return v;
}


// One spatial axis in oneDNN's terms (its dilation counts the gaps: OpenVINO's - 1).
void append_axis(WindowGeometry& g, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_l, int64_t pad_r) {
    g.kernel.push_back(kernel);
    g.strides.push_back(stride);
    g.dilations.push_back(dilation - 1);
    g.pad_l.push_back(pad_l);
    g.pad_r.push_back(pad_r);
}

}  // namespace

bool resolve_window(const Attributes& attrs, const Shape& in, const Shape& out, const Shape& kernel,
                    bool has_dilations, WindowGeometry& g) {
    const size_t n = in.size();
    if (out.size() != n || kernel.size() != n) return false;
    const std::vector<int64_t> strides = list_or(attrs, "strides", n, 1);
    const std::vector<int64_t> dilations = has_dilations ? list_or(attrs, "dilations", n, 1) : std::vector<int64_t>(n, 1);
    if (strides.size() != n || dilations.size() != n) return false;
    const std::string auto_pad = lower_case(attrs.get_string("auto_pad", "explicit"));
    std::vector<int64_t> begin(n, 0), end(n, 0);
    if (auto_pad == "explicit" || auto_pad == "notset") {
        begin = list_or(attrs, "pads_begin", n, 0);
        end = list_or(attrs, "pads_end", n, 0);
        if (begin.size() != n || end.size() != n) return false;
    } else if (auto_pad == "same_upper" || auto_pad == "same_lower") {
        for (size_t i = 0; i < n; ++i) {
            const int64_t target = (in[i] + strides[i] - 1) / strides[i];
            const int64_t extent = dilations[i] * (kernel[i] - 1) + 1;
            const int64_t total = std::max<int64_t>(0, (target - 1) * strides[i] + extent - in[i]);
            begin[i] = auto_pad == "same_upper" ? total / 2 : total - total / 2;
            end[i] = total - begin[i];
        }
    } else if (auto_pad != "valid") {
        return false;
    }
    g = WindowGeometry{};
    for (size_t i = 0; i < n; ++i) {
        if (strides[i] < 1 || dilations[i] < 1 || begin[i] < 0 || end[i] < 0) return false;
        g.declared_padding |= begin[i] != 0 || end[i] != 0;
        const int64_t extent = dilations[i] * (kernel[i] - 1) + 1;
        int64_t pad_r = end[i];
        const int64_t span = in[i] + begin[i] + pad_r - extent;
        if (span < 0 || span / strides[i] + 1 != out[i]) pad_r = (out[i] - 1) * strides[i] + extent - in[i] - begin[i];
        if (pad_r < 0 || in[i] + begin[i] + pad_r - extent < 0) return false;
        append_axis(g, kernel[i], strides[i], dilations[i], begin[i], pad_r);
    }
    return true;
}

bool resolve_transposed_window(const Attributes& attrs, const Shape& in, const Shape& out, const Shape& kernel,
                               bool has_output_shape, WindowGeometry& w) {
    const size_t n = in.size();
    const std::vector<int64_t> strides = list_or(attrs, "strides", n, 1), dilations = list_or(attrs, "dilations", n, 1);
    const std::vector<int64_t> output_padding = list_or(attrs, "output_padding", n, 0);
    const std::string auto_pad = lower_case(attrs.get_string("auto_pad", "explicit"));
    std::vector<int64_t> begin(n, 0);
    if (auto_pad == "explicit" || auto_pad == "notset") {
        begin = list_or(attrs, "pads_begin", n, 0);
    } else if (auto_pad != "valid" && has_output_shape) {
        for (size_t i = 0; i < n; ++i) {
            const int64_t full = strides[i] * (in[i] - 1) + dilations[i] * (kernel[i] - 1) + 1;
            const int64_t total = std::max<int64_t>(0, full - out[i] + output_padding[i]);
            begin[i] = auto_pad == "same_upper" ? total - total / 2 : total / 2;
        }
    }
    w = WindowGeometry{};
    for (size_t i = 0; i < n; ++i) {
        const int64_t full = strides[i] * (in[i] - 1) + dilations[i] * (kernel[i] - 1) + 1;
        const int64_t end = full - begin[i] - out[i];
        if (begin[i] < 0 || end < 0) return false;
        append_axis(w, kernel[i], strides[i], dilations[i], begin[i], end);
    }
    return true;
}


}  // namespace mosaic::cpu_plugin
