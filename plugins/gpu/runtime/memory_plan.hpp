// Where the intermediate tensors of a compiled model live on the device during an inference.
// A tensor lives from the executor writing it to the last one reading it (through any view of it);
// tensors whose lifetimes do not overlap share a device buffer (the SDK's plan_buffers: greedy best
// fit in execution order). Graph inputs and outputs are the caller's tensors and constants are uploaded once:
// neither gets a buffer. Each infer request allocates the plan's buffers once.
#pragma once

#include "runtime/executor.hpp"

#include <memory>
#include <vector>

namespace mosaic::gpu_plugin {

struct MemoryPlan {
    static constexpr size_t kNoBuffer = SIZE_MAX;
    std::vector<size_t> buffer_of;     // per value: its buffer, or kNoBuffer
    std::vector<size_t> buffer_sizes;  // per buffer, in bytes
    size_t tensors = 0;                // intermediates placed
    size_t unshared_bytes = 0;         // what one buffer per tensor would take

    size_t total_bytes() const;
};

MemoryPlan plan_memory(const ValueTable& values, const std::vector<std::unique_ptr<Executor>>& executors);

}  // namespace mosaic::gpu_plugin
