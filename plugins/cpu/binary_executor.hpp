// Binary element-wise ops on oneDNN's binary primitive, f32, with numpy broadcasting: Add,
// Subtract, Multiply, Divide, Maximum, Minimum, SquaredDifference (a subtraction squared by a
// post-op) and the comparisons (a boolean result, one byte per element), with the eltwise ops
// after them fused as post-ops. The reference kernels walk a broadcast index per element on one
// thread; oneDNN's kernels vectorise the common broadcasts (scalar, per channel, none) and
// parallelise every case.
//
// oneDNN broadcasts only its second source: the first must have the output's shape. Ranks are
// padded with leading 1s; when only the first operand broadcasts, the operands swap places (a
// subtraction negated by a post-op, a comparison mirrored). A division whose dividend broadcasts
// has no exact swapped form, and both operands broadcasting (a [3, 1] by [1, 4] outer product) no
// form at all: those stay on the reference kernels.
#pragma once

#include "primitive_executor.hpp"
#include "fusion.hpp"
#include "onednn_util.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class BinaryExecutor final : public PrimitiveExecutor {
public:
    // Whether `type` is one of the ops above (the builder asks before looking for a chain to fuse).
    static bool runs(const std::string& type);

    // `node` with the eltwise ops of `fused` as post-ops, or nullptr: another op or element type,
    // a bias or residual sum in `fused`, both operands broadcasting, or oneDNN declines.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node, const std::vector<FusedOp>& fused);

    void execute(const ExecContext& ctx) const override;

private:
    BinaryExecutor(std::string name, std::string type, std::vector<ValueId> inputs, ValueId output);
    ValueId src0_ = kNoValue, src1_ = kNoValue;  // as oneDNN takes them: src0 has the output's shape
    dnnl::memory::desc src0_desc_, src1_desc_, dst_desc_;
};

}  // namespace mosaic::cpu_plugin
