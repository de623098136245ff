// Transpose with a constant order as one oneDNN reorder: the source described row-major, the
// destination over the same logical dims with the strides the permuted output has, so that
// oneDNN's reorder kernels (blocked, vectorised, threaded) do the gather the reference kernel
// does element by element. Only bytes move, so any element type runs: 4-byte types as s32, the
// others as bytes (u8) or 32-bit words with an extra innermost dim holding one element's units.
#pragma once

#include "executor.hpp"
#include "onednn_util.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class TransposeExecutor final : public Executor {
public:
    // nullptr when `node` is not a Transpose with a constant order, its tensor is empty or a
    // scalar, or oneDNN declines.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node);

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return reorder_.impl(); }
    size_t scratch_bytes() const override { return reorder_.scratchpad_bytes(); }

private:
    TransposeExecutor(std::string name, ValueId src, ValueId dst);

    dnnl::engine engine_;
    Reorder reorder_;
    dnnl::memory::desc src_desc_, dst_desc_;
};

}  // namespace mosaic::cpu_plugin
