// Constant expressions never split a graph. Ops whose inputs are all constants (a decompression
// Convert of an f16 weight, the Reshape of a conv bias, an exported model's shape arithmetic) are
// not placed like compute: each follows the device of the ops that read it when that device runs
// it, and is otherwise computed once by HETERO at compile time (with the reference kernels) and
// handed to its readers as a Constant. Without this, a device that lacks Convert would turn every
// weight of an FP16 IR into a one-op subgraph on the next device.
#pragma once

#include "placement.hpp"

#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace mosaic::hetero {

// The values HETERO computed, per (node, output port): 8-byte aligned bytes in the graph's type
// and shape.
struct FoldedValues {
    std::map<std::pair<size_t, size_t>, std::shared_ptr<const std::vector<uint64_t>>> ports;
    std::vector<bool> folded;  // per node

    bool is_folded(size_t node) const { return node < folded.size() && folded[node]; }
    // A Constant or a folded node: what a subgraph receives as a Constant.
    bool is_constant_like(const sdk::GraphView& g, size_t node) const { return g.is_constant(node) || is_folded(node); }
};

// Moves each compile-time op (reference::compile_time_nodes) without an affinity of its own to the
// device of its readers, or marks it folded (device ""), in reverse topological order so that a
// chain follows its last reader. An op whose affinity names a device that cannot run it is folded
// too. Updates `p` (device, why, unsupported, folded).
void settle_constant_expressions(const sdk::GraphView& g, Placement& p);

// Computes the folded nodes' outputs, in topological order. Throws sdk::Error naming the node when
// its reference kernel fails.
FoldedValues fold_constant_expressions(const sdk::GraphView& g, const std::vector<bool>& folded);

}  // namespace mosaic::hetero
