// Convolution and GroupConvolution (depthwise included), and their transposed forms
// ConvolutionBackpropData and GroupConvolutionBackpropData (oneDNN's deconvolution), 1D to 3D,
// f32 or bf16, on oneDNN, with a fused bias, a BatchNorm folded into the filters (not transposed),
// activations and residual Add. The primitive picks its preferred layouts (format_tag::any): the
// weights are reordered into it once at compile time; it writes an intermediate output in its own
// (blocked) layout, which the next convolution or pooling reads as is. Its source is reordered per
// inference only when the producer's layout is not the one it chose (a plain graph input).
//
// Over dequantized operands (a QDQ model's) it runs on their integers, u8/i8 source and i8 filters,
// with the scales applied to the accumulator and a following quantization fused: its result is
// then the integer tensor itself (conv_executor.cpp, IntegerOperands).
#pragma once

#include "executor.hpp"
#include "fusion.hpp"
#include "onednn_util.hpp"
#include "packed_weights.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class ConvExecutor final : public Executor {
public:
    // nullptr when oneDNN cannot run `node` with `fused`: a type other than f32, filters that are not
    // constant, a window it cannot express, or no implementation for these post-ops.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node, const std::vector<FusedOp>& fused);
    // Whether `type` is one of the four convolutions above.
    static bool runs(const std::string& type) {
        return type == "Convolution" || type == "GroupConvolution" || type == "ConvolutionBackpropData" ||
               type == "GroupConvolutionBackpropData";
    }

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return impl_; }
    size_t scratch_bytes() const override { return scratch_.total(); }
    // The output may take over the residual's buffer only when both are stored alike: a reorder in place is no reorder.
    ValueId reusable_input() const override { return residual_user_ == dst_user_ ? residual_ : kNoValue; }
    void count_packed_weights(PackedWeightsTotals& totals) const override { totals.add(weights_); }

private:
    ConvExecutor(std::string name, std::string type, std::vector<ValueId> inputs, ValueId output);
    // Folds BatchNormInference `bn` into a copy of the filters and into the bias.
    void fold_batch_norm(const BuildContext& ctx, size_t bn, const Value& weights, int64_t channels);

    dnnl::engine engine_;
    dnnl::primitive primitive_;  // convolution_forward or deconvolution_forward
    std::string impl_;
    ValueId src_ = kNoValue, dst_ = kNoValue, residual_ = kNoValue;
    // *_user_: how the tensors are stored between executors; src_desc_/dst_desc_: what the primitive uses.
    dnnl::memory::desc src_user_, dst_user_, residual_user_, src_desc_, dst_desc_, bias_desc_, scratchpad_desc_;
    Reorder src_reorder_, dst_reorder_, residual_reorder_;  // empty when the layouts already agree
    PackedWeights weights_;
    const void* bias_ = nullptr;
    std::vector<float> owned_bias_;      // a scalar bias spread over the channels, or folded with a BatchNorm
    std::vector<float> folded_weights_;  // the filters scaled by a folded BatchNorm (packed from here)
    ScratchLayout scratch_;
    size_t src_offset_ = 0, dst_offset_ = 0, pad_offset_ = 0;
};

}  // namespace mosaic::cpu_plugin
