// What the GPU runs, op by op. Each op-group file (eltwise_ops.cpp, matmul_ops.cpp, ...)
// registers, for its op types, a check and a factory:
//   - check: why this node cannot run on the device, or "" when a kernel exists for exactly its
//     element types, ranks, shapes and attributes (the honest query: anything else is left to the
//     next device of a HETERO list);
//   - build: the executor running it, possibly with the nodes after it fused (BuildContext::fuse),
//     or none when the executor of a node after it absorbs it (matrix_layout.hpp).
#pragma once

#include "opencl/cl_engine.hpp"
#include "runtime/executor.hpp"

#include <mosaic/tensor_view.hpp>

#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mosaic::gpu_plugin {

struct BuildContext {
    const sdk::GraphView& graph;
    const ValueTable& values;
    ClEngine& engine;
    std::vector<bool>& fused;  // per node: absorbed by an executor built before it
    std::string gemm_kernel;   // GPU_GEMM_KERNEL: AUTO, TILED or CLBLAST (gemm.hpp)

    // Whether every one of `nodes` runs here and no executor built before has absorbed it: a
    // pattern over several ops (fusion.cpp, a layer normalisation) can take them all.
    bool all_still_to_run(const std::vector<size_t>& nodes) const {
        for (size_t n : nodes)
            if (!values.runs(n) || fused[n]) return false;
        return true;
    }

    // A read-only device buffer of `count` floats (weights an executor transformed) as the kernels
    // read a real tensor: f16 under the f16 hint (value_table.hpp).
    cl::Buffer upload(const float* data, size_t count) const { return engine.upload_floats(data, count, values.half_floats()); }
    // One initialised with `bytes` as they are (tables the kernels declare int or float).
    cl::Buffer upload_bytes(const void* data, size_t bytes) const { return engine.upload(data, bytes); }
    // How the device stores a tensor of type `t` (f16 for f32 under the f16 hint).
    ElementType device_type(ElementType t) const { return values.device_type(t); }
};

using OpCheck = std::function<std::string(const sdk::GraphView& graph, size_t node, const ClDeviceInfo& device)>;
using OpBuild = std::function<std::unique_ptr<Executor>(BuildContext& ctx, size_t node)>;

struct OpEntry {
    OpCheck check;
    OpBuild build;
};

// The entry for `type`, or null when the GPU has no kernel for it.
const OpEntry* find_op(const std::string& type);
// Every registered op type, sorted (for the README and the tests).
std::vector<std::string> registered_ops();

// Static registration from each op-group file: `OpRegistration r({"Relu", "Tanh"}, {check, build});`
struct OpRegistration {
    OpRegistration(std::initializer_list<const char*> types, OpEntry entry);
};

// The work items that share one row of Softmax or MVN, one output of a reduction or of a compressed
// MatMul (a work group combining in local memory): a power of two, at most 128 on a GPU (at most one
// per element of the row). An OpenCL CPU device runs each work group on one core, so more than a few
// lanes there only add barriers; 4 keeps the combining steps in use on PoCL, where CI tests them.
int64_t group_lanes(int64_t count, const ClDeviceInfo& device);

// Whether node `n` has outputs and every one is static and empty: nothing to compute, whatever the op
// (a Gather of a generation's first, empty KV cache). The device takes it and runs no kernel.
bool computes_nothing(const sdk::GraphView& g, size_t n);

// Common checks, each "" when satisfied.
std::string check_types(const sdk::GraphView& g, size_t n, std::initializer_list<ElementType> allowed);  // inputs and outputs
// Static shapes of rank <= max_rank, none empty (`empty_inputs`: inputs may be, for an op that
// skips them: a Concat of a generation's first KV-cache past, length 0).
std::string check_static_nonempty(const sdk::GraphView& g, size_t n, size_t max_rank = 8, bool empty_inputs = false);
// Why input `i` is not a constant whose values the check or the executor's build reads, or "".
std::string check_constant_input(const sdk::GraphView& g, size_t n, size_t i);
// Why input `i` is not known at compile time, or "": a constant or what the compiled model folds
// (value_table.hpp), e.g. a weight behind a decompression Convert; an executor reads it as a buffer.
std::string check_compile_time_input(const sdk::GraphView& g, size_t n, size_t i);
// A constant input's bytes (through views, with the shape the node sees), or nothing.
std::optional<ConstTensorView> constant_view(const sdk::GraphView& g, size_t n, size_t i);
// The integer values of a constant input (any integer type); empty when not constant.
std::vector<int64_t> constant_ints(const sdk::GraphView& g, size_t n, size_t i);
// Why node `n`'s auto_broadcast is not one the element-wise kernels take (numpy or none), or "".
std::string check_numpy_broadcast(const sdk::GraphView& g, size_t n);
// The first non-empty reason.
inline std::string first_of(std::initializer_list<std::string> reasons) {
    for (const auto& r : reasons)
        if (!r.empty()) return r;
    return "";
}

}  // namespace mosaic::gpu_plugin
