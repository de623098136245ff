#include "concat_executor.hpp"

#include <unordered_map>

namespace mosaic::cpu_plugin {

ConcatExecutor::ConcatExecutor(std::string name, std::vector<ValueId> inputs, ValueId output)
    : PrimitiveExecutor(std::move(name), "Concat", std::move(inputs), {output}) {}

std::unique_ptr<Executor> ConcatExecutor::create(const BuildContext& ctx, size_t node) {
    const sdk::GraphView& g = ctx.graph;
    if (g.type(node) != "Concat" || g.output_count(node) != 1 || g.input_count(node) < 1) return nullptr;
    const ValueId dst_id = ctx.values.output(node, 0);
    const Value& dst = ctx.values[dst_id];
    if (dst.type != ElementType::f32 || !describable(dst.shape) || dst.shape.empty()) return nullptr;
    const int64_t rank = static_cast<int64_t>(dst.shape.size());
    int64_t axis = g.attributes(node).get_int("axis");
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return nullptr;

    std::vector<ValueId> inputs;
    std::vector<dnnl::memory::desc> srcs;
    const Value* blocked = nullptr;  // the first blocked input: the result keeps its blocking and type
    for (size_t i = 0; i < g.input_count(node); ++i) {
        const ValueId v = ctx.values.input(node, i);
        const Value& in = ctx.values[v];
        if (in.type != ElementType::f32 || in.shape.size() != dst.shape.size() || !describable(in.shape)) return nullptr;
        inputs.push_back(v);
        srcs.push_back(layout_of(in));
        if (!in.is_plain() && !blocked) blocked = &in;
    }
    const dnnl::memory::desc dst_request =
        blocked ? result_request(*blocked, dst, dims_of(dst.shape), blocked->layout.data_type()) : plain_desc(dst.shape);
    dnnl::concat::primitive_desc pd;
    try {
        pd = dnnl::concat::primitive_desc(dst_request, static_cast<int>(axis), srcs, ctx.engine, user_scratchpad_attr());
    } catch (const dnnl::error&) {
        return nullptr;
    }
    if (blocked && !fast_implementation(pd.impl_info_str())) return nullptr;

    std::unique_ptr<ConcatExecutor> e(new ConcatExecutor(g.node_name(node), std::move(inputs), dst_id));
    e->adopt(ctx.engine, pd);
    e->src_descs_ = std::move(srcs);
    e->dst_desc_ = pd.dst_desc();
    keep_layout(ctx, dst_id, e->dst_desc_);
    return e;
}

void ConcatExecutor::execute(const ExecContext& ctx) const {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_DST, memory(dst_desc_, ctx[outputs()[0]])}};
    for (size_t i = 0; i < src_descs_.size(); ++i)
        args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = memory(src_descs_[i], ctx[inputs()[i]]);
    run(ctx, std::move(args));
}

}  // namespace mosaic::cpu_plugin
