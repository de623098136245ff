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

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

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

// What a device sustains, for estimates of the same form as the default's plus a fixed cost per
// op (a kernel's launch, a primitive's call).
struct DeviceRates {
    double macs_per_us = kMacsPerUs;
    double stream_bytes_per_us = kStreamBytesPerUs;
    double transfer_bytes_per_us = kHostBytesPerUs;
    double per_op_us = 0;
    // Memory traffic and arithmetic overlap (the larger of the two counts, a roofline), as in
    // kernels that prefetch; false: they add up, as in plain loops.
    bool overlapped = false;
};

inline OpCost op_cost(const GraphView& g, size_t node, const DeviceRates& rates) {
    double bytes = 0;
    for (size_t i = 0; i < g.input_count(node); ++i)
        bytes += static_cast<double>(shape_size(g.input_shape(node, i))) * element_size(g.input_type(node, i));
    for (size_t o = 0; o < g.output_count(node); ++o)
        bytes += static_cast<double>(shape_size(g.output_shape(node, o))) * element_size(g.output_type(node, o));
    const double memory_us = bytes / rates.stream_bytes_per_us, compute_us = multiply_adds(g, node) / rates.macs_per_us;
    return {rates.per_op_us + (rates.overlapped ? std::max(memory_us, compute_us) : memory_us + compute_us),
            rates.transfer_bytes_per_us};
}

inline OpCost default_op_cost(const GraphView& g, size_t node) { return op_cost(g, node, DeviceRates{}); }

// The rates of `cores` of the host's CPU running kernels that vectorise (the CPU device on oneDNN,
// an OpenCL CPU device such as PoCL): f32 multiply-adds per cycle and core (32 with AVX-512, two
// FMA units; 16 with AVX2 and FMA; 8 otherwise) at the host's top clock (host_clock_mhz), halved, as
// tuned kernels reach about half the peak on convolutions and MatMuls (oneDNN on ResNet-50's last
// layers: 53%); 8 GB/s of streaming per core, overlapped with the arithmetic; 2 us per op. From the
// hardware, not measured, so a plan is the same on every run of one machine.
// The host's top clock in MHz, read once: cpufreq's maximum where the kernel has it (the clock
// /proc/cpuinfo shows moves with the load), else /proc/cpuinfo's, else 2000.
inline double host_clock_mhz() {
    static const double mhz = [] {
        std::ifstream top("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
        double khz = 0;
        if (top >> khz && khz > 0) return khz / 1000;
        std::ifstream info("/proc/cpuinfo");
        for (std::string line; std::getline(info, line);)
            if (line.rfind("cpu MHz", 0) == 0 && line.find(':') != std::string::npos)
                return std::max(500.0, std::atof(line.c_str() + line.find(':') + 1));
        return 2000.0;
    }();
    return mhz;
}

inline DeviceRates host_core_rates(unsigned cores) {
    const double mhz = host_clock_mhz();
    double per_cycle = 8;
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_cpu_supports("avx512f")) per_cycle = 32;
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) per_cycle = 16;
#endif
    const double n = std::max(1u, cores);
    DeviceRates r;
    r.macs_per_us = n * per_cycle * mhz * 0.5;
    r.stream_bytes_per_us = n * 8000;
    r.per_op_us = 2;
    r.overlapped = true;
    return r;
}


}  // namespace mosaic::sdk
