// A model split by HETERO: one compiled model per subgraph (on its device, through the host) and
// the plan that joins them. Requests run the subgraphs in dependency order, overlapping
// independent ones.
#pragma once

#include "crossing_memory.hpp"
#include "host_client.hpp"
#include "split_plan.hpp"

#include <memory>
#include <string>
#include <vector>

namespace mosaic::hetero {

class HeteroCompiledModel : public sdk::CompiledModel {
public:
    // `keep_alive` owns bytes the plan's constants point into (an imported blob); may be null.
    // `host` places the crossings' memory (crossing_memory.hpp) and serves the requests' buffers.
    HeteroCompiledModel(SplitPlan plan, std::vector<std::shared_ptr<HostCompiled>> compiled,
                        std::shared_ptr<const std::string> keep_alive, const HostClient& host);

    std::unique_ptr<sdk::InferRequest> create_request() override;
    nlohmann::json property(const std::string& key) const override;
    bool can_export() const override { return true; }
    std::string export_model() const override;

    // Compiles or imports each subgraph of an exported blob (hetero_export.cpp). `config` may turn
    // PERF_COUNT on and add DEVICE_PROPERTIES on top of what each subgraph was compiled with.
    static std::unique_ptr<HeteroCompiledModel> import_blob(const void* blob, size_t size, const HostClient& host,
                                                            const nlohmann::json& config);

    const SplitPlan& plan() const { return plan_; }
    const std::vector<std::shared_ptr<HostCompiled>>& compiled() const { return compiled_; }
    const std::vector<SlotMemory>& slot_memory() const { return slot_memory_; }
    const HostMemory& memory() const { return memory_; }

private:
    SplitPlan plan_;
    HostMemory memory_;
    std::vector<SlotMemory> slot_memory_;  // per slot
    std::vector<std::shared_ptr<HostCompiled>> compiled_;  // per subgraph
    std::shared_ptr<const std::string> keep_alive_;
};

}  // namespace mosaic::hetero
