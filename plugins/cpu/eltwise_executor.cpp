#include "eltwise_executor.hpp"

#include <algorithm>
#include <unordered_map>

namespace mosaic::cpu_plugin {

EltwiseExecutor::EltwiseExecutor(std::string name, std::string type, ValueId src, ValueId dst)
    : PrimitiveExecutor(std::move(name), std::move(type), {src}, {dst}) {}

std::unique_ptr<Executor> EltwiseExecutor::make(const BuildContext& ctx, const std::string& type, ValueId src,
                                                const FusedOp& op) {
    const ValueId dst = ctx.values.output(op.node, 0);
    const Value& in = ctx.values[src];
    const Value& out = ctx.values[dst];
    if (in.type != ElementType::f32 || out.type != ElementType::f32 || in.shape != out.shape ||
        !describable(in.shape))
        return nullptr;
    std::unique_ptr<EltwiseExecutor> e(new EltwiseExecutor(ctx.graph.node_name(op.node), type, src, dst));
    e->desc_ = plain_desc(in.shape);
    dnnl::eltwise_forward::primitive_desc pd;
    try {
        const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, op.algorithm, e->desc_, op.alpha,
                                               op.beta);
        pd = dnnl::eltwise_forward::primitive_desc(desc, user_scratchpad_attr(), ctx.engine);
    } catch (const dnnl::error&) {
        return nullptr;
    }
    e->adopt(ctx.engine, pd);
    return e;
}

std::unique_ptr<Executor> EltwiseExecutor::create(const BuildContext& ctx, size_t node) {
    if (ctx.graph.output_count(node) != 1) return nullptr;
    const size_t ports = std::min<size_t>(ctx.graph.input_count(node), 2);
    for (size_t port = 0; port < ports; ++port) {
        FusedOp op;
        if (eltwise_of(ctx.graph, ctx.values, node, port, op))
            return make(ctx, ctx.graph.type(node), ctx.values.input(node, port), op);
    }
    return nullptr;
}

std::unique_ptr<Executor> EltwiseExecutor::create_decomposed(const BuildContext& ctx, size_t node,
                                                             std::vector<size_t>& absorbed) {
    for (size_t port = 0; port < ctx.graph.input_count(node); ++port) {
        const ValueId x = ctx.values.input(node, port);
        FusedOp op;
        if (!decomposed_activation_of(ctx.graph, ctx.values, x, op)) continue;
        // Built where the pattern begins: every later op of it is then still to come.
        if (*std::min_element(op.absorbed.begin(), op.absorbed.end()) != node) continue;
        const char* type = op.algorithm == dnnl::algorithm::eltwise_gelu_erf ? "Gelu" : "Swish";
        std::unique_ptr<Executor> e = make(ctx, type, x, op);
        if (!e) return nullptr;
        absorbed.clear();
        for (size_t n : op.absorbed)
            if (n != node) absorbed.push_back(n);
        absorbed.push_back(op.node);
        return e;
    }
    return nullptr;
}

void EltwiseExecutor::execute(const ExecContext& ctx) const {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, memory(desc_, ctx[inputs()[0]])},
                                               {DNNL_ARG_DST, memory(desc_, ctx[outputs()[0]])}};
    run(ctx, std::move(args));
}

}  // namespace mosaic::cpu_plugin
