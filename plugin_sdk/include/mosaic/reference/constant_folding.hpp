// Constant folding with the reference kernels, for devices that compute parts of a graph once at
// compile time: ops over constants (a transposed weight, a decompression Convert) and the shape
// computations of exported models (ShapeOf of a static shape, then Gather, Concat, Broadcast...).
// The CPU device folds as it builds its value table; the GPU device also answers its query with
// compile_time_nodes(), since a node it folds needs no kernel.
#pragma once

#include <mosaic/reference/kernels.hpp>
#include <mosaic/sdk/graph.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace mosaic::reference {

// Per node of `graph`: whether its outputs are known at compile time. A Constant is; so is a node
// (other than Parameter and Result) whose inputs all are, or a ShapeOf of a static shape, when its
// outputs have static shapes and a defined type and the op keeps no state.
std::vector<bool> compile_time_nodes(const sdk::GraphView& graph);
// The same for one node, looking only at the nodes it depends on (a weight behind a decompression
// Convert, say).
bool is_compile_time(const sdk::GraphView& graph, size_t node);

// Runs node `n`'s reference kernel over `inputs` (its inputs' values, in order) and returns the
// bytes of each of its outputs, with the graph's types and shapes. Throws what the kernel throws.
std::vector<std::unique_ptr<uint8_t[]>> fold_node(const sdk::GraphView& graph, size_t n,
                                                  const std::vector<ConstTensorView>& inputs);

}  // namespace mosaic::reference
