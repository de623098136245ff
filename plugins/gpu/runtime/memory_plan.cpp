#include "runtime/memory_plan.hpp"

#include <mosaic/sdk/buffer_plan.hpp>

#include <algorithm>
#include <numeric>

namespace mosaic::gpu_plugin {

size_t MemoryPlan::total_bytes() const { return std::accumulate(buffer_sizes.begin(), buffer_sizes.end(), size_t{0}); }

MemoryPlan plan_memory(const ValueTable& values, const std::vector<std::unique_ptr<Executor>>& executors) {
    MemoryPlan plan;
    plan.buffer_of.assign(values.size(), MemoryPlan::kNoBuffer);
    constexpr size_t kNever = SIZE_MAX;
    std::vector<size_t> first(values.size(), kNever), last(values.size(), 0);
    for (size_t e = 0; e < executors.size(); ++e) {
        for (ValueId v : executors[e]->outputs()) {
            const ValueId s = values.storage_of(v);
            if (first[s] == kNever) first[s] = e;
            last[s] = std::max(last[s], e);
        }
        for (ValueId v : executors[e]->inputs()) {
            if (v == kNoValue) continue;
            const ValueId s = values.storage_of(v);
            last[s] = std::max(last[s], e);
        }
    }
    // Values that the final result copies read stay alive to the end.
    for (const ResultCopy& c : values.result_copies()) last[values.storage_of(c.from)] = executors.size();

    std::vector<sdk::Lifetime> tensors;
    std::vector<ValueId> placed;
    for (ValueId v = 0; v < values.size(); ++v)
        if (values[v].kind == Value::Kind::intermediate && values[v].alias_of == kNoValue && first[v] != kNever) {
            tensors.push_back({first[v], last[v], std::max<size_t>(values[v].device_bytes(), 4)});
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
