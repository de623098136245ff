// MIN_TRANSFER placement: after greedy assignment, moves whole islands of ops (connected ops on one
// device) to a neighbouring device when that lowers the estimated cost of the inference:
//
//   cost = sum over ops of compute_us(op, its device)
//        + sum over tensors and each other device that reads them of
//              HETERO_TRANSFER_OVERHEAD_US + bytes / min(bytes_per_us of both devices)
//
// compute_us and bytes_per_us come from each device's estimate_cost (plugin ABI 1.1) through the
// host, or the host's default model (mosaic/sdk/cost_model.hpp) for devices without one. The best
// move is applied and islands recomputed until no move lowers the cost; ops with a manual affinity
// are never moved, and an island only moves to a device that supports all of its ops.
#pragma once

#include "placement.hpp"

namespace mosaic::hetero {

void minimize_transfers(const sdk::GraphView& g, Placement& placement, const HeteroConfig& cfg,
                        const HostClient& host);

}  // namespace mosaic::hetero
