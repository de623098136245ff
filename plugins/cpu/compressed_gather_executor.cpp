#include "compressed_gather_executor.hpp"

#include "compressed_weights.hpp"

#include <algorithm>

namespace mosaic::cpu_plugin {

std::unique_ptr<Executor> CompressedGatherExecutor::create(const BuildContext& ctx, size_t node) {
    sdk::patterns::CompressedWeights w;
    if (!sdk::patterns::compressed_gather_at(ctx.graph, ctx.values, node, constant_in(ctx.values), w)) return nullptr;
    const ValueId indices = ctx.values.input(node, 1), out = ctx.values.output(node, 0);
    const int64_t count = shape_size(ctx.values[indices].shape);
    if (!ctx.values[indices].is_plain() || ctx.values[out].type != ElementType::f32 ||
        shape_size(ctx.values[out].shape) != count * w.columns)
        return nullptr;
    std::unique_ptr<CompressedGatherExecutor> e(
        new CompressedGatherExecutor(ctx.graph.node_name(node), ctx.graph.type(node), {indices, w.codes}, {out}));
    e->indices_ = indices;
    e->dst_ = out;
    e->index_type_ = ctx.values[indices].type;
    e->count_ = count;
    e->weights_ = compressed_matrix_of(ctx, w, e->shared_);
    return e;
}

void CompressedGatherExecutor::execute(const ExecContext& ctx) const {
    const int64_t rows = weights_->rows, k = weights_->columns;
    auto* y = static_cast<float*>(ctx[dst_]);
    for (int64_t i = 0; i < count_; ++i) {
        int64_t index = index_type_ == ElementType::i64 ? static_cast<const int64_t*>(ctx[indices_])[i]
                                                         : static_cast<const int32_t*>(ctx[indices_])[i];
        if (index < 0) index += rows;  // Gather-8: negative indices count from the end
        if (index < 0 || index >= rows)
            std::fill(y + i * k, y + (i + 1) * k, 0.0f);  // and out-of-range ones give zeros
        else
            dequantize_row(*weights_, index, y + i * k);
    }
}

}  // namespace mosaic::cpu_plugin
