// The GPU device: OpenCL devices as instances GPU.0, GPU.1, ... (see cl_discovery.hpp), the ops of
// op_registry.hpp, each answered honestly by query for its exact types, shapes and attributes.
// See README.md beside this file.
#pragma once

#include <mosaic/sdk/plugin.hpp>

namespace mosaic::gpu_plugin {

struct GpuConfig;
struct ClDeviceInfo;

class GpuDevice : public sdk::Device {
public:
    explicit GpuDevice(const std::string& name);

    std::vector<std::string> device_ids() const override;
    nlohmann::json get_property(const std::string& key) const override;
    std::vector<Support> query(const sdk::GraphView& graph, const nlohmann::json& config) override;
    std::unique_ptr<sdk::CompiledModel> compile(const sdk::GraphView& graph, const nlohmann::json& config) override;

    // The time of one node on the device's default instance, from its figures (gpu_cost.cpp).
    bool estimate_cost(const sdk::GraphView& graph, size_t node, double& compute_us, double& bytes_per_us) override;

    // Device memory (ABI 1.3, gpu_memory.cpp): buffers are cl_mem of the instance's context.
    bool memory_info(const std::string& id, sdk::MemoryInfo& out) override;
    void* allocate_buffer(const std::string& id, size_t bytes) override;
    void release_buffer(const std::string& id, void* buffer) override;
    bool can_copy(const std::string& id, const char* other) override;
    void copy(const std::string& id, const mosaic_tensor& src, const mosaic_tensor& dst) override;

private:
    // The OpenCL device of instance `id` ("" for the device's DEVICE_ID).
    const ClDeviceInfo& instance(const std::string& id) const;
    // Why `node` cannot run on `device`, or "" (also for a node computed at compile time).
    static std::string unsupported_reason(const sdk::GraphView& graph, size_t node, const ClDeviceInfo& device,
                                          const std::vector<bool>& compile_time);
    bool allow_cpu_fallback() const;
};

}  // namespace mosaic::gpu_plugin
