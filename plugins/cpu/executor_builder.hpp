// Turns a graph into the executors of a compiled model, in topological order: each convolution,
// MatMul or binary element-wise op with the ops it can absorb (the longest prefix of its fusable
// chain oneDNN accepts), decomposed LayerNorms, erf Gelus and Swishes as one executor each,
// pooling, softmax, eltwise functions, reductions and transposes on oneDNN, and every other op, or
// any of those oneDNN turns down, on the reference kernels. Primitives and weight reorders are all
// made here, once.
#pragma once

#include "executor.hpp"

#include <memory>
#include <vector>

namespace mosaic::cpu_plugin {

std::vector<std::unique_ptr<Executor>> build_executors(const BuildContext& ctx);

}  // namespace mosaic::cpu_plugin
