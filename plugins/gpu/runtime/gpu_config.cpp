#include "runtime/gpu_config.hpp"

#include <mosaic/sdk/status.hpp>

namespace mosaic::gpu_plugin {

GpuConfig GpuConfig::from(const nlohmann::json& config) {
    GpuConfig c;
    c.perf_count = config.value("PERF_COUNT", false);
    c.precision = config.value("INFERENCE_PRECISION_HINT", std::string("f32"));
    c.cache_dir = config.value("CACHE_DIR", std::string());
    c.device_id = config.value("DEVICE_ID", std::string("0"));
    if (c.device_id.empty()) c.device_id = "0";
    c.allow_cpu_fallback = config.value("GPU_ALLOW_CPU_FALLBACK", true);
    c.gemm_kernel = config.value("GPU_GEMM_KERNEL", std::string("AUTO"));
    c.zero_copy = config.value("GPU_ZERO_COPY", true);
    c.half_conversions = config.value("GPU_HALF_CONVERSIONS", std::string("AUTO"));
    // The property's declaration refuses a negative limit before it gets here.
    c.memory_limit = static_cast<uint64_t>(config.value("DEVICE_MEMORY_LIMIT", int64_t{0}));
    return c;
}

const ClDeviceInfo& select_instance(const GpuConfig& config, const std::string& device) {
    const ClDiscovery& found = discover_devices();
    const auto& instances = found.instances(config.allow_cpu_fallback);
    if (instances.empty())
        throw sdk::Error(MOSAIC_ERROR_DEVICE, "device " + device + " has no OpenCL device to run on: " +
                                                  found.why_none(config.allow_cpu_fallback) +
                                                  "; or run on another device (e.g. CPU)");
    size_t index = instances.size();
    try {
        size_t used = 0;
        index = std::stoul(config.device_id, &used);
        if (used != config.device_id.size()) index = instances.size();
    } catch (const std::exception&) {
    }
    if (index >= instances.size())
        throw sdk::Error(MOSAIC_ERROR_NOT_FOUND, "device " + device + " has no instance '" + config.device_id + "' (" +
                                                     std::to_string(instances.size()) + " OpenCL device" +
                                                     (instances.size() == 1 ? "" : "s") + ": " + device + ".0" +
                                                     (instances.size() > 1 ? " to " + device + "." + std::to_string(instances.size() - 1) : "") + ")");
    return instances[index];
}

std::optional<std::string> instance_id(const std::string& memory_device, const std::string& device,
                                       const std::string& default_id) {
    const size_t dot = memory_device.find('.');
    if (memory_device.substr(0, dot) != device) return std::nullopt;
    std::string id = dot == std::string::npos ? default_id : memory_device.substr(dot + 1);
    return id.empty() ? "0" : id;
}

}  // namespace mosaic::gpu_plugin
