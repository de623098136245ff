// Affinity: which device runs each op, and why. Ops whose runtime info carries an "affinity" keep
// it (all of them: manual placement; some: the rest are placed automatically); the others go to
// the first device of the priority list that supports them (greedy, as OpenVINO's HETERO does).
#pragma once

#include "hetero_config.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace mosaic::hetero {

// Parameter, Constant and Result are not placed: they are the model's boundary and weights.
bool is_placed_op(const sdk::GraphView& g, size_t node);

struct Placement {
    std::vector<std::string> device;       // per node; "" for unplaced nodes and ops no device runs
    std::vector<std::string> passed_over;  // per node: "DEVICE: reason" lines of higher-priority devices
    std::vector<std::string> why;          // per node: the "chosen: ..." line
    std::vector<bool> manual;              // affinity came from the op's runtime info
    std::vector<std::string> unsupported;  // per node: every device's reason when none can run it
    std::vector<bool> folded;              // per node: computed by HETERO at compile time (constant_expressions.hpp)
    // Each queried device's answer per node.
    std::map<std::string, std::vector<sdk::Device::Support>> answers;

    bool supports(const std::string& dev, size_t node) const {
        auto it = answers.find(dev);
        return it != answers.end() && node < it->second.size() && it->second[node].supported;
    }
    // The device a boundary node is reported on: a Constant's or Parameter's first consumer's, a
    // Result's producer's; for an op, its own.
    std::string reported_device(const sdk::GraphView& g, size_t node) const;
    std::string explanation(size_t node) const;
};

// Throws sdk::Error for an affinity naming an unusable device or a device that cannot run the op.
Placement place(const sdk::GraphView& g, const HeteroConfig& cfg, const HostClient& host);

// HETERO_PLACEMENT ONE_DEVICE: every placed op moves to the first device of the list that runs all
// of them, so that the model crosses no device boundary (what the framework asks for a control-flow
// body, which would otherwise cross on every iteration). Leaves the GREEDY placement when no device
// runs them all, or when affinities were set by hand.
void keep_on_one_device(const sdk::GraphView& g, Placement& p, const HeteroConfig& cfg);

// Throws when some op runs nowhere, naming every such op and the devices asked.
void require_all_placed(const sdk::GraphView& g, const Placement& p, const HeteroConfig& cfg);

}  // namespace mosaic::hetero
