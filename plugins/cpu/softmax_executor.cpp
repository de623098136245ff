#include "softmax_executor.hpp"

#include <algorithm>
#include <unordered_map>

namespace mosaic::cpu_plugin {

SoftmaxExecutor::SoftmaxExecutor(std::string name, std::vector<ValueId> inputs, std::vector<ValueId> outputs)
    : PrimitiveExecutor(std::move(name), "Softmax", std::move(inputs), std::move(outputs)) {}

std::unique_ptr<Executor> SoftmaxExecutor::create(const BuildContext& ctx, size_t node) {
    const sdk::GraphView& g = ctx.graph;
    const ValueId src_id = ctx.values.input(node, 0), dst_id = ctx.values.output(node, 0);
    const Value& src = ctx.values[src_id];
    if (src.type != ElementType::f32 || src.shape.empty() || src.shape.size() > 12 ||
        std::any_of(src.shape.begin(), src.shape.end(), [](int64_t d) { return d <= 0; }))
        return nullptr;
    const auto rank = static_cast<int64_t>(src.shape.size());
    int64_t axis = g.attributes(node).get_int("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return nullptr;

    std::unique_ptr<SoftmaxExecutor> e(new SoftmaxExecutor(g.node_name(node), {src_id}, {dst_id}));
    e->desc_ = plain_desc(src.shape);
    dnnl::softmax_v2_forward::primitive_desc pd;
    try {
        const dnnl::softmax_v2_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::softmax_accurate,
                                                  e->desc_, e->desc_, static_cast<int>(axis));
        pd = dnnl::softmax_v2_forward::primitive_desc(desc, user_scratchpad_attr(), ctx.engine);
    } catch (const dnnl::error&) {
        return nullptr;
    }
    e->adopt(ctx.engine, pd);
    return e;
}

void SoftmaxExecutor::execute(const ExecContext& ctx) const {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, memory(desc_, ctx[inputs()[0]])},
                                               {DNNL_ARG_DST, memory(desc_, ctx[outputs()[0]])}};
    run(ctx, std::move(args));
}

}  // namespace mosaic::cpu_plugin
