// LSTMSequence-5, GRUSequence-5 (with or without linear_before_reset) and RNNSequence-5 on
// oneDNN's RNN primitives, f32, with the default activations and no clipping, constant weights and
// constant sequence lengths that cover the whole sequence; anything else stays on the reference
// kernel.
//
// Mosaic's tensors are batch-first with the direction axis inside (X [N, T, I], Y [N, D, T, H],
// states [N, D, H]); oneDNN's are time-first with direction outside (src_layer [T, N, I],
// dst_layer [T, N, D*H], states [L, D, N, H]). X is read in place (oneDNN's ntc), and so is Y of
// one direction; the rest moves through reorders between strided views, created at compile time.
// The weights are permuted into oneDNN's gate order and packed once.
#pragma once

#include "executor.hpp"
#include "onednn_util.hpp"
#include "packed_weights.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class RnnExecutor final : public Executor {
public:
    // nullptr when `node` is not a recurrent sequence op or oneDNN cannot run it as it is.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node);

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return impl_; }
    size_t scratch_bytes() const override { return scratch_.total(); }
    void count_packed_weights(PackedWeightsTotals& totals) const override {
        totals.add(weights_layer_);
        totals.add(weights_iter_);
    }

private:
    RnnExecutor(std::string name, std::string type, std::vector<ValueId> inputs, std::vector<ValueId> outputs);

    // A state tensor ([N, D, H] in Mosaic, [1, D, N, H] in oneDNN) and where the primitive sees it.
    struct State {
        ValueId value = kNoValue;
        dnnl::memory::desc user;  // a strided view of the Mosaic tensor in oneDNN's dims
        Reorder reorder;          // empty when oneDNN reads or writes the tensor in place
        size_t offset = 0;        // of oneDNN's copy in the scratch, with a reorder
    };
    dnnl::memory state_memory(const State& s, const ExecContext& ctx) const;

    dnnl::engine engine_;
    dnnl::primitive primitive_;
    std::string impl_;
    bool has_cell_ = false;
    ValueId x_ = kNoValue, y_ = kNoValue;
    dnnl::memory::desc src_layer_, dst_layer_, state_desc_, scratchpad_desc_;
    State h0_, c0_, ho_, co_;
    // Y of two directions: oneDNN's dst_layer lands in the scratch and is reordered into Y.
    dnnl::memory::desc y_from_, y_to_;
    Reorder y_reorder_;
    size_t dst_layer_offset_ = 0;
    std::vector<float> weights_layer_data_, weights_iter_data_, bias_data_;  // gates in oneDNN's order
    PackedWeights weights_layer_, weights_iter_;
    dnnl::memory::desc bias_desc_;
    ScratchLayout scratch_;
    size_t pad_offset_ = 0;
};

}  // namespace mosaic::cpu_plugin
