// The common part of executors that run one oneDNN primitive made at compile time: the primitive,
// the implementation oneDNN picked for it (what profiling reports as execType) and the
// scratchpad it needs, which comes out of the request's scratch area at every run.
#pragma once

#include "executor.hpp"

#include <unordered_map>

namespace mosaic::cpu_plugin {

class PrimitiveExecutor : public Executor {
public:
    using Executor::Executor;

    std::string exec_type() const override { return impl_; }
    size_t scratch_bytes() const override { return scratchpad_.get_size(); }

protected:
    // Makes the primitive of `pd` (once, at compile time) and keeps what running it needs.
    void adopt(const dnnl::engine& engine, const dnnl::primitive_desc_base& pd) {
        engine_ = engine;
        primitive_ = dnnl::primitive(pd.get());
        impl_ = pd.impl_info_str();
        scratchpad_ = pd.scratchpad_desc();
    }

    // A memory object over `data`, which oneDNN takes as a mutable handle even for inputs.
    dnnl::memory memory(const dnnl::memory::desc& desc, const void* data) const {
        return dnnl::memory(desc, engine_, const_cast<void*>(data));
    }

    // Runs the primitive on `args`, its scratchpad at the start of the request's scratch area.
    void run(const ExecContext& ctx, std::unordered_map<int, dnnl::memory> args) const {
        if (scratchpad_.get_size()) args[DNNL_ARG_SCRATCHPAD] = memory(scratchpad_, ctx.scratch);
        primitive_.execute(*ctx.stream, args);
    }

    dnnl::engine engine_;

private:
    dnnl::primitive primitive_;
    std::string impl_;
    dnnl::memory::desc scratchpad_;
};

}  // namespace mosaic::cpu_plugin
