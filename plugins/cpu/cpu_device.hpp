// The CPU device: every op of the op set, the compute-heavy ones on oneDNN (convolutions with
// fused bias, activations and residual Add; MatMul; pooling; softmax), the rest on the reference
// kernels. See README.md beside this file for what runs where and what comes next.
#pragma once

#include <mosaic/sdk/plugin.hpp>

namespace mosaic::cpu_plugin {

class CpuDevice : public sdk::Device {
public:
    explicit CpuDevice(const std::string& name);

    std::vector<Support> query(const sdk::GraphView& graph, const nlohmann::json& config) override;
    std::unique_ptr<sdk::CompiledModel> compile(const sdk::GraphView& graph, const nlohmann::json& config) override;

private:
    // Why `node` cannot run here, or empty when it can.
    static std::string unsupported_reason(const sdk::GraphView& graph, size_t node);
};

}  // namespace mosaic::cpu_plugin
