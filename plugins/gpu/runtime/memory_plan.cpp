#include "runtime/memory_plan.hpp"

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

    struct Buffer {
        size_t size = 0, free_after = 0;  // free once the executor `free_after` has run
        bool busy = false;
    };
    std::vector<Buffer> buffers;
    std::vector<ValueId> order;
    for (ValueId v = 0; v < values.size(); ++v)
        if (values[v].kind == Value::Kind::intermediate && values[v].alias_of == kNoValue && first[v] != kNever) order.push_back(v);
    std::stable_sort(order.begin(), order.end(), [&](ValueId a, ValueId b) { return first[a] < first[b]; });
    for (ValueId v : order) {
        const size_t bytes = std::max<size_t>(values[v].device_bytes(), 4);
        // Best fit among the buffers whose tensor died before this one is written.
        size_t best = SIZE_MAX;
        for (size_t b = 0; b < buffers.size(); ++b) {
            if (buffers[b].busy && buffers[b].free_after >= first[v]) continue;
            if (best == SIZE_MAX) { best = b; continue; }
            const bool fits = buffers[b].size >= bytes, best_fits = buffers[best].size >= bytes;
            if ((fits && (!best_fits || buffers[b].size < buffers[best].size)) || (!fits && !best_fits && buffers[b].size > buffers[best].size))
                best = b;
        }
        if (best == SIZE_MAX) {
            best = buffers.size();
            buffers.push_back({});
        }
        buffers[best].size = std::max(buffers[best].size, bytes);
        buffers[best].busy = true;
        buffers[best].free_after = last[v];
        plan.buffer_of[v] = best;
        plan.tensors++;
        plan.unshared_bytes += bytes;
    }
    for (const Buffer& b : buffers) plan.buffer_sizes.push_back(b.size);
    return plan;
}

}  // namespace mosaic::gpu_plugin
