// Turns a graph's running nodes into executors, in topological order, through the op registry;
// a node an earlier executor fused is skipped, and so is one whose build gives none (a later
// executor absorbs it: a Transpose a MatMul reads through strides, matrix_layout.hpp).
#pragma once

#include "opencl/cl_engine.hpp"
#include "runtime/executor.hpp"

#include <memory>
#include <string>
#include <vector>

namespace mosaic::gpu_plugin {

// `gemm_kernel`: the GPU_GEMM_KERNEL property (gemm.hpp).
std::vector<std::unique_ptr<Executor>> build_executors(const sdk::GraphView& graph, const ValueTable& values,
                                                       ClEngine& engine, const std::string& gemm_kernel);

}  // namespace mosaic::gpu_plugin
