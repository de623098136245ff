#include "memory_plan.hpp"

#include <mosaic/sdk/buffer_plan.hpp>

#include <algorithm>

namespace mosaic::cpu_plugin {

namespace {

size_t aligned(size_t bytes) { return (bytes + 63) / 64 * 64; }

}  // namespace

MemoryPlan plan_memory(const ValueTable& values, const std::vector<std::unique_ptr<Executor>>& executors) {
    const auto intermediate = [&](ValueId v) { return values[v].kind == Value::Kind::intermediate; };
    const sdk::StepSpans spans = sdk::step_spans(values.size(), executors, [](ValueId v) { return v; });
    const std::vector<size_t>&first = spans.first, &last = spans.last;
    std::vector<sdk::Lifetime> tensors;
    std::vector<size_t> tensor_of(values.size(), sdk::Lifetime::kNone);
    for (ValueId v = 0; v < values.size(); ++v) {
        if (!intermediate(v) || !spans.written(v)) continue;
        tensor_of[v] = tensors.size();
        tensors.push_back({first[v], last[v], aligned(values[v].storage_bytes())});
    }
    // A residual accumulated into the output hands its buffer over when it dies there and is not
    // also read as another operand of that step (a convolution must not overwrite its source).
    for (size_t step = 0; step < executors.size(); ++step) {
        const Executor& e = *executors[step];
        const ValueId residual = e.reusable_input();
        if (residual == kNoValue || e.outputs().empty()) continue;
        const ValueId out = e.outputs()[0];
        if (intermediate(residual) && intermediate(out) && first[out] == step && last[residual] == step &&
            std::count(e.inputs().begin(), e.inputs().end(), residual) == 1 &&
            values[residual].storage_bytes() >= values[out].storage_bytes())
            tensors[tensor_of[out]].reuse = tensor_of[residual];
    }

    const sdk::BufferPlan buffers = sdk::plan_buffers(tensors);
    MemoryPlan plan;
    plan.buffer_of.assign(values.size(), MemoryPlan::kNoBuffer);
    for (ValueId v = 0; v < values.size(); ++v)
        if (tensor_of[v] != sdk::Lifetime::kNone) plan.buffer_of[v] = buffers.buffer_of[tensor_of[v]];
    plan.buffer_sizes = buffers.buffer_sizes;
    plan.buffer_offsets = buffers.offsets(64);
    plan.arena_bytes = buffers.arena_bytes(64);
    plan.tensors = tensors.size();
    plan.unshared_bytes = buffers.unshared_bytes;
    plan.in_place = buffers.reused;
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
