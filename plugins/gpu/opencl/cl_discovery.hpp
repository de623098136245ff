// The OpenCL devices the GPU plugin can run on, found once per process through the ICD loader.
//
// Each GPU or accelerator device of any platform is an instance (GPU.0, GPU.1, ... in platform
// order). Where there is none, the OpenCL CPU-type devices (PoCL's pthread device) stand in, so
// that HETERO:GPU,CPU runs on any machine; such an instance says so in its name, and the property
// GPU_ALLOW_CPU_FALLBACK=NO hides them. With no OpenCL platform at all there is no instance, and
// `why_none` says what is missing and what to install.
#pragma once

#include "opencl/cl.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mosaic::gpu_plugin {

struct ClDeviceInfo {
    cl::Platform platform;
    cl::Device device;
    std::string name, vendor, driver_version, device_version, platform_name;
    bool is_cpu_fallback = false;     // an OpenCL CPU-type device standing in for a GPU
    bool integrated = false;          // CL_DEVICE_HOST_UNIFIED_MEMORY: shares host memory
    uint64_t global_memory_bytes = 0;
    uint32_t compute_units = 0;
    uint32_t clock_mhz = 0;        // CL_DEVICE_MAX_CLOCK_FREQUENCY
    uint64_t local_mem_bytes = 0;  // a work group's local memory
    uint32_t vendor_id = 0;

    // "NVIDIA Corporation NVIDIA H100 (driver 550.54, OpenCL 3.0 CUDA)", with "OpenCL CPU device,
    // no GPU found" for a fallback.
    std::string full_name() const;
    // Whether kernels giving a work item 16 consecutive elements suit this device: on OpenCL CPU
    // devices they are what the compiler turns into vector instructions; a GPU already has a lane per
    // work item, and its one-element kernels read memory in the order its loads coalesce.
    bool prefers_sixteen_wide() const { return is_cpu_fallback; }
    // "integrated" or "discrete", OpenVINO's DEVICE_TYPE values.
    std::string device_type() const { return integrated ? "integrated" : "discrete"; }
    // What program binaries are keyed on: a binary is only valid for the same device and driver.
    std::string cache_identity() const;
};

struct ClDiscovery {
    std::vector<ClDeviceInfo> gpus;           // GPU and accelerator devices
    std::vector<ClDeviceInfo> cpu_fallbacks;  // CPU-type devices, used when `gpus` is empty
    std::string platform_problem;             // why no platform could be listed (empty if some were)

    // The instances under the fallback rule.
    const std::vector<ClDeviceInfo>& instances(bool allow_cpu_fallback) const {
        return gpus.empty() && allow_cpu_fallback ? cpu_fallbacks : gpus;
    }
    // Why instances(allow_cpu_fallback) is empty, with what to do; "" when it is not.
    std::string why_none(bool allow_cpu_fallback) const;
};

// Lists the devices on first call; later calls return the same answer (drivers are not reloaded).
const ClDiscovery& discover_devices();

}  // namespace mosaic::gpu_plugin
