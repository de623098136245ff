#include "compressed_matmul_executor.hpp"

#include "compressed_weights.hpp"

#include <omp.h>

#include <cstring>

namespace mosaic::cpu_plugin {

std::unique_ptr<Executor> CompressedMatMulExecutor::create(const BuildContext& ctx, size_t node,
                                                          const std::vector<FusedOp>& fused) {
    sdk::patterns::CompressedWeights w;
    if (ctx.compute != dnnl::memory::data_type::f32 ||
        !sdk::patterns::compressed_matmul_at(ctx.graph, ctx.values, node, constant_in(ctx.values), w))
        return nullptr;
    const ValueId a = ctx.values.input(node, 0);
    if (!ctx.values[a].is_plain()) return nullptr;
    const FusedOp* bias = nullptr;
    const FusedOp* sum = nullptr;
    for (const FusedOp& op : fused) {
        if (op.kind == FusedOp::Kind::bias) bias = &op;
        else if (op.kind == FusedOp::Kind::sum) sum = &op;
        else return nullptr;
    }
    if (bias) {  // one value per output column
        const Value& b = ctx.values[bias->operand];
        if (!b.is_constant() || b.type != ElementType::f32 || shape_size(b.shape) != w.rows ||
            (!b.shape.empty() && b.shape.back() != w.rows))
            return nullptr;
    }
    const size_t last = last_node(node, fused);
    const ValueId out = ctx.values.output(last, 0);
    const int64_t rows = shape_size(ctx.values[a].shape) / w.columns;
    if (shape_size(ctx.values[out].shape) != rows * w.rows || ctx.values[out].type != ElementType::f32) return nullptr;

    std::vector<ValueId> inputs{a, w.codes};
    for (const FusedOp& op : fused) inputs.push_back(op.operand);
    std::unique_ptr<CompressedMatMulExecutor> e(
        new CompressedMatMulExecutor(ctx.graph.node_name(last), ctx.graph.type(node), std::move(inputs), {out}));
    e->a_ = a;
    e->dst_ = out;
    e->rows_ = rows;
    e->threads_ = omp_get_max_threads();  // the stream's, as compilation runs with it
    if (bias) e->bias_ = static_cast<const float*>(ctx.values[bias->operand].constant);
    if (sum) e->residual_ = sum->operand;

    e->weights_ = compressed_matrix_of(ctx, w, e->shared_);
    e->activation_group_ = ctx.dynamic_quantization_group;
    e->impl_ = compressed_matmul_impl(*e->weights_, rows, e->activation_group_);
    return e;
}

void CompressedMatMulExecutor::execute(const ExecContext& ctx) const {
    auto* y = static_cast<float*>(ctx[dst_]);
    const int64_t columns = weights_->rows;
    if (residual_ != kNoValue && ctx[residual_] != ctx[dst_])  // the product accumulates onto the residual
        std::memcpy(y, ctx[residual_], static_cast<size_t>(rows_ * columns) * sizeof(float));
    compressed_matmul(*weights_, static_cast<const float*>(ctx[a_]), rows_, y, residual_ != kNoValue, threads_,
                      activation_group_, ctx.scratch);
    if (bias_)
        for (int64_t i = 0; i < rows_; ++i)
            for (int64_t n = 0; n < columns; ++n) y[i * columns + n] += bias_[n];
}

}  // namespace mosaic::cpu_plugin
