// What a split is expected to cost, before anything is compiled: per device the bytes it would
// hold (weights, state, the activation peak; the crossing tensors it reads or writes) against
// the memory it has, and per subgraph and crossing the time it would take, from the devices' cost
// estimates (estimate_cost, else the default cost model). `mosaic plan` and query_model_details
// show them (ABI 1.4 query_plan), and HETERO_SPLIT keeps them beside what was compiled, so a plan
// can be checked against the allocations and the profile it led to.
#pragma once

#include "partition.hpp"
#include "pipeline.hpp"
#include "split_plan.hpp"

namespace mosaic::hetero {

// Fills plan.memory (one entry per device of the list) and each subgraph's and transfer's
// predicted_us. `budgets`: PIPELINE_PARALLEL's, empty otherwise.
void add_estimates(const sdk::GraphView& g, const Placement& placement, const std::vector<Cluster>& clusters,
                   const HeteroConfig& cfg, const HostClient& host, const MemoryBudgets& budgets, SplitPlan& plan);

}  // namespace mosaic::hetero
