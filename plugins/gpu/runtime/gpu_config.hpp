// The properties a GPU compile reads, resolved once from the merged configuration.
#pragma once

#include "opencl/cl_discovery.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace mosaic::gpu_plugin {

struct GpuConfig {
    bool perf_count = false;
    std::string precision = "f32";  // INFERENCE_PRECISION_HINT
    std::string half_conversions = "AUTO";  // GPU_HALF_CONVERSIONS: AUTO, BUILTIN or BITS (common/storage.cl)
    std::string cache_dir;          // CACHE_DIR: program binaries; "" keeps none
    std::string device_id = "0";    // DEVICE_ID: which instance (GPU.1 sets "1")
    bool allow_cpu_fallback = true; // GPU_ALLOW_CPU_FALLBACK
    std::string gemm_kernel = "AUTO";  // GPU_GEMM_KERNEL (gemm.hpp)
    bool zero_copy = true;             // GPU_ZERO_COPY
    uint64_t memory_limit = 0;         // DEVICE_MEMORY_LIMIT: bytes Mosaic may hold on the instance; 0: its global memory

    // The bytes Mosaic may hold on `device`: the limit, at most the device's global memory.
    uint64_t memory_budget(const ClDeviceInfo& device) const {
        return memory_limit ? std::min<uint64_t>(memory_limit, device.global_memory_bytes) : device.global_memory_bytes;
    }

    static GpuConfig from(const nlohmann::json& config);
};

// The instance `config` names; throws sdk::Error saying why there is none and what to install, or
// which ids exist. `device` is the registry name, for messages.
const ClDeviceInfo& select_instance(const GpuConfig& config, const std::string& device);

// The instance id a tensor's memory_device names ("GPU.1" -> "1", "GPU" -> `default_id`, the
// device's DEVICE_ID); nothing when it names another device than `device`.
std::optional<std::string> instance_id(const std::string& memory_device, const std::string& device,
                                       const std::string& default_id);

}  // namespace mosaic::gpu_plugin
