#include "opencl/cl_discovery.hpp"

namespace mosaic::gpu_plugin {

namespace {

// Drivers pad some strings with NULs or spaces.
std::string clean(std::string s) {
    while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
    return s;
}

ClDeviceInfo describe(const cl::Platform& platform, const cl::Device& device, bool cpu_fallback) {
    ClDeviceInfo info;
    info.platform = platform;
    info.device = device;
    info.name = clean(device.getInfo<CL_DEVICE_NAME>());
    info.vendor = clean(device.getInfo<CL_DEVICE_VENDOR>());
    info.driver_version = clean(device.getInfo<CL_DRIVER_VERSION>());
    info.device_version = clean(device.getInfo<CL_DEVICE_VERSION>());
    info.platform_name = clean(platform.getInfo<CL_PLATFORM_NAME>());
    info.is_cpu_fallback = cpu_fallback;
    info.integrated = device.getInfo<CL_DEVICE_HOST_UNIFIED_MEMORY>() != 0;
    info.global_memory_bytes = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
    info.compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    info.clock_mhz = device.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>();
    info.local_mem_bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    info.vendor_id = device.getInfo<CL_DEVICE_VENDOR_ID>();
    return info;
}

// The devices of one type on one platform; a platform without any answers CL_DEVICE_NOT_FOUND.
std::vector<cl::Device> devices_of(const cl::Platform& platform, cl_device_type type) {
    std::vector<cl::Device> out;
    try {
        platform.getDevices(type, &out);
    } catch (const cl::Error& e) {
        if (e.err() != CL_DEVICE_NOT_FOUND) throw;
    }
    return out;
}

ClDiscovery run_discovery() {
    ClDiscovery found;
    std::vector<cl::Platform> platforms;
    try {
        cl::Platform::get(&platforms);
    } catch (const cl::Error& e) {
        // ocl-icd answers CL_PLATFORM_NOT_FOUND_KHR (-1001) when it finds no vendor file (ICD).
        found.platform_problem = "the OpenCL ICD loader found no platform (" + cl_status_name(e.err()) +
                                 "): no OpenCL driver is registered in /etc/OpenCL/vendors (or OCL_ICD_VENDORS)";
        return found;
    }
    if (platforms.empty()) found.platform_problem = "the OpenCL ICD loader lists no platform";
    for (const cl::Platform& p : platforms) {
        try {
            for (const cl::Device& d : devices_of(p, CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR))
                found.gpus.push_back(describe(p, d, false));
            for (const cl::Device& d : devices_of(p, CL_DEVICE_TYPE_CPU)) found.cpu_fallbacks.push_back(describe(p, d, true));
        } catch (const cl::Error& e) {
            // One broken driver must not hide the devices of the others.
            found.platform_problem += (found.platform_problem.empty() ? "" : "; ") + std::string("a platform failed to list ") +
                                      "its devices (" + cl_status_name(e.err()) + ")";
        }
    }
    return found;
}

}  // namespace

std::string ClDeviceInfo::full_name() const {
    std::string s = vendor + " " + name + " (driver " + driver_version + ", " + device_version + ")";
    if (is_cpu_fallback) s += " - an OpenCL CPU device standing in for a GPU: no OpenCL GPU was found";
    return s;
}

std::string ClDeviceInfo::cache_identity() const {
    return platform_name + "|" + vendor + "|" + name + "|" + driver_version + "|" + device_version;
}

std::string ClDiscovery::why_none(bool allow_cpu_fallback) const {
    if (!instances(allow_cpu_fallback).empty()) return "";
    const std::string install =
        "install an OpenCL driver for your GPU (or Debian's pocl-opencl-icd for an OpenCL CPU device)";
    if (!platform_problem.empty() && gpus.empty() && cpu_fallbacks.empty()) return platform_problem + "; " + install;
    if (!allow_cpu_fallback && !cpu_fallbacks.empty())
        return "no OpenCL GPU or accelerator device, and GPU_ALLOW_CPU_FALLBACK is NO (the OpenCL CPU device '" +
               cpu_fallbacks.front().name + "' could stand in)";
    return "the OpenCL platforms list no GPU, accelerator or CPU device; " + install;
}

const ClDiscovery& discover_devices() {
    static const ClDiscovery found = run_discovery();
    return found;
}

}  // namespace mosaic::gpu_plugin
