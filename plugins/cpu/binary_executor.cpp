#include "binary_executor.hpp"

#include <algorithm>
#include <unordered_map>

namespace mosaic::cpu_plugin {

namespace {

using dnnl::algorithm;

struct BinaryOp {
    const char* type;
    algorithm forward;   // op(a, b)
    algorithm swapped;   // op'(b, a) == op(a, b); undef when only a negation recovers it (Subtract)
    bool comparison;
};

constexpr BinaryOp kOps[] = {
    {"Add", algorithm::binary_add, algorithm::binary_add, false},
    {"Multiply", algorithm::binary_mul, algorithm::binary_mul, false},
    {"Maximum", algorithm::binary_max, algorithm::binary_max, false},
    {"Minimum", algorithm::binary_min, algorithm::binary_min, false},
    {"Subtract", algorithm::binary_sub, algorithm::undef, false},
    {"Divide", algorithm::binary_div, algorithm::undef, false},
    {"SquaredDifference", algorithm::binary_sub, algorithm::binary_sub, false},  // (b - a)^2 == (a - b)^2
    {"Equal", algorithm::binary_eq, algorithm::binary_eq, true},
    {"NotEqual", algorithm::binary_ne, algorithm::binary_ne, true},
    {"Less", algorithm::binary_lt, algorithm::binary_gt, true},
    {"LessEqual", algorithm::binary_le, algorithm::binary_ge, true},
    {"Greater", algorithm::binary_gt, algorithm::binary_lt, true},
    {"GreaterEqual", algorithm::binary_ge, algorithm::binary_le, true},
};

const BinaryOp* binary_op(const std::string& type) {
    for (const BinaryOp& op : kOps)
        if (type == op.type) return &op;
    return nullptr;
}

Shape padded(Shape shape, size_t rank) {
    shape.insert(shape.begin(), rank - shape.size(), 1);
    return shape;
}

}  // namespace

bool BinaryExecutor::runs(const std::string& type) { return binary_op(type) != nullptr; }

BinaryExecutor::BinaryExecutor(std::string name, std::string type, std::vector<ValueId> inputs, ValueId output)
    : PrimitiveExecutor(std::move(name), std::move(type), std::move(inputs), {output}) {}

std::unique_ptr<Executor> BinaryExecutor::create(const BuildContext& ctx, size_t node, const std::vector<FusedOp>& fused) {
    const sdk::GraphView& g = ctx.graph;
    const std::string type = g.type(node);
    const BinaryOp* op = binary_op(type);
    if (!op || g.input_count(node) != 2 || g.output_count(node) != 1) return nullptr;
    for (const FusedOp& f : fused)
        if (f.kind != FusedOp::Kind::eltwise) return nullptr;
    const ValueId a_id = ctx.values.input(node, 0), b_id = ctx.values.input(node, 1);
    const Value& a = ctx.values[a_id];
    const Value& b = ctx.values[b_id];
    const Value& out = ctx.values[ctx.values.output(node, 0)];
    const ElementType out_type = op->comparison ? ElementType::boolean : ElementType::f32;
    if (a.type != ElementType::f32 || b.type != ElementType::f32 || out.type != out_type || !describable(out.shape) ||
        a.shape.size() > out.shape.size() || b.shape.size() > out.shape.size())
        return nullptr;
    const size_t rank = out.shape.size();
    const Shape& out_shape = out.shape;
    const Shape a_shape = padded(a.shape, rank), b_shape = padded(b.shape, rank);

    algorithm alg = op->forward;
    bool swap = false;
    dnnl::post_ops implicit;  // what the op needs beyond the binary algorithm
    if (a_shape != out_shape) {
        if (b_shape != out_shape) return nullptr;
        swap = true;
        if (op->swapped != algorithm::undef) {
            alg = op->swapped;
        } else if (type == "Subtract") {
            implicit.append_eltwise(1.0f, algorithm::eltwise_linear, -1.0f, 0.0f);  // a - b == -(b - a), exactly
        } else {
            return nullptr;  // a / b has no exact form with a broadcasting a
        }
    }
    if (type == "SquaredDifference") implicit.append_eltwise(1.0f, algorithm::eltwise_square, 0.0f, 0.0f);
    // An implicit post-op runs without the fused chain: the chain could repeat its algorithm with
    // other parameters, which oneDNN 2.x does not keep apart (fusion.cpp's injectors_agree).
    if (implicit.len() > 0 && !fused.empty()) return nullptr;
    dnnl::primitive_attr attr = user_scratchpad_attr();
    attr.set_post_ops(implicit.len() > 0 ? implicit : post_ops_of(fused));

    const size_t last = last_node(node, fused);
    std::unique_ptr<BinaryExecutor> e(
        new BinaryExecutor(g.node_name(last), type, {a_id, b_id}, ctx.values.output(last, 0)));
    e->src0_ = swap ? b_id : a_id;
    e->src1_ = swap ? a_id : b_id;
    // Blocked operands (a convolution's output, and its per-channel scale in a squeeze-and-excitation
    // block) are read as they are when they have the output's rank; the result keeps the first's.
    const Value& src0 = ctx.values[e->src0_];
    const Value& src1 = ctx.values[e->src1_];
    if ((!src0.is_plain() && src0.shape.size() != rank) || (!src1.is_plain() && src1.shape.size() != rank))
        return nullptr;
    e->src0_desc_ = src0.is_plain() ? plain_desc(out_shape) : src0.layout;
    e->src1_desc_ = src1.is_plain() ? plain_desc(swap ? a_shape : b_shape) : src1.layout;
    // A boolean is one byte, 0 or 1: what a comparison writes into u8.
    const dnnl::memory::dims dims = dims_of(out_shape);
    const dnnl::memory::desc dst_request =
        op->comparison ? dnnl::memory::desc(dims, dnnl::memory::data_type::u8, row_major_strides(dims))
                       : result_request(src0, ctx.values[e->outputs()[0]], dims);
    dnnl::binary::primitive_desc pd;
    try {
        pd = dnnl::binary::primitive_desc(dnnl::binary::desc(alg, e->src0_desc_, e->src1_desc_, dst_request), attr,
                                          ctx.engine);
    } catch (const dnnl::error&) {
        return nullptr;
    }
    if ((!src0.is_plain() || !src1.is_plain()) && !fast_implementation(pd.impl_info_str())) return nullptr;
    e->dst_desc_ = pd.dst_desc();
    if (!op->comparison) keep_layout(ctx, e->outputs()[0], e->dst_desc_);
    e->adopt(ctx.engine, pd);
    return e;
}

void BinaryExecutor::execute(const ExecContext& ctx) const {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC_0, memory(src0_desc_, ctx[src0_])},
                                               {DNNL_ARG_SRC_1, memory(src1_desc_, ctx[src1_])},
                                               {DNNL_ARG_DST, memory(dst_desc_, ctx[outputs()[0]])}};
    run(ctx, std::move(args));
}

}  // namespace mosaic::cpu_plugin
