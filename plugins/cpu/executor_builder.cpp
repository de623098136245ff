#include "executor_builder.hpp"

#include "binary_executor.hpp"
#include "conv_executor.hpp"
#include "eltwise_executor.hpp"
#include "fusion.hpp"
#include "layer_norm_executor.hpp"
#include "matmul_executor.hpp"
#include "pooling_executor.hpp"
#include "reduction_executor.hpp"
#include "reference_executor.hpp"
#include "softmax_executor.hpp"
#include "transpose_executor.hpp"

#include <mosaic/sdk/plugin.hpp>

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

std::unique_ptr<Executor> onednn_executor(const BuildContext& ctx, size_t node, std::vector<bool>& fused_away) {
    const std::string type = ctx.graph.type(node);
    if (type == "Convolution" || type == "GroupConvolution")
        return with_fusion(ctx, node, BiasRule::per_channel, &ConvExecutor::create, fused_away);
    if (type == "MatMul") return with_fusion(ctx, node, BiasRule::broadcast, &MatMulExecutor::create, fused_away);
    if (type == "MaxPool" || type == "AvgPool") return PoolingExecutor::create(ctx, node);
    if (type == "Softmax") return SoftmaxExecutor::create(ctx, node);
    // Decomposed LayerNorm, erf Gelu and Swish: one executor from their first op, the rest absorbed.
    std::vector<size_t> absorbed;
    std::unique_ptr<Executor> e = LayerNormExecutor::create(ctx, node, absorbed);
    if (!e && (type == "Divide" || type == "Multiply" || type == "Sigmoid"))
        e = EltwiseExecutor::create_decomposed(ctx, node, absorbed);
    for (size_t n : absorbed) fused_away[n] = true;
    if (!e && BinaryExecutor::runs(type)) e = with_fusion(ctx, node, BiasRule::none, &BinaryExecutor::create, fused_away);
    if (!e) e = EltwiseExecutor::create(ctx, node);
    if (!e && type == "Transpose") e = TransposeExecutor::create(ctx, node);
    if (!e) e = ReductionExecutor::create(ctx, node);
    return e;
}

}  // namespace

std::vector<std::unique_ptr<Executor>> build_executors(const BuildContext& ctx) {
    std::vector<std::unique_ptr<Executor>> executors;
    std::vector<bool> fused_away(ctx.graph.node_count(), false);
    for (size_t n = 0; n < ctx.graph.node_count(); ++n) {
        if (!ctx.values.runs(n) || fused_away[n]) continue;
        std::unique_ptr<Executor> e = onednn_executor(ctx, n, fused_away);
        if (!e) e = std::make_unique<ReferenceExecutor>(ctx.graph, ctx.values, n);
        executors.push_back(std::move(e));
    }
    return executors;
}

}  // namespace mosaic::cpu_plugin
