// MatMul on oneDNN's matmul primitive, f32, with OpenVINO's semantics (transpose_a/transpose_b as
// strides, 1-D operands, numpy-broadcast batch dims), a fused bias, activations and residual Add.
// Constant weights are reordered once at compile time into the layout the primitive prefers, or
// read as the model stores them (CPU_WEIGHTS_IN_PLACE); one row times them (an LLM's decode step)
// runs the streaming kernel of gemv.hpp on either layout.
// Dequantized operands (a QDQ model's) run as integers (integer_operands.hpp).
#pragma once

#include "executor.hpp"
#include "fusion.hpp"
#include "gemv.hpp"
#include "onednn_util.hpp"
#include "packed_weights.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class MatMulExecutor final : public Executor {
public:
    // nullptr when oneDNN cannot run `node` with `fused` (types, shapes or post-ops it lacks).
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node, const std::vector<FusedOp>& fused);

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return impl_; }
    size_t scratch_bytes() const override { return scratch_.total(); }
    ValueId reusable_input() const override { return residual_; }
    void count_packed_weights(PackedWeightsTotals& totals) const override { totals.add(weights_); }

private:
    MatMulExecutor(std::string name, std::string type, std::vector<ValueId> inputs, ValueId output);

    dnnl::engine engine_;
    dnnl::matmul primitive_;
    std::string impl_;
    ValueId a_ = kNoValue, b_ = kNoValue, dst_ = kNoValue, residual_ = kNoValue;
    dnnl::memory::desc a_desc_, b_desc_, dst_desc_, bias_desc_, scratchpad_desc_;
    dnnl::memory::desc a_compute_desc_;  // A converted to the compute type (bf16), when it differs
    Reorder a_reorder_;
    size_t a_offset_ = 0, pad_offset_ = 0;
    PackedWeights weights_;  // for constant B; a runtime B is read in place with b_desc_
    bool constant_b_ = false;
    const void* bias_ = nullptr;
    std::vector<float> owned_bias_;  // an integer product's bias, in its accumulator's units
    ScratchLayout scratch_;
    // One row times constant weights (gemv.hpp): the product, then the bias and post-ops in order.
    void prepare_gemv(const BuildContext& ctx, const std::vector<FusedOp>& fused, const Shape& a_shape,
                      bool transposed_a, bool matrix_b);
    void execute_gemv(const ExecContext& ctx) const;
    std::optional<BlockedWeights> gemv_;      // packed weights
    std::optional<PlainWeights> plain_gemv_;  // or weights in place
    std::vector<FusedOp> post_ops_;
    std::vector<dnnl::eltwise_forward> eltwise_;  // one per eltwise post-op, run in place on the row
    dnnl::memory::desc row_desc_;
    size_t x_offset_ = 0, y_offset_ = 0;
};

}  // namespace mosaic::cpu_plugin
