// Concat of f32 tensors on oneDNN's concat primitive, in the layouts its inputs arrive in: the
// branches of a SqueezeNet fire module or an Inception block are convolution outputs stored
// blocked, and concatenating them along the channels keeps that blocking for the convolution after
// (instead of a reorder of every branch to plain and another of the result back).
#pragma once

#include "primitive_executor.hpp"
#include "onednn_util.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class ConcatExecutor final : public PrimitiveExecutor {
public:
    // nullptr when oneDNN cannot run `node` fast: another element type, an empty input, or blocked
    // inputs only its reference implementation takes.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node);

    void execute(const ExecContext& ctx) const override;

private:
    ConcatExecutor(std::string name, std::vector<ValueId> inputs, ValueId output);
    std::vector<dnnl::memory::desc> src_descs_;
    dnnl::memory::desc dst_desc_;
};

}  // namespace mosaic::cpu_plugin
