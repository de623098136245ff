#include "executor_builder.hpp"

#include "binary_executor.hpp"
#include "compressed_gather_executor.hpp"
#include "compressed_matmul_executor.hpp"
#include "concat_executor.hpp"
#include "conv_executor.hpp"
#include "eltwise_executor.hpp"
#include "erf_executor.hpp"
#include "fusion.hpp"
#include "layer_norm_executor.hpp"
#include "matmul_executor.hpp"
#include "pooling_executor.hpp"
#include "quantize_executor.hpp"
#include "reduction_executor.hpp"
#include "reference_executor.hpp"
#include "reorder_executor.hpp"
#include "rnn_executor.hpp"
#include "sdpa_executor.hpp"
#include "softmax_executor.hpp"
#include "transpose_executor.hpp"

#include <mosaic/sdk/plugin.hpp>

#include <algorithm>
#include <iterator>
#include <unordered_map>

namespace mosaic::cpu_plugin {

namespace {

using Factory = std::unique_ptr<Executor> (*)(const BuildContext&, size_t, const std::vector<FusedOp>&);

// A main op and as many of its fusable followers as the factory accepts, longest first.
std::unique_ptr<Executor> with_fusion(const BuildContext& ctx, size_t node, BiasRule rule, Factory factory,
                                      std::vector<bool>& fused_away) {
    std::vector<FusedOp> chain = fusable_chain(ctx.graph, ctx.values, node, rule);
    while (true) {
        if (std::unique_ptr<Executor> e = factory(ctx, node, chain)) {
            for (size_t n : fused_nodes(chain)) fused_away[n] = true;
            return e;
        }
        if (chain.empty()) return nullptr;
        chain.pop_back();
    }
}

// A QDQ model's quantization ops that no integer kernel absorbed, run as one executor each
// (quantize_executor.hpp), whatever layout their integer tensors are in.
std::unique_ptr<Executor> quantization_executor(const BuildContext& ctx, size_t node, std::vector<bool>& fused_away) {
    const std::string type = ctx.graph.type(node);
    std::vector<size_t> absorbed;
    std::unique_ptr<Executor> e;
    if (type == "Convert" || type == "Divide") e = QuantizeExecutor::create(ctx, node, absorbed);
    if (type == "Add") e = QuantizedAddExecutor::create(ctx, node, absorbed);
    for (size_t n : absorbed) fused_away[n] = true;
    return e;
}

std::unique_ptr<Executor> onednn_executor(const BuildContext& ctx, size_t node, std::vector<bool>& fused_away) {
    const std::string type = ctx.graph.type(node);
    if (std::unique_ptr<Executor> e = quantization_executor(ctx, node, fused_away)) return e;
    if (ConvExecutor::runs(type)) return with_fusion(ctx, node, BiasRule::per_channel, &ConvExecutor::create, fused_away);
    if (type == "MatMul") {
        if (auto e = with_fusion(ctx, node, BiasRule::broadcast, &CompressedMatMulExecutor::create, fused_away)) return e;
        return with_fusion(ctx, node, BiasRule::broadcast, &MatMulExecutor::create, fused_away);
    }
    if (type == "Gather")
        if (auto e = CompressedGatherExecutor::create(ctx, node)) return e;
    if (type == "MaxPool" || type == "AvgPool") return PoolingExecutor::create(ctx, node);
    if (type == "Softmax") return SoftmaxExecutor::create(ctx, node);
    if (type == "ScaledDotProductAttention") return SdpaExecutor::create(ctx, node);
    if (type == "LSTMSequence" || type == "GRUSequence" || type == "RNNSequence")
        return RnnExecutor::create(ctx, node);
    // Decomposed LayerNorm, erf Gelu and Swish: one executor from their first op, the rest absorbed.
    std::vector<size_t> absorbed;
    std::unique_ptr<Executor> e = LayerNormExecutor::create(ctx, node, absorbed);
    if (!e && (type == "Divide" || type == "Multiply" || type == "Sigmoid"))
        e = EltwiseExecutor::create_decomposed(ctx, node, absorbed);
    for (size_t n : absorbed) fused_away[n] = true;
    if (!e && BinaryExecutor::runs(type)) e = with_fusion(ctx, node, BiasRule::none, &BinaryExecutor::create, fused_away);
    if (!e) e = EltwiseExecutor::create(ctx, node);
    if (!e && type == "Erf") e = ErfExecutor::create(ctx, node);
    if (!e && type == "Transpose") e = TransposeExecutor::create(ctx, node);
    if (!e) e = ReductionExecutor::create(ctx, node);
    if (!e && type == "Concat") e = ConcatExecutor::create(ctx, node);
    return e;
}

// The executors that read their inputs in whatever layout the producer wrote, and write a blocked
// output where that keeps the next executor from reordering: convolution, pooling, binary ops,
// reductions and Concat. nullptr when `node` is none of them, or its factory declines these
// layouts; every other executor reads plain tensors.
std::unique_ptr<Executor> layout_keeping_executor(const BuildContext& ctx, size_t node, std::vector<bool>& fused_away) {
    const std::string type = ctx.graph.type(node);
    if (std::unique_ptr<Executor> e = quantization_executor(ctx, node, fused_away)) return e;
    if (ConvExecutor::runs(type)) return with_fusion(ctx, node, BiasRule::per_channel, &ConvExecutor::create, fused_away);
    if (type == "MaxPool" || type == "AvgPool") return PoolingExecutor::create(ctx, node);
    if (BinaryExecutor::runs(type)) return with_fusion(ctx, node, BiasRule::none, &BinaryExecutor::create, fused_away);
    if (ReductionExecutor::runs(type)) {
        if (std::unique_ptr<Executor> e = PoolingExecutor::create_global(ctx, node)) return e;
        return ReductionExecutor::create(ctx, node);
    }
    if (type == "Concat") return ConcatExecutor::create(ctx, node);
    return nullptr;
}

bool has_blocked_input(const BuildContext& ctx, size_t node) {
    for (size_t i = 0; i < ctx.graph.input_count(node); ++i)
        if (!ctx.values[ctx.values.input(node, i)].is_plain()) return true;
    return false;
}

// The executors of a graph, with the reorders that bring blocked tensors back to plain for the
// consumers that need it: one per value, placed before its first such consumer.
class Builder {
public:
    explicit Builder(const BuildContext& ctx) : ctx_(ctx), fused_away_(ctx.graph.node_count(), false) {}

