// The CPU device: every op of the op set, the compute-heavy ones on oneDNN (convolutions with
// fused bias, activations and residual Add; MatMul; pooling; softmax), the rest on the reference
// kernels. See README.md beside this file for what runs where and what comes next.
#pragma once

#include "host_memory.hpp"
#include "stream_threads.hpp"

#include <mosaic/sdk/memory_ledger.hpp>

#include <mosaic/sdk/plugin.hpp>

namespace mosaic::cpu_plugin {

class CpuDevice : public sdk::Device {
public:
    explicit CpuDevice(const std::string& name);

    std::vector<Support> query(const sdk::GraphView& graph, const nlohmann::json& config) override;
    std::unique_ptr<sdk::CompiledModel> compile(const sdk::GraphView& graph, const nlohmann::json& config) override;
    // Host memory: DEVICE_MEMORY_LIMIT as the total when set, else the machine's; what the device's
    // models and requests hold as used.
    bool memory_info(const std::string& id, sdk::MemoryInfo& out) override;
    // An op's time with the threads one inference gets (sdk::host_core_rates), so that HETERO's
    // plans predict this device's stage times rather than the default model's.
    bool estimate_cost(const sdk::GraphView& graph, size_t node, double& compute_us, double& bytes_per_us) override;

private:
    // Why `node` cannot run here, or empty when it can.
    static std::string unsupported_reason(const sdk::GraphView& graph, size_t node);

    std::shared_ptr<sdk::MemoryLedger> ledger_ = std::make_shared<sdk::MemoryLedger>("host memory");
    // Where compilations and inferences start their parallel work; the compiled models share it.
    std::shared_ptr<StreamThreads> threads_ = std::make_shared<StreamThreads>();
};

}  // namespace mosaic::cpu_plugin
