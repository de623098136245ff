// The GPU device's cost estimates (ABI estimate_cost), so that HETERO's plans predict its stage
// times: an OpenCL CPU device (PoCL) is the host's cores (sdk::host_core_rates); a GPU is its
// compute units x f32 lanes per unit (by vendor: NVIDIA 128, AMD 64, Intel 16, else 32) x its
// clock x 0.3, what kernels not tuned per device reach; 16 bytes per cycle per unit of memory
// traffic, halved, overlapped with the arithmetic; 10 us to launch a kernel; PCIe's ~10 GB/s to and from a discrete GPU. From the
// device's own figures, not measured, so a plan is the same on every run.
#include "gpu_device.hpp"

#include "gpu_config.hpp"
#include "opencl/cl_discovery.hpp"

#include <mosaic/sdk/cost_model.hpp>

#include <algorithm>

namespace mosaic::gpu_plugin {

namespace {

sdk::DeviceRates rates_of(const ClDeviceInfo& device) {
    const unsigned units = std::max(1u, device.compute_units);
    if (device.is_cpu_fallback) return sdk::host_core_rates(units);
    double lanes = 32;
    switch (device.vendor_id) {
        case 0x10DE: lanes = 128; break;  // NVIDIA: FP32 cores per multiprocessor
        case 0x1002: lanes = 64; break;   // AMD: stream processors per compute unit
        case 0x8086: lanes = 16; break;   // Intel: an EU's two SIMD8 pipes
        default: break;
    }
    const double mhz = std::max(100.0, static_cast<double>(device.clock_mhz));
    sdk::DeviceRates r;
    r.macs_per_us = units * lanes * mhz * 0.3;
    r.stream_bytes_per_us = units * 16 * mhz * 0.5;
    r.transfer_bytes_per_us = device.integrated ? r.stream_bytes_per_us : 10000;
    r.per_op_us = 10;
    r.overlapped = true;
    return r;
}

}  // namespace

bool GpuDevice::estimate_cost(const sdk::GraphView& graph, size_t node, double& compute_us, double& bytes_per_us) {
    const sdk::OpCost cost = sdk::op_cost(graph, node, rates_of(instance("")));
    compute_us = cost.compute_us;
    bytes_per_us = cost.bytes_per_us;
    return true;
}

}  // namespace mosaic::gpu_plugin
