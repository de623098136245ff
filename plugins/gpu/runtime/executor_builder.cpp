#include "runtime/executor_builder.hpp"

#include "ops/op_registry.hpp"

namespace mosaic::gpu_plugin {

std::vector<std::unique_ptr<Executor>> build_executors(const sdk::GraphView& graph, const ValueTable& values,
                                                       ClEngine& engine, const std::string& gemm_kernel) {
    std::vector<bool> fused(graph.node_count(), false);
    BuildContext ctx{graph, values, engine, fused, gemm_kernel};
    std::vector<std::unique_ptr<Executor>> executors;
    for (size_t n = 0; n < graph.node_count(); ++n) {
        if (!values.runs(n) || fused[n]) continue;
        const OpEntry* op = find_op(graph.type(n));
        if (!op)  // compile checked every node first
            throw sdk::Error(MOSAIC_ERROR_GENERAL, "GPU plugin bug: no executor for '" + graph.node_name(n) + "'");
        // None: the node is absorbed by one after it (a Transpose a MatMul reads through strides).
        if (auto e = op->build(ctx, n)) executors.push_back(std::move(e));
    }
    return executors;
}

}  // namespace mosaic::gpu_plugin
