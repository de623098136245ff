#include "memory_plan.hpp"

#include <algorithm>
#include <set>

namespace mosaic::cpu_plugin {

namespace {

size_t aligned(size_t bytes) { return (bytes + 63) / 64 * 64; }

class BufferPool {
public:
    explicit BufferPool(MemoryPlan& plan) : plan_(plan) {}

    // The smallest free buffer that holds `bytes`, else the largest free one grown to it, else a new one.
    size_t acquire(size_t bytes) {
        auto best = free_.end();
        for (auto it = free_.begin(); it != free_.end(); ++it) {
            const size_t size = plan_.buffer_sizes[*it];
            if (best == free_.end()) {
                best = it;
                continue;
            }
            const size_t best_size = plan_.buffer_sizes[*best];
            const bool fits = size >= bytes, best_fits = best_size >= bytes;
            if ((fits && (!best_fits || size < best_size)) || (!fits && !best_fits && size > best_size)) best = it;
        }
        if (best == free_.end()) {
            plan_.buffer_sizes.push_back(bytes);
            return plan_.buffer_sizes.size() - 1;
        }
        const size_t buffer = *best;
        free_.erase(best);
        plan_.buffer_sizes[buffer] = std::max(plan_.buffer_sizes[buffer], bytes);
        return buffer;
    }

    void release(size_t buffer) { free_.push_back(buffer); }

private:
    MemoryPlan& plan_;
    std::vector<size_t> free_;
};

// Per value, the index of the last executor reading it (or writing it, when nothing reads it).
std::vector<size_t> last_uses(const ValueTable& values, const std::vector<std::unique_ptr<Executor>>& executors) {
    std::vector<size_t> last(values.size(), 0);
    for (size_t step = 0; step < executors.size(); ++step) {
        for (ValueId v : executors[step]->outputs()) last[v] = std::max(last[v], step);
        for (ValueId v : executors[step]->inputs()) last[v] = std::max(last[v], step);
    }
    return last;
}

}  // namespace

MemoryPlan plan_memory(const ValueTable& values, const std::vector<std::unique_ptr<Executor>>& executors) {
    MemoryPlan plan;
    plan.buffer_of.assign(values.size(), MemoryPlan::kNoBuffer);
    const std::vector<size_t> last = last_uses(values, executors);
    const auto intermediate = [&](ValueId v) { return values[v].kind == Value::Kind::intermediate; };
    BufferPool pool(plan);

    for (size_t step = 0; step < executors.size(); ++step) {
        const Executor& e = *executors[step];
        // A residual accumulated into the output hands its buffer over when it dies here and is
        // not also read as another operand of this step (a convolution must not overwrite its source).
        ValueId handed_over = kNoValue;
        const ValueId residual = e.reusable_input();
        if (residual != kNoValue && intermediate(residual) && intermediate(e.outputs()[0]) && last[residual] == step &&
            std::count(e.inputs().begin(), e.inputs().end(), residual) == 1 &&
            values[residual].storage_bytes() >= values[e.outputs()[0]].storage_bytes())
            handed_over = residual;

        for (size_t o = 0; o < e.outputs().size(); ++o) {
            const ValueId v = e.outputs()[o];
            if (!intermediate(v) || plan.buffer_of[v] != MemoryPlan::kNoBuffer) continue;
            ++plan.tensors;
            plan.unshared_bytes += aligned(values[v].storage_bytes());
            if (o == 0 && handed_over != kNoValue) {
                plan.buffer_of[v] = plan.buffer_of[handed_over];
                ++plan.in_place;
            } else {
                plan.buffer_of[v] = pool.acquire(aligned(values[v].storage_bytes()));
            }
        }
        // Buffers free up after the step: an output never shares with an input of its own step.
        std::set<ValueId> dying;
        for (ValueId v : e.inputs())
            if (intermediate(v) && last[v] == step && v != handed_over) dying.insert(v);
        for (ValueId v : e.outputs())
            if (intermediate(v) && last[v] == step) dying.insert(v);
        for (ValueId v : dying) pool.release(plan.buffer_of[v]);
    }

    for (size_t size : plan.buffer_sizes) {
        plan.buffer_offsets.push_back(plan.arena_bytes);
        plan.arena_bytes += aligned(size);
    }
    return plan;
}

nlohmann::json MemoryPlan::summary() const {
    return {{"tensors", tensors},
            {"buffers", buffer_sizes.size()},
            {"arena_bytes", arena_bytes},
            {"unshared_bytes", unshared_bytes},
            {"in_place", in_place}};
}

}  // namespace mosaic::cpu_plugin
