#include "hetero_compiled.hpp"

#include "hetero_request.hpp"

#include <algorithm>

namespace mosaic::hetero {

HeteroCompiledModel::HeteroCompiledModel(SplitPlan plan, std::vector<std::shared_ptr<HostCompiled>> compiled,
                                         std::shared_ptr<const std::string> keep_alive, const HostClient& host)
    : plan_(std::move(plan)), memory_(host.api()), slot_memory_(place_slot_memory(plan_, memory_, plan_.crossing_memory)),
      compiled_(std::move(compiled)), keep_alive_(std::move(keep_alive)) {}

std::unique_ptr<sdk::InferRequest> HeteroCompiledModel::create_request() {
    return std::make_unique<HeteroInferRequest>(*this);
}

nlohmann::json HeteroCompiledModel::property(const std::string& key) const {
    if (key == "EXECUTION_DEVICES") {
        nlohmann::json used = nlohmann::json::array();
        std::vector<std::string> order = plan_.devices;
        for (const auto& s : plan_.subgraphs)
            if (std::find(order.begin(), order.end(), s.device) == order.end()) order.push_back(s.device);
        for (const std::string& d : order)
            if (std::any_of(plan_.subgraphs.begin(), plan_.subgraphs.end(), [&](const auto& s) { return s.device == d; }))
                used.push_back(d);
        return used;
    }
    if (key == "HETERO_NUMBER_OF_SUBGRAPHS" || key == "HETERO_NUMBER_OF_SUBMODELS") return plan_.subgraphs.size();
    if (key == "OPTIMAL_NUMBER_OF_INFER_REQUESTS") {
        // Enough requests in flight that every device has one to work on (pipelining), and at
        // least what the most demanding subgraph's device asks for.
        int64_t best = static_cast<int64_t>(property("EXECUTION_DEVICES").size());
        for (const auto& c : compiled_) {
            try {
                best = std::max(best, c->property("OPTIMAL_NUMBER_OF_INFER_REQUESTS").get<int64_t>());
            } catch (const std::exception&) {
                // A device that does not say counts as one.
            }
        }
        return std::max<int64_t>(best, 1);
    }
    // Each transfer with where its tensor lives (crossing_memory.hpp), decided with the devices.
    if (key == "HETERO_SPLIT") return summary_with_paths(plan_, slot_memory_);
    if (key == "HETERO_AFFINITY_DOT") return plan_.affinity_dot;
    if (key == "HETERO_SUBGRAPHS_DOT") return plan_.subgraphs_dot;
    if (key == "NETWORK_NAME") return plan_.model_name;
    if (key == "MULTI_DEVICE_PRIORITIES") {
        std::string list;
        for (const auto& d : plan_.devices) list += (list.empty() ? "" : ",") + d;
        return list;
    }
    if (key == "PERF_COUNT") return plan_.perf_count;
    return sdk::CompiledModel::property(key);
}

}  // namespace mosaic::hetero
