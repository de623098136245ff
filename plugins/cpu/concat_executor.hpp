// Concat of f32 tensors on oneDNN's concat primitive, in the layouts its inputs arrive in: the
// branches of a SqueezeNet fire module or an Inception block are convolution outputs stored
// blocked, and concatenating them along the channels keeps that blocking for the convolution after
// (instead of a reorder of every branch to plain and another of the result back).
#pragma once

#include "executor.hpp"
#include "onednn_util.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class ConcatExecutor final : public Executor {
public:
    // nullptr when oneDNN cannot run `node` fast: another element type, an empty input, or blocked
    // inputs only its reference implementation takes.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node);

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return impl_; }
    size_t scratch_bytes() const override { return scratchpad_desc_.get_size(); }

private:
    ConcatExecutor(std::string name, std::vector<ValueId> inputs, ValueId output);

    dnnl::engine engine_;
    dnnl::concat primitive_;
    std::string impl_;
    std::vector<dnnl::memory::desc> src_descs_;
    dnnl::memory::desc dst_desc_, scratchpad_desc_;
};

}  // namespace mosaic::cpu_plugin
