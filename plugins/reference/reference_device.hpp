// The REFERENCE device: every op of the op set through the plain reference kernels. The numerical
// oracle for every other device. SUPPORTED_OPS narrows what it reports, so a registry can declare
// emulated accelerators with limited op support (ACCEL) from this same library.
#pragma once

#include "execution_gate.hpp"

#include <mosaic/sdk/plugin.hpp>

#include <memory>
#include <set>
#include <string>

namespace mosaic::reference_plugin {

class ReferenceDevice : public sdk::Device {
public:
    explicit ReferenceDevice(const std::string& name);

    std::vector<std::string> device_ids() const override;

    std::vector<Support> query(const sdk::GraphView& graph, const nlohmann::json& config) override;
    std::unique_ptr<sdk::CompiledModel> compile(const sdk::GraphView& graph, const nlohmann::json& config) override;
    std::unique_ptr<sdk::CompiledModel> import_model(const void* blob, size_t size, const nlohmann::json& config) override;
    // The default cost model scaled by COST_FACTOR, so an emulated accelerator can declare itself faster.
    bool estimate_cost(const sdk::GraphView& graph, size_t node, double& compute_us, double& bytes_per_us) override;

private:
    // Why `node` cannot run here, or empty when it can.
    static std::string unsupported_reason(const sdk::GraphView& graph, size_t node, const std::set<std::string>& allowed,
                                          const std::string& device);

    // Shared by every model compiled on this device: EXECUTION_UNITS limits them together.
    std::shared_ptr<ExecutionGate> gate_ = std::make_shared<ExecutionGate>();
};

}  // namespace mosaic::reference_plugin
