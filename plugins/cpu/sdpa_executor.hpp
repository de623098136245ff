// ScaledDotProductAttention-13 in f32: one query row per step, the rows spread over the stream's
// threads. Each row's scores go through a buffer of one row (S floats per thread), never the whole
// [batch, L, S] score matrix, so a long context costs memory in proportion to its length only.
// Scale, mask (boolean or additive, broadcast) and causal as the reference kernel, which computes
// in double: the oracle this one is tested against. A row whose keys are all masked is NaN, as there.
#pragma once

#include "executor.hpp"
#include "onednn_util.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class SdpaExecutor final : public Executor {
public:
    // nullptr when `node` is not an f32 ScaledDotProductAttention of non-empty tensors whose batch
    // axes broadcast, with a mask of a type the reference takes and a scale that is an f32 scalar.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node);

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return "cpu:sdpa"; }
    size_t scratch_bytes() const override { return scratch_.total(); }

private:
    SdpaExecutor(std::string name, std::vector<ValueId> inputs, ValueId output);

    enum class Mask { none, boolean, additive };
    int64_t L_ = 0, S_ = 0, E_ = 0, Ev_ = 0;
    // Per index of the output's batch axes, the matrix each input reads (numpy broadcasting).
    std::vector<int64_t> q_matrix_, k_matrix_, v_matrix_, mask_matrix_;
    Mask mask_ = Mask::none;
    int64_t mask_matrix_size_ = 1, mask_row_stride_ = 0, mask_col_stride_ = 0;  // of one mask matrix
    bool causal_ = false;
    float scale_ = 1.0f;
    ValueId mask_value_ = kNoValue, scale_value_ = kNoValue;  // scale_value_: a scale computed at run time
    int threads_ = 1;
    ScratchLayout scratch_;
    size_t scores_offset_ = 0;
};

}  // namespace mosaic::cpu_plugin
