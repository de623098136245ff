// Sharing buffers between the intermediate tensors of a compiled model: the memory plan every
// device needs, whatever memory its buffers are in (host arenas on CPU, device buffers on GPU).
//
//   std::vector<sdk::Lifetime> tensors;    // one per intermediate, in any order
//   tensors.push_back({first_step, last_step, bytes});
//   sdk::BufferPlan plan = sdk::plan_buffers(tensors);
//   plan.buffer_of[i]                      // tensor i's buffer; plan.buffer_sizes[b]: its size
//
// A tensor lives from the step that writes it (`first`) to the last step that reads it (`last`);
// a buffer is free for a tensor written after its last occupant's last step, so a step's output
// never shares a buffer with an input of that step. Tensors are placed in the order they are
// written, each in the best-fitting free buffer (the smallest that holds it, else the largest,
// grown), else a new one: greedy best fit, which on the chains and branches of real models stays
// within a few buffers of the optimum. A tensor may name another whose buffer it takes over when
// that one dies at the step that writes it (`reuse`): an op that writes its result over an operand
// (a residual Add fused into a convolution), when the device's kernel supports it.
//
// The lifetimes usually come from the device's executors in the order they run:
//
//   sdk::StepSpans spans = sdk::step_spans(values.size(), executors, storage_of);
//   if (spans.written(v)) tensors.push_back({spans.first[v], spans.last[v], bytes_of(v)});
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mosaic::sdk {

struct Lifetime {
    static constexpr size_t kNone = SIZE_MAX;
    size_t first = 0;      // the step that writes it
    size_t last = 0;       // the last step that reads it (>= first)
    size_t bytes = 0;      // what its buffer must hold (the caller rounds or pads as its device needs)
    size_t reuse = kNone;  // a tensor (index) whose buffer it may take over, if that one dies at `first`
};

struct BufferPlan {
    static constexpr size_t kNoBuffer = SIZE_MAX;
    std::vector<size_t> buffer_of;     // per tensor
    std::vector<size_t> buffer_sizes;  // per buffer, in bytes
    size_t unshared_bytes = 0;         // what one buffer per tensor would take
    size_t reused = 0;                 // tensors that took over their `reuse` tensor's buffer

    // Each buffer's offset in one arena holding them all, every offset a multiple of `alignment`.
    std::vector<size_t> offsets(size_t alignment) const {
        std::vector<size_t> out;
        size_t at = 0;
        for (size_t size : buffer_sizes) {
            out.push_back(at);
            at += (size + alignment - 1) / alignment * alignment;
        }
        return out;
    }
    // The size of that arena.
    size_t arena_bytes(size_t alignment) const {
        size_t total = 0;
        for (size_t size : buffer_sizes) total += (size + alignment - 1) / alignment * alignment;
        return total;
    }
};

inline BufferPlan plan_buffers(const std::vector<Lifetime>& tensors) {
    BufferPlan plan;
    plan.buffer_of.assign(tensors.size(), BufferPlan::kNoBuffer);
    std::vector<size_t> order(tensors.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tensors[a].first < tensors[b].first; });

    struct Buffer {
        size_t size = 0;
        size_t free_after = 0;  // the last step of its current tensor
        bool taken = false;     // a tensor took it over: it is busy until that tensor dies
    };
    std::vector<Buffer> buffers;
    for (size_t t : order) {
        const Lifetime& tensor = tensors[t];
        plan.unshared_bytes += tensor.bytes;
        size_t chosen = BufferPlan::kNoBuffer;
        if (tensor.reuse != Lifetime::kNone) {
            const Lifetime& source = tensors.at(tensor.reuse);
            const size_t b = plan.buffer_of.at(tensor.reuse);
            if (b != BufferPlan::kNoBuffer && source.last == tensor.first && buffers[b].free_after == source.last &&
                buffers[b].size >= tensor.bytes) {
                chosen = b;
                ++plan.reused;
            }
        }
        if (chosen == BufferPlan::kNoBuffer) {
            for (size_t b = 0; b < buffers.size(); ++b) {
                if (buffers[b].free_after >= tensor.first) continue;  // its tensor is still alive
                if (chosen == BufferPlan::kNoBuffer) {
                    chosen = b;
                    continue;
                }
                const size_t size = buffers[b].size, best = buffers[chosen].size;
                const bool fits = size >= tensor.bytes, best_fits = best >= tensor.bytes;
                if ((fits && (!best_fits || size < best)) || (!fits && !best_fits && size > best)) chosen = b;
            }
        }
        if (chosen == BufferPlan::kNoBuffer) {
            chosen = buffers.size();
            buffers.push_back({});
        }
        buffers[chosen].size = std::max(buffers[chosen].size, tensor.bytes);
        buffers[chosen].free_after = std::max(buffers[chosen].free_after, tensor.last);
        plan.buffer_of[t] = chosen;
    }
    for (const Buffer& b : buffers) plan.buffer_sizes.push_back(b.size);
    return plan;
}

// Each value's span of steps: from the first step writing it to the last writing or reading it.
struct StepSpans {
    static constexpr size_t kNever = SIZE_MAX;
    std::vector<size_t> first, last;  // per value; first[v] == kNever: no step writes it
    bool written(size_t v) const { return first.at(v) != kNever; }
};

// `steps`: the executors in execution order, each (through a pointer) with inputs() and outputs(),
// value ids (SIZE_MAX: an absent optional input). `storage_of` maps a value to the one whose buffer
// holds it (a view to its source), so a view's reads keep its source alive.
template <class Steps, class StorageOf>
StepSpans step_spans(size_t values, const Steps& steps, StorageOf storage_of) {
    StepSpans spans;
    spans.first.assign(values, StepSpans::kNever);
    spans.last.assign(values, 0);
    size_t step = 0;
    for (const auto& executor : steps) {
        for (size_t v : executor->outputs()) {
            const size_t s = storage_of(v);
            if (spans.first[s] == StepSpans::kNever) spans.first[s] = step;
            spans.last[s] = std::max(spans.last[s], step);
        }
        for (size_t v : executor->inputs()) {
            if (v == SIZE_MAX) continue;
            const size_t s = storage_of(v);
            spans.last[s] = std::max(spans.last[s], step);
        }
        ++step;
    }
    return spans;
}

}  // namespace mosaic::sdk
