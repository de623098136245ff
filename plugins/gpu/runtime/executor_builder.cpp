#include "runtime/executor_builder.hpp"

#include "ops/op_registry.hpp"

namespace mosaic::gpu_plugin {

namespace {

// A node whose outputs are all empty (computes_nothing): its outputs get buffers like any written
// value, and nothing runs.
std::vector<ValueId> outputs_of(const BuildContext& ctx, size_t n) {
    std::vector<ValueId> out;
    for (size_t o = 0; o < ctx.graph.output_count(n); ++o) out.push_back(ctx.values.output(n, o));
    return out;
}

class EmptyOutputsExecutor : public Executor {
public:
    EmptyOutputsExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), ctx.graph.type(n), {}, outputs_of(ctx, n)) {}
    void enqueue(const ExecContext&) const override {}
    std::string exec_type() const override { return "empty"; }
};

}  // namespace

std::vector<std::unique_ptr<Executor>> build_executors(const sdk::GraphView& graph, const ValueTable& values,
                                                       ClEngine& engine, const std::string& gemm_kernel) {
    // A compressed weight's decompression runs inside its MatMul's kernel (value_table.hpp).
    std::vector<bool> fused(graph.node_count(), false);
    for (size_t n = 0; n < graph.node_count(); ++n) fused[n] = values.decompressed_in_kernel(n);
    BuildContext ctx{graph, values, engine, fused, gemm_kernel};
    std::vector<std::unique_ptr<Executor>> executors;
    for (size_t n = 0; n < graph.node_count(); ++n) {
        if (!values.runs(n) || fused[n]) continue;
        if (computes_nothing(graph, n)) {
            executors.push_back(std::make_unique<EmptyOutputsExecutor>(ctx, n));
            continue;
        }
        const OpEntry* op = find_op(graph.type(n));
        if (!op)  // compile checked every node first
            throw sdk::Error(MOSAIC_ERROR_GENERAL, "GPU plugin bug: no executor for '" + graph.node_name(n) + "'");
        // None: the node is absorbed by one after it (a Transpose a MatMul reads through strides).
        if (auto e = op->build(ctx, n)) executors.push_back(std::move(e));
    }
    return executors;
}

}  // namespace mosaic::gpu_plugin