    std::vector<std::unique_ptr<Executor>> build() {
        for (size_t n = 0; n < ctx_.graph.node_count(); ++n) {
            if (!ctx_.values.runs(n) || fused_away_[n]) continue;
            // Convolution and pooling, and any op with blocked inputs, go to an executor that keeps
            // layouts when one takes them; other ops to the general choice, which also recognises
            // the multi-op patterns (LayerNorm, Gelu, ...) that start at a plain binary op.
            const std::string type = ctx_.graph.type(n);
            const bool conv_or_pool = ConvExecutor::runs(type) || type == "MaxPool" || type == "AvgPool";
            std::unique_ptr<Executor> e;
            if (conv_or_pool || has_blocked_input(ctx_, n)) e = layout_keeping_executor(ctx_, n, fused_away_);
            if (!e) e = plain_executor(n);
            executors_.push_back(std::move(e));
        }
        prune_unread();
        return std::move(executors_);
    }

private:
    // An executor of `node` reading plain inputs only: its own, and those of the ops it fuses.
    std::unique_ptr<Executor> plain_executor(size_t node) {
        make_inputs_plain(node);
        const std::vector<bool> before = fused_away_;
        std::unique_ptr<Executor> e = onednn_executor(ctx_, node, fused_away_);
        if (e && reads_blocked(*e)) {
            // A fused op's other operand (a residual Add's) is blocked: copy it too, fuse again.
            for (size_t k = 0; k < fused_away_.size(); ++k)
                if (fused_away_[k] && !before[k]) make_inputs_plain(k);
            fused_away_ = before;
            e = onednn_executor(ctx_, node, fused_away_);
        }
        if (!e) e = std::make_unique<ReferenceExecutor>(ctx_.graph, ctx_.values, node);
        return e;
    }

    bool reads_blocked(const Executor& e) const {
        for (ValueId v : e.inputs())
            if (!ctx_.values[v].is_plain()) return true;
        return false;
    }

    void make_inputs_plain(size_t node) {
        for (size_t i = 0; i < ctx_.graph.input_count(node); ++i) {
            const ValueId v = ctx_.values.input(node, i);
            if (ctx_.values[v].is_plain()) continue;
            auto [it, added] = plain_copy_.emplace(v, kNoValue);
            if (added) {
                it->second = ctx_.values.add_plain_copy(v);
                executors_.push_back(
                    std::make_unique<ReorderExecutor>(ctx_, ctx_.graph.node_name(node) + "/reorder", v, it->second));
            }
            ctx_.values.rebind_input(node, i, it->second);
        }
    }

    // Drops the executors whose results nothing reads: the dequantizations that integer kernels
    // made unnecessary by reading the integers themselves (and a plain copy made for one). From the
    // last executor back, so that what only a dropped one read goes too.
    void prune_unread() {
        std::vector<bool> read(ctx_.values.size(), false);
        for (const ResultCopy& c : ctx_.values.result_copies()) read[c.from] = true;
        std::vector<std::unique_ptr<Executor>> kept;
        for (size_t i = executors_.size(); i-- > 0;) {
            const std::vector<ValueId>& outputs = executors_[i]->outputs();
            const bool needed = outputs.empty() || std::any_of(outputs.begin(), outputs.end(), [&](ValueId v) {
                                    return read[v] || ctx_.values[v].kind != Value::Kind::intermediate;
                                });
            if (!needed) continue;
            for (ValueId v : executors_[i]->inputs()) read[v] = true;
            kept.push_back(std::move(executors_[i]));
        }
        executors_.assign(std::make_move_iterator(kept.rbegin()), std::make_move_iterator(kept.rend()));
    }

    const BuildContext& ctx_;
    std::vector<bool> fused_away_;
    std::vector<std::unique_ptr<Executor>> executors_;
    std::unordered_map<ValueId, ValueId> plain_copy_;  // blocked value -> its plain copy
};

}  // namespace

std::vector<std::unique_ptr<Executor>> build_executors(const BuildContext& ctx) { return Builder(ctx).build(); }

}  // namespace mosaic::cpu_plugin
