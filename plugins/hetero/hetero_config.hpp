// What a HETERO query or compile was asked for: the device list, the placement options, and the
// properties each device compiles its subgraphs with.
#pragma once

#include "host_client.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <regex>
#include <string>
#include <vector>

namespace mosaic::hetero {

enum class PlacementMode { greedy, min_transfer, one_device };

class HeteroConfig {
public:
    // `config`: HETERO's properties merged with the call's. Checks the device list (non-empty, no
    // duplicates, every device registered) and that each forwarded key is declared by some device.
    HeteroConfig(const nlohmann::json& config, const std::vector<std::string>& own_keys, const HostClient& host);

    std::vector<std::string> devices;  // priority order, high to low
    PlacementMode placement = PlacementMode::greedy;
    int64_t max_subgraphs = 0;         // 0: no limit
    double max_fallback_ratio = 1.0;
    bool visualize = false;
    std::string dump_dir;
    double transfer_overhead_us = 20;
    bool perf_count = false;
    std::string crossing_memory = "AUTO";  // HETERO_CROSSING_MEMORY (crossing_memory.hpp)
    bool pipeline = false;                 // MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL (pipeline.hpp)
    uint64_t requests = 1;                 // PERFORMANCE_HINT_NUM_REQUESTS: in flight at once, for the plan
    // HETERO_AFFINITY_PATTERNS: ops whose name a pattern finds go to its device (placement.hpp).
    struct AffinityPattern {
        std::string text, device;
        std::regex regex;
    };
    std::vector<AffinityPattern> affinity_patterns;

    // The properties `device` compiles with (lowest to highest precedence, on top of what the host
    // already applies: registry < devices/<NAME>.json < Core::set_property): keys given to HETERO
    // that the device declares, then DEVICE_PROPERTIES[device] (or of its base name).
    nlohmann::json device_config(const std::string& device) const;
    // "A,B,C" as given.
    std::string list_text() const;

private:
    const HostClient& host_;
    nlohmann::json forwarded_ = nlohmann::json::object();       // keys HETERO does not declare
    nlohmann::json per_device_ = nlohmann::json::object();      // DEVICE_PROPERTIES
    mutable std::map<std::string, nlohmann::json> declared_;    // device -> its property values
    const nlohmann::json& declared(const std::string& device) const;
};

}  // namespace mosaic::hetero
