#include "runtime/memory_plan.hpp"

#include <mosaic/sdk/buffer_plan.hpp>

#include <algorithm>
#include <numeric>

namespace mosaic::gpu_plugin {

size_t MemoryPlan::total_bytes() const { return std::accumulate(buffer_sizes.begin(), buffer_sizes.end(), size_t{0}); }

MemoryPlan plan_memory(const ValueTable& values, const std::vector<std::unique_ptr<Executor>>& executors) {
    MemoryPlan plan;
    plan.buffer_of.assign(values.size(), MemoryPlan::kNoBuffer);
    sdk::StepSpans spans = sdk::step_spans(values.size(), executors, [&](ValueId v) { return values.storage_of(v); });
    // Values that the final result copies read stay alive to the end.
    for (const ResultCopy& c : values.result_copies()) spans.last[values.storage_of(c.from)] = executors.size();

    std::vector<sdk::Lifetime> tensors;
    std::vector<ValueId> placed;
    for (ValueId v = 0; v < values.size(); ++v)
        if (values[v].kind == Value::Kind::intermediate && values[v].alias_of == kNoValue && spans.written(v)) {
            tensors.push_back({spans.first[v], spans.last[v], std::max<size_t>(values[v].device_bytes(), 4)});
            placed.push_back(v);
        }
    const sdk::BufferPlan buffers = sdk::plan_buffers(tensors);
    for (size_t t = 0; t < placed.size(); ++t) plan.buffer_of[placed[t]] = buffers.buffer_of[t];
    plan.buffer_sizes = buffers.buffer_sizes;
    plan.tensors = tensors.size();
    plan.unshared_bytes = buffers.unshared_bytes;
    return plan;
}

}  // namespace mosaic::gpu_plugin
