// Constant weights in the layout a primitive prefers, reordered once at compile time.
//
// A constant of the graph is packed once per layout in the whole process (constant_cache.hpp): the
// packed copy is shared by every compiled model that packs the same bytes the same way (1.9 GB for
// a 0.5B-parameter LLM in f32, once per specialization of its dynamic shapes otherwise). oneDNN
// picks the same blocked layout for a weight whatever the row count, so prefill and decode
// specializations share it too.
//
// Only the graph's constants are shared: weights the device computes at compile time (an f16
// weight's decompressing Convert folded, a BatchNorm folded into a convolution's filters) are each
// compiled model's own, packed for it alone.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <memory>

namespace mosaic::cpu_plugin {

// What a compiled model's packed weights take: all of them, and those it found already packed by
// another compiled model (CPU_PACKED_WEIGHTS).
struct PackedWeightsTotals {
    size_t bytes = 0;
    size_t shared_bytes = 0;

    void add(const class PackedWeights& w);
    void add(size_t copy_bytes, bool shared) {
        bytes += copy_bytes;
        if (shared) shared_bytes += copy_bytes;
    }
};

class PackedWeights {
public:
    PackedWeights() = default;
    // `data` (any buffer that outlives the executor) read in place when its layout is `wanted`, else
    // a private copy reordered to it.
    PackedWeights(const dnnl::engine& engine, const dnnl::memory::desc& plain, const void* data,
                  const dnnl::memory::desc& wanted);
    // The same for a graph constant: a reordered copy comes from, or goes to, the process's cache.
    static PackedWeights of_constant(const dnnl::engine& engine, const dnnl::memory::desc& plain, const void* constant,
                                     const dnnl::memory::desc& wanted);

    void* data() const { return data_; }
    bool reordered() const { return bool(owned_); }
    bool shared() const { return shared_; }  // a copy another compiled model had packed
    size_t byte_size() const { return desc_.get_size(); }
    const dnnl::memory::desc& desc() const { return desc_; }

private:
    std::shared_ptr<const dnnl::memory> owned_;  // library-allocated when reordered; shared through the cache
    dnnl::memory::desc desc_;
    void* data_ = nullptr;
    bool shared_ = false;
};

}  // namespace mosaic::cpu_plugin
