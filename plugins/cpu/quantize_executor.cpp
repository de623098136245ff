#include "quantize_executor.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace mosaic::cpu_plugin {

namespace {

using sdk::patterns::QuantParams;

// The reorder's scales: each, or their inverses (a quantization multiplies by 1 / scale), and the
// mask of the axis they vary along.
int scales_mask(const QuantParams& p) { return p.per_tensor() ? 0 : 1 << p.axis; }

std::vector<float> inverted(std::vector<float> scales) {
    for (float& s : scales) s = 1.0f / s;
    return scales;
}

// One zero point for the whole tensor: what oneDNN's reorders take.
bool common_zero_point(const QuantParams& p, int32_t& out) {
    out = p.zero_point[0];
    return std::all_of(p.zero_point.begin(), p.zero_point.end(), [&](int32_t z) { return z == out; });
}

// The layout of a tensor `to` of `type` converted from `from`: alike where it stays an intermediate
// of the device (the next executor reads that layout), plain where it is the caller's.
dnnl::memory::desc converted_layout(const BuildContext& ctx, const dnnl::memory::desc& from, ValueId to,
                                    dnnl::memory::data_type type) {
    const Value& v = ctx.values[to];
    if (v.kind != Value::Kind::intermediate) return plain_desc(v.shape, type);
    return with_type(from, type);
}

}  // namespace

std::unique_ptr<Executor> QuantizeExecutor::create(const BuildContext& ctx, size_t node, std::vector<size_t>& absorbed) {
    const sdk::GraphView& g = ctx.graph;
    ValueId src = kNoValue, dst = kNoValue;
    std::vector<size_t> nodes;
    dnnl::primitive_attr attr = user_scratchpad_attr();
    int32_t zero_point = 0;
    sdk::patterns::Dequantized dq;
    sdk::patterns::Quantized q;
    const bool dequantize = sdk::patterns::dequantization_from(g, ctx.values, node, dq);
    if (dequantize) {
        if (!common_zero_point(dq.params, zero_point)) return nullptr;
        src = dq.q;
        dst = ctx.values.output(dq.nodes.back(), 0);
        nodes = dq.nodes;
        attr.set_output_scales(scales_mask(dq.params), dq.params.scale);
        if (zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {zero_point});
    } else if (sdk::patterns::quantization_from(g, ctx.values, node, q)) {
        if (!common_zero_point(q.params, zero_point)) return nullptr;
        src = q.input;
        dst = q.output;
        nodes = q.nodes;
        attr.set_output_scales(scales_mask(q.params), inverted(q.params.scale));
        if (zero_point != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {zero_point});
    } else {
        return nullptr;
    }
    if (!describable(ctx.values[src].shape)) return nullptr;
    const dnnl::memory::desc src_desc = layout_of(ctx.values[src]);
    const dnnl::memory::desc dst_desc = converted_layout(ctx, src_desc, dst, data_type_of(ctx.values[dst].type));
    dnnl::reorder::primitive_desc pd;
    try {
        pd = dnnl::reorder::primitive_desc(ctx.engine, src_desc, ctx.engine, dst_desc, attr);
    } catch (const dnnl::error&) {
        return nullptr;
    }
    std::unique_ptr<QuantizeExecutor> e(
        new QuantizeExecutor(g.node_name(nodes.back()), dequantize ? "Dequantize" : "Quantize", {src}, {dst}));
    e->src_desc_ = src_desc;
    e->dst_desc_ = dst_desc;
    e->adopt(ctx.engine, pd);
    keep_layout(ctx, dst, dst_desc);
    absorbed.assign(nodes.begin() + 1, nodes.end());
    return e;
}

void QuantizeExecutor::execute(const ExecContext& ctx) const {
    run(ctx, {{DNNL_ARG_FROM, memory(src_desc_, ctx[inputs()[0]])}, {DNNL_ARG_TO, memory(dst_desc_, ctx[outputs()[0]])}});
}

std::unique_ptr<Executor> QuantizedAddExecutor::create(const BuildContext& ctx, size_t node, std::vector<size_t>& absorbed) {
    const sdk::GraphView& g = ctx.graph;
    if (g.type(node) != "Add" || g.input_count(node) != 2 || g.output_count(node) != 1) return nullptr;
    const Value& sum = ctx.values[ctx.values.output(node, 0)];
    QuantizedOperand operands[2];
    ValueId q_ids[2] = {kNoValue, kNoValue};
    dnnl::memory::desc layout;
    for (size_t i = 0; i < 2; ++i) {
        sdk::patterns::Dequantized dq;
        if (!sdk::patterns::dequantized_input(g, ctx.values, node, i, dq) || !dq.params.per_tensor()) return nullptr;
        const Value& q = ctx.values[dq.q];
        // Element i of one operand meets element i of the other: same shape, same layout, no padding.
        if (q.is_constant() || q.shape != sum.shape || (i == 1 && with_type(layout_of(q), layout.data_type()) != layout))
            return nullptr;
        if (i == 0) layout = layout_of(q);
        if (layout.get_size() != q.byte_size()) return nullptr;
        q_ids[i] = dq.q;
        operands[i] = {nullptr, dq.params.scale[0], dq.params.zero_point[0], dq.params.type == ElementType::i8};
    }
    std::vector<size_t> chain;
    ValueId current = ctx.values.output(node, 0);
    const size_t relu = sdk::patterns::sole_reader(g, ctx.values, current, "Relu");
    if (relu != sdk::patterns::kNone) {
        chain.push_back(relu);
        current = ctx.values.output(relu, 0);
    }
    const size_t divide = sdk::patterns::sole_reader(g, ctx.values, current, "Divide");
    sdk::patterns::Quantized q;
    if (divide == sdk::patterns::kNone || !sdk::patterns::quantization_from(g, ctx.values, divide, q) ||
        q.input != current || !q.params.per_tensor())
        return nullptr;
    const Value& out = ctx.values[q.output];
    // The result is stored like the operands: a graph output is plain, so they must be.
    if (out.kind != Value::Kind::intermediate && layout != plain_desc(out.shape, layout.data_type())) return nullptr;
    chain.insert(chain.end(), q.nodes.begin(), q.nodes.end());

    std::unique_ptr<QuantizedAddExecutor> e(
        new QuantizedAddExecutor(g.node_name(q.nodes.back()), "Add", {q_ids[0], q_ids[1]}, {q.output}));
    e->a_ = q_ids[0];
    e->b_ = q_ids[1];
    e->args_.a = operands[0];
    e->args_.b = operands[1];
    e->args_.inverse_scale = 1.0f / q.params.scale[0];
    e->args_.zero_point = q.params.zero_point[0];
    e->args_.y_signed = q.params.type == ElementType::i8;
    e->args_.relu = relu != sdk::patterns::kNone;
    e->args_.count = out.byte_size();
    if (out.kind == Value::Kind::intermediate)
        keep_layout(ctx, q.output, with_type(layout, data_type_of(q.params.type)));
    absorbed = chain;
    return e;
}

void QuantizedAddExecutor::execute(const ExecContext& ctx) const {
    QuantizedAddArgs args = args_;
    args.a.data = ctx[a_];
    args.b.data = ctx[b_];
    args.y = ctx[outputs()[0]];
    quantized_add(args);
}

}  // namespace mosaic::cpu_plugin
