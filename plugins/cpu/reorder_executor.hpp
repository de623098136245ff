// A layout change between executors: an intermediate a oneDNN executor wrote in a blocked layout,
// copied to plain row-major for a consumer that reads plain tensors (the reference kernels, and
// oneDNN executors that do not take blocked inputs). Made once per value, shared by every such
// consumer; profiled as its own record, so the cost of layout changes shows.
#pragma once

#include "executor.hpp"
#include "onednn_util.hpp"

namespace mosaic::cpu_plugin {

class ReorderExecutor final : public Executor {
public:
    // `name`: the consumer it is made for, with "/reorder" appended.
    ReorderExecutor(const BuildContext& ctx, std::string name, ValueId from, ValueId to);

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return impl_; }
    size_t scratch_bytes() const override { return reorder_.scratchpad_bytes(); }

private:
    dnnl::engine engine_;
    dnnl::memory::desc from_, to_;
    Reorder reorder_;
    std::string impl_;
};

}  // namespace mosaic::cpu_plugin
