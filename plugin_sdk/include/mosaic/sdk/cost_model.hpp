// The default per-op cost model: what the host answers for a device that reports no estimate of
// its own (ABI estimate_cost absent or declining), and a starting point for plugins that do.
//
// compute_us = (bytes read + bytes written) / kStreamBytesPerUs + multiply-adds / kMacsPerUs
// bytes_per_us = kHostBytesPerUs
// Multiply-adds are counted for Convolution, GroupConvolution, ConvolutionBackpropData,
// GroupConvolutionBackpropData and MatMul; every other op is treated as memory-bound. The rates
// are those of plain C++ kernels on one core (REFERENCE), so estimates are comparable across ops,
// not predictions of wall time on a fast device.
#pragma once

#include <mosaic/sdk/graph.hpp>

namespace mosaic::sdk {

struct OpCost {
    double compute_us = 0;
    double bytes_per_us = 0;
};

constexpr double kStreamBytesPerUs = 2000.0;  // ~2 GB/s of element-wise traffic
constexpr double kMacsPerUs = 1000.0;         // ~1 GMAC/s
constexpr double kHostBytesPerUs = 10000.0;   // ~10 GB/s host-memory copies

inline double multiply_adds(const GraphView& g, size_t node) {
    const std::string type = g.type(node);
    auto elems = [](const Shape& s) { return static_cast<double>(shape_size(s)); };
    if (g.output_count(node) == 0 || g.input_count(node) < 2) return 0;
    const double out = elems(g.output_shape(node, 0));
    const Shape w = g.input_shape(node, 1);
    if ((type == "Convolution" || type == "ConvolutionBackpropData") && w.size() >= 2)
        return out * elems(w) / static_cast<double>(w[0]);  // per output element: Cin x kernel (or Cout x kernel)
    if ((type == "GroupConvolution" || type == "GroupConvolutionBackpropData") && w.size() >= 3)
        return out * elems(w) / (static_cast<double>(w[0]) * static_cast<double>(w[1]));
    if (type == "MatMul") {
        const Shape a = g.input_shape(node, 0);
        if (a.empty()) return 0;
        const bool transpose_a = g.attributes(node).get_bool("transpose_a", false);
        const int64_t k = (transpose_a && a.size() >= 2) ? a[a.size() - 2] : a.back();
        return out * static_cast<double>(k);
    }
    return 0;
}

inline OpCost default_op_cost(const GraphView& g, size_t node) {
    double bytes = 0;
    for (size_t i = 0; i < g.input_count(node); ++i)
        bytes += static_cast<double>(shape_size(g.input_shape(node, i))) * element_size(g.input_type(node, i));
    for (size_t o = 0; o < g.output_count(node); ++o)
        bytes += static_cast<double>(shape_size(g.output_shape(node, o))) * element_size(g.output_type(node, o));
    return {bytes / kStreamBytesPerUs + multiply_adds(g, node) / kMacsPerUs, kHostBytesPerUs};
}

}  // namespace mosaic::sdk
