// Turns a graph's running nodes into executors, in topological order, through the op registry;
// a node an earlier executor fused is skipped.
#pragma once

#include "cl_engine.hpp"
#include "executor.hpp"

#include <memory>
#include <vector>

namespace mosaic::gpu_plugin {

std::vector<std::unique_ptr<Executor>> build_executors(const sdk::GraphView& graph, const ValueTable& values,
                                                       ClEngine& engine);

}  // namespace mosaic::gpu_plugin
