// MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL (OpenVINO's key): the model cut into consecutive
// stages, one per device in priority order, each holding what fits in that device's memory: ops go
// to the current device, in topological order, until its weights and activations would pass its
// budget; then the next device takes over. An op the current device lacks goes to the first later
// device that runs it (per-op support still rules), counted against that device; an affinity set by
// hand stays. A device's budget is its DEVICE_MEMORY_LIMIT (given to HETERO in DEVICE_PROPERTIES or
// set on the device), else the free memory it reports (memory_info); a device that reports neither
// is an error, and so is a model that does not fit them all: never a quiet fall back to one device.
// With PERFORMANCE_HINT_NUM_REQUESTS n, each device holds its weights once and state and
// activations n times: the requests in flight that pipelining keeps on the stages at once.
//
// What a stage holds is estimated from the graph: the weights its ops read (constants, at the width
// they are stored), the state they read (a stateful model's variables, by the "mosaic_variable"
// runtime info the framework gives their Parameters; an LLM pipeline's KV cache inputs, which it
// marks so, at the length it plans for: "mosaic_plan_shape"), and the peak of the intermediate tensors
// alive at once as its ops run in order (those it reads from earlier stages included). The devices' own accounting has the last word:
// a subgraph a device refuses for memory when compiled shrinks that device's budget and the model
// is cut again (hetero_device.cpp).
#pragma once

#include "placement.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace mosaic::hetero {

// Bytes each device may hold, by name: its budget.
using MemoryBudgets = std::map<std::string, uint64_t>;

// What a device holds for its ops, estimated from the graph (see above). State is the variables
// its ops read (a stateful model's KV cache, kept for a request's life), apart from the activation
// peak of the tensors that come and go.
struct MemoryEstimate {
    uint64_t weights = 0, state = 0, activations = 0;
    size_t ops = 0;
    // With `requests` in flight, each with its own state and activations; the weights are shared.
    uint64_t total(uint64_t requests = 1) const { return weights + requests * (state + activations); }
};

// The bytes of output `o` of node `n` (0 when its shape is not static), and whether node `n` is a
// stateful model's variable (a Parameter the framework marks "mosaic_variable").
uint64_t value_bytes(const sdk::GraphView& g, size_t n, size_t o);
bool is_state(const sdk::GraphView& g, size_t n);
// A state's bytes as planned: at its "mosaic_plan_shape" runtime info where it has one (an LLM
// pipeline's KV cache at the length it may grow to), else as compiled.
uint64_t state_bytes(const sdk::GraphView& g, size_t n);

// Each device's estimate with the ops placed as `device` says (per node, "" for none).
std::map<std::string, MemoryEstimate> estimate_memory(const sdk::GraphView& g, const std::vector<std::string>& device);

// Each device's budget (see above); throws sdk::Error naming a device that reports no memory.
MemoryBudgets memory_budgets(const HeteroConfig& cfg, const HostClient& host);

// Moves every automatically placed op of `p` to its pipeline stage's device (each op's explanation
// names its stage and what its device holds). Throws sdk::Error saying by how much the model does
// not fit, and what to change.
// `stage_ends`: node indices where stages 1, 2, ... should end at the latest (pipeline_cuts.hpp);
// empty: each device takes what fits. `rule` says how they were chosen, for the explanations.
void place_pipeline(const sdk::GraphView& g, Placement& p, const HeteroConfig& cfg, const MemoryBudgets& budgets,
                    const std::vector<size_t>& stage_ends = {}, const std::string& rule = "");

}  // namespace mosaic::hetero
