#include "transpose_executor.hpp"

#include "graph_queries.hpp"

#include <numeric>

namespace mosaic::cpu_plugin {

TransposeExecutor::TransposeExecutor(std::string name, ValueId src, ValueId dst)
    : Executor(std::move(name), "Transpose", {src}, {dst}) {}

std::unique_ptr<Executor> TransposeExecutor::create(const BuildContext& ctx, size_t node) {
    const sdk::GraphView& g = ctx.graph;
    if (g.type(node) != "Transpose" || g.input_count(node) != 2 || g.output_count(node) != 1) return nullptr;
    const ValueId src_id = ctx.values.input(node, 0), dst_id = ctx.values.output(node, 0);
    const Value& src = ctx.values[src_id];
    const Value& dst = ctx.values[dst_id];
    const size_t rank = src.shape.size();
    std::vector<int64_t> order;
    if (rank == 0 || src.type != dst.type || !int_constant(ctx.values, ctx.values.input(node, 1), order)) return nullptr;
    if (order.empty()) {
        order.resize(rank);
        std::iota(order.rbegin(), order.rend(), 0);
    }
    if (order.size() != rank) return nullptr;

    // The element as units oneDNN copies exactly: one s32, or several when it is wider, else bytes.
    const size_t bytes = element_size(src.type);
    const bool words = bytes % 4 == 0;
    const auto unit_type = words ? dnnl::memory::data_type::s32 : dnnl::memory::data_type::u8;
    const int64_t units = static_cast<int64_t>(words ? bytes / 4 : bytes);
    dnnl::memory::dims src_dims = dims_of(src.shape), out_dims(rank);
    for (size_t i = 0; i < rank; ++i) out_dims[i] = src_dims[static_cast<size_t>(order[i])];
    if (Shape(out_dims.begin(), out_dims.end()) != dst.shape) return nullptr;
    if (units > 1) {
        src_dims.push_back(units);
        out_dims.push_back(units);
    }
    if (!describable(Shape(src_dims.begin(), src_dims.end()))) return nullptr;

    // Output axis i holds source axis order[i]: that source axis steps by the output's stride i.
    const dnnl::memory::dims out_strides = row_major_strides(out_dims);
    dnnl::memory::dims dst_strides(src_dims.size(), 1);
    for (size_t i = 0; i < rank; ++i) dst_strides[static_cast<size_t>(order[i])] = out_strides[i];

    std::unique_ptr<TransposeExecutor> e(new TransposeExecutor(g.node_name(node), src_id, dst_id));
    e->engine_ = ctx.engine;
    e->src_desc_ = dnnl::memory::desc(src_dims, unit_type, row_major_strides(src_dims));
    e->dst_desc_ = dnnl::memory::desc(src_dims, unit_type, dst_strides);
    try {
        e->reorder_ = Reorder(ctx.engine, e->src_desc_, e->dst_desc_);
    } catch (const dnnl::error&) {
        return nullptr;
    }
    return e;
}

void TransposeExecutor::execute(const ExecContext& ctx) const {
    reorder_.run(*ctx.stream, dnnl::memory(src_desc_, engine_, ctx[inputs()[0]]),
                 dnnl::memory(dst_desc_, engine_, ctx[outputs()[0]]), ctx.scratch);
}

}  // namespace mosaic::cpu_plugin
