// Where PIPELINE_PARALLEL's stages end (pipeline.hpp), chosen before the ops are placed, over the
// automatically placed ops in node order cut into consecutive ranges, one per device in priority
// order, each fitting its device's budget by a quick estimate (weights and state by their first or
// last reader, the activation peak of the whole graph's live tensors over the range):
//
//  - one request in flight (PERFORMANCE_HINT_NUM_REQUESTS unset or 1): OpenVINO's rule, each device
//    takes as much as fits, in priority order; but the cut moves back, within the last tenth of
//    the stage, to where the fewest bytes cross, so that a stage ends between layers rather than
//    inside one;
//  - more in flight: the cuts that make the slowest stage fastest (its predicted time with its
//    crossing in), then the fewest bytes crossing: a pipeline's throughput is its slowest stage's.
//
// The placement that follows still checks every op against the device's exact accounting and ends
// a stage early where the estimate was short; cuts that cannot be honoured at all are dropped for
// the plain fill.
#pragma once

#include "pipeline.hpp"

#include <functional>
#include <string>
#include <vector>

namespace mosaic::hetero {

struct StageCuts {
    // Node indices: stage k (k < devices - 1) ends before nodes[k]; empty when no cut fits.
    std::vector<size_t> nodes;
    std::string rule;  // how they were chosen, for the ops' explanations
};

// The predicted time of `node` on `device` (the devices' estimate_cost).
using OpTime = std::function<sdk::OpCost(const std::string& device, size_t node)>;

StageCuts choose_cuts(const sdk::GraphView& g, const Placement& p, const HeteroConfig& cfg, const MemoryBudgets& budgets,
                      const OpTime& time);

}  // namespace mosaic::hetero
