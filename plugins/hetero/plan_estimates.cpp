#include "plan_estimates.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace mosaic::hetero {

void add_estimates(const sdk::GraphView& g, const Placement& placement, const std::vector<Cluster>& clusters,
                   const HeteroConfig& cfg, const HostClient& host, const MemoryBudgets& budgets, SplitPlan& plan) {
    std::map<std::pair<std::string, size_t>, sdk::OpCost> costs;  // (device, node)
    auto cost = [&](const std::string& device, size_t node) -> const sdk::OpCost& {
        auto it = costs.find({device, node});
        if (it == costs.end()) it = costs.emplace(std::make_pair(device, node), host.estimate_cost(device, g.raw(), node)).first;
        return it->second;
    };
    std::map<std::string, double> device_us;
    for (size_t k = 0; k < clusters.size() && k < plan.subgraphs.size(); ++k) {
        double us = 0;
        for (size_t n : clusters[k].nodes) us += cost(clusters[k].device, n).compute_us;
        plan.subgraphs[k].predicted_us = us;
        device_us[clusters[k].device] += us;
    }
    // A crossing: the fixed overhead and its bytes at the slower of the two devices' rates, read
    // from the producing op and from the first op of the reading subgraph.
    std::map<std::string, std::set<size_t>> crossing_slots;  // device -> slots it writes or reads across devices
    for (Transfer& t : plan.transfers) {
        const Slot& slot = plan.slots[t.slot];
        const Cluster& from = clusters[t.from];
        const Cluster& to = clusters[t.to];
        const double rate = std::min(cost(from.device, from.nodes.back()).bytes_per_us,
                                     cost(to.device, to.nodes.front()).bytes_per_us);
        t.predicted_us = cfg.transfer_overhead_us + (rate > 0 ? static_cast<double>(slot.bytes()) / rate : 0);
        crossing_slots[from.device].insert(t.slot);
        crossing_slots[to.device].insert(t.slot);
    }
    const std::map<std::string, MemoryEstimate> held = estimate_memory(g, placement.device);
    const HostMemory memory(host.api());
    plan.memory = nlohmann::json::array();
    for (const std::string& d : cfg.devices) {
        const auto found = held.find(d);
        const MemoryEstimate e = found == held.end() ? MemoryEstimate{} : found->second;
        uint64_t crossing = 0;
        for (size_t s : crossing_slots[d]) crossing += plan.slots[s].bytes();
        nlohmann::json entry = {{"device", d},
                                {"ops", e.ops},
                                {"weights_bytes", e.weights},
                                {"state_bytes", e.state},
                                {"activations_bytes", e.activations},
                                {"crossing_bytes", crossing},
                                {"requests", cfg.requests},
                                {"total_bytes", e.total(cfg.requests)},
                                {"predicted_us", device_us[d]}};
        if (budgets.count(d)) entry["budget_bytes"] = budgets.at(d);
        mosaic_memory_info info{};
        if (memory.info(d, info)) {
            entry["memory_total_bytes"] = info.total_bytes;
            entry["memory_available_bytes"] = info.available_bytes;
        }
        plan.memory.push_back(std::move(entry));
    }
}

}  // namespace mosaic::hetero
