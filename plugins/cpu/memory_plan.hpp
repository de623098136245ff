// Where each intermediate tensor of a compiled model lives during an inference. Lifetimes run
// from the executor that writes a tensor to the last one that reads it; tensors whose lifetimes do
// not overlap share a buffer (the SDK's plan_buffers: greedy best fit in execution order), and a
// fused residual Add writes its result over the residual's buffer when the residual dies there. Graph inputs and
// outputs are the caller's tensors and constants the host's memory: neither gets a buffer. Every
// infer request allocates the buffers once, as one arena.
#pragma once

#include "executor.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

namespace mosaic::cpu_plugin {

struct MemoryPlan {
    static constexpr size_t kNoBuffer = SIZE_MAX;

    std::vector<size_t> buffer_of;       // per value: its buffer, or kNoBuffer
    std::vector<size_t> buffer_offsets;  // per buffer: its offset in the request's arena (64-byte aligned)
    std::vector<size_t> buffer_sizes;
    size_t arena_bytes = 0;
    size_t tensors = 0;         // intermediate tensors placed
    size_t unshared_bytes = 0;  // what one buffer per tensor would take
    size_t in_place = 0;        // results written over a dying residual

    // {"tensors", "buffers", "arena_bytes", "unshared_bytes", "in_place"}: CPU_MEMORY_PLAN.
    nlohmann::json summary() const;
};

MemoryPlan plan_memory(const ValueTable& values, const std::vector<std::unique_ptr<Executor>>& executors);

}  // namespace mosaic::cpu_plugin
