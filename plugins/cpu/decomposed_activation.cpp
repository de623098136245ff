#include "decomposed_activation.hpp"

#include "graph_queries.hpp"

namespace mosaic::cpu_plugin {

namespace {

bool is_f32(const Value& v) { return v.type == ElementType::f32; }

// The op of `type` that alone reads `v` when `v` is f32 of `shape`, and writes f32 of that shape.
size_t pattern_step(const sdk::GraphView& g, const ValueTable& values, ValueId v, const char* type, const Shape& shape) {
    if (!is_f32(values[v]) || values[v].shape != shape) return SIZE_MAX;
    const size_t reader = sole_reader(g, values, v, type);
    if (reader == SIZE_MAX) return SIZE_MAX;
    const Value& out = values[values.output(reader, 0)];
    return is_f32(out) && out.shape == shape ? reader : SIZE_MAX;
}

bool is_multiply_by(const sdk::GraphView& g, const ValueTable& values, size_t node, ValueId x, double c) {
    if (g.type(node) != "Multiply" || g.input_count(node) != 2) return false;
    const ValueId other = other_operand(g, values, node, x);
    return other != kNoValue && scalar_constant_near(values, other, c);
}

// torch's erf Gelu: its nodes, the last one last.
bool erf_gelu(const sdk::GraphView& g, const ValueTable& values, ValueId x, std::vector<size_t>& nodes) {
    const Value& xv = values[x];
    const Shape& shape = xv.shape;
    constexpr double sqrt2 = 1.41421356237309504880;
    // x / sqrt(2), or x * (1 / sqrt(2))
    size_t scaled = SIZE_MAX;
    for (const Use& u : xv.uses) {
        const size_t n = u.node;
        if (g.output_count(n) != 1 || g.input_count(n) != 2) continue;
        const bool divides = g.type(n) == "Divide" && u.port == 0 && values.input(n, 1) != x &&
                             scalar_constant_near(values, values.input(n, 1), sqrt2);
        if (divides || is_multiply_by(g, values, n, x, 1.0 / sqrt2)) {
            scaled = n;
            break;
        }
    }
    if (scaled == SIZE_MAX) return false;
    const size_t erf = pattern_step(g, values, values.output(scaled, 0), "Erf", shape);
    if (erf == SIZE_MAX) return false;
    const ValueId erf_out = values.output(erf, 0);
    const size_t plus_one = pattern_step(g, values, erf_out, "Add", shape);
    if (plus_one == SIZE_MAX || !scalar_constant_near(values, other_operand(g, values, plus_one, erf_out), 1.0)) return false;
    const ValueId term = values.output(plus_one, 0);  // 1 + erf(x / sqrt(2))
    const size_t first = pattern_step(g, values, term, "Multiply", shape);
    if (first == SIZE_MAX) return false;
    const ValueId first_other = other_operand(g, values, first, term);
    if (first_other == kNoValue) return false;
    nodes = {scaled, erf, plus_one, first};
    if (first_other == x || scalar_constant_near(values, first_other, 0.5)) {
        // (x * term) * 0.5, or (term * 0.5) * x: one more Multiply by what the first did not take
        const ValueId product = values.output(first, 0);
        const size_t last = pattern_step(g, values, product, "Multiply", shape);
        if (last == SIZE_MAX) return false;
        const ValueId other = other_operand(g, values, last, product);
        const bool completes = first_other == x ? scalar_constant_near(values, other, 0.5) : other == x;
        if (!completes) return false;
        nodes.push_back(last);
    } else {
        // (x * 0.5) * term
        const Value& half = values[first_other];
        if (half.kind != Value::Kind::intermediate || !is_f32(half) || half.uses.size() != 1 || half.producer == SIZE_MAX ||
            !is_multiply_by(g, values, half.producer, x, 0.5) || half.shape != shape)
            return false;
        nodes.insert(nodes.end() - 1, half.producer);
    }
    return true;
}

// Swish (SiLU) as x * Sigmoid(x), how EfficientNet and many torch models export it: its nodes,
// the Multiply last.
bool sigmoid_swish(const sdk::GraphView& g, const ValueTable& values, ValueId x, std::vector<size_t>& nodes) {
    for (const Use& u : values[x].uses) {
        if (g.type(u.node) != "Sigmoid" || g.output_count(u.node) != 1) continue;
        const ValueId gate = values.output(u.node, 0);
        const size_t product = pattern_step(g, values, gate, "Multiply", values[x].shape);
        if (product == SIZE_MAX || other_operand(g, values, product, gate) != x) continue;
        nodes = {u.node, product};
        return true;
    }
    return false;
}

}  // namespace

bool decomposed_activation_of(const sdk::GraphView& g, const ValueTable& values, ValueId x, FusedOp& op) {
    if (!is_f32(values[x])) return false;
    std::vector<size_t> nodes;
    op = FusedOp{};
    op.kind = FusedOp::Kind::eltwise;
    if (erf_gelu(g, values, x, nodes)) {
        op.algorithm = dnnl::algorithm::eltwise_gelu_erf;
    } else if (sigmoid_swish(g, values, x, nodes)) {
        op.algorithm = dnnl::algorithm::eltwise_swish;
        op.alpha = 1.0f;
    } else {
        return false;
    }
    op.node = nodes.back();
    op.absorbed.assign(nodes.begin(), nodes.end() - 1);
    return true;
}

}  // namespace mosaic::cpu_plugin
