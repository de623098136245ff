#include "reduction_executor.hpp"

#include "graph_queries.hpp"

#include <unordered_map>

namespace mosaic::cpu_plugin {

namespace {

struct ReductionOp {
    const char* type;
    dnnl::algorithm algorithm;
    float p;  // the norm's power (ReduceL1, ReduceL2)
};

constexpr ReductionOp kOps[] = {
    {"ReduceMean", dnnl::algorithm::reduction_mean, 0},
    {"ReduceSum", dnnl::algorithm::reduction_sum, 0},
    {"ReduceMax", dnnl::algorithm::reduction_max, 0},
    {"ReduceMin", dnnl::algorithm::reduction_min, 0},
    {"ReduceProd", dnnl::algorithm::reduction_mul, 0},
    {"ReduceL1", dnnl::algorithm::reduction_norm_lp_sum, 1},  // (sum |x|^p)^(1/p) with eps added: 0 here
    {"ReduceL2", dnnl::algorithm::reduction_norm_lp_sum, 2},
};

}  // namespace

bool ReductionExecutor::runs(const std::string& type) {
    for (const ReductionOp& op : kOps)
        if (type == op.type) return true;
    return false;
}

ReductionExecutor::ReductionExecutor(std::string name, std::string type, ValueId src, ValueId dst)
    : PrimitiveExecutor(std::move(name), std::move(type), {src}, {dst}) {}

std::unique_ptr<Executor> ReductionExecutor::create(const BuildContext& ctx, size_t node) {
    const sdk::GraphView& g = ctx.graph;
    const std::string type = g.type(node);
    const ReductionOp* op = nullptr;
    for (const ReductionOp& candidate : kOps)
        if (type == candidate.type) op = &candidate;
    if (!op || g.input_count(node) != 2 || g.output_count(node) != 1) return nullptr;
    const ValueId src_id = ctx.values.input(node, 0), dst_id = ctx.values.output(node, 0);
    const Value& src = ctx.values[src_id];
    const Value& dst = ctx.values[dst_id];
    std::vector<int64_t> axes;
    if (src.type != ElementType::f32 || dst.type != ElementType::f32 || src.shape.empty() ||
        !describable(src.shape) || !int_constant(ctx.values, ctx.values.input(node, 1), axes) ||
        !normalize_axes(axes, src.shape.size()))
        return nullptr;
    Shape kept = src.shape;
    for (int64_t a : axes) kept[static_cast<size_t>(a)] = 1;
    if (shape_size(kept) != shape_size(dst.shape)) return nullptr;

    std::unique_ptr<ReductionExecutor> e(new ReductionExecutor(g.node_name(node), type, src_id, dst_id));
    // A blocked source (a global average pool after a convolution) is read as it is; the result
    // keeps the blocking when it has the source's rank (keep_dims), else it is plain.
    e->src_desc_ = layout_of(src);
    const dnnl::memory::desc dst_request = result_request(src, dst, dims_of(kept));
    dnnl::reduction::primitive_desc pd;
    try {
        pd = dnnl::reduction::primitive_desc(dnnl::reduction::desc(op->algorithm, e->src_desc_, dst_request, op->p, 0.0f),
                                             user_scratchpad_attr(), ctx.engine);
    } catch (const dnnl::error&) {
        return nullptr;
    }
    if (!src.is_plain() && !fast_implementation(pd.impl_info_str())) return nullptr;
    e->dst_desc_ = pd.dst_desc();
    e->adopt(ctx.engine, pd);
    keep_layout(ctx, dst_id, e->dst_desc_);
    return e;
}

void ReductionExecutor::execute(const ExecContext& ctx) const {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, memory(src_desc_, ctx[inputs()[0]])},
                                               {DNNL_ARG_DST, memory(dst_desc_, ctx[outputs()[0]])}};
    run(ctx, std::move(args));
}

}  // namespace mosaic::cpu_plugin
