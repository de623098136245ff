#include "fusion.hpp"

#include "decomposed_activation.hpp"
#include "graph_queries.hpp"

#include <mosaic/sdk/batch_norm.hpp>

#include <algorithm>
#include <cctype>
#include <limits>

namespace mosaic::cpu_plugin {

namespace {

bool is_f32(const Value& v) { return v.type == ElementType::f32; }

// Right-aligned like numpy: every bias dim is 1, or the output's dim where `rule` allows one.
bool bias_fits(const Shape& bias, const Shape& out, BiasRule rule) {
    if (rule == BiasRule::none || bias.size() > out.size()) return false;
    const size_t offset = out.size() - bias.size();
    for (size_t i = 0; i < bias.size(); ++i) {
        const size_t axis = offset + i;
        if (bias[i] == 1) continue;
        const bool allowed = rule == BiasRule::broadcast || axis == 1;
        if (!allowed || bias[i] != out[axis]) return false;
    }
    return true;
}

// A residual may be accumulated into the main op's output when it exists before the main op runs
// and nothing reads it after the Add: every other consumer runs before the main op, or is the main
// op itself (ResNet's identity shortcut feeds the block's first convolution and its final Add).
bool residual_dies_at(const ValueTable& values, ValueId residual, size_t add, size_t main) {
    const Value& r = values[residual];
    if (r.is_constant() || r.kind == Value::Kind::output) return false;
    if (r.kind != Value::Kind::input && r.producer >= main) return false;
    return std::all_of(r.uses.begin(), r.uses.end(), [&](const Use& u) { return u.node == add || u.node <= main; });
}

// BatchNormInference over the channels (axis 1) of `data`, every parameter an f32 constant of
// one value per channel: a per-channel scale and shift a convolution can fold.
bool foldable_batch_norm(const sdk::GraphView& g, const ValueTable& values, size_t node, ValueId data, int64_t channels) {
    if (g.type(node) != "BatchNormInference" || g.input_count(node) != 5) return false;
    const size_t data_port = sdk::batch_norm_ports(g.version(node) == "opset5").data;
    if (values.input(node, data_port) != data) return false;
    for (size_t i = 0; i < 5; ++i) {
        if (i == data_port) continue;
        const Value& p = values[values.input(node, i)];
        if (!p.is_constant() || !is_f32(p) || shape_size(p.shape) != channels) return false;
    }
    return true;
}


// After `quantize` (the chain's result quantized to q): q dequantized again with the same
// parameters and added to another dequantized tensor r computed before `main` (ResNet's residual
// connection in a QDQ model). An integer kernel rounds to q's grid and adds r as a sum post-op
// reading r's integers, never writing q.
bool quantized_residual(const sdk::GraphView& g, const ValueTable& values, size_t main, const FusedOp& quantize,
                        const Shape& out_shape, FusedOp& sum) {
    const ValueId q = values.output(quantize.node, 0);
    const size_t convert = sdk::patterns::sole_reader(g, values, q, "Convert");
    sdk::patterns::Dequantized again, residual;
    if (convert == sdk::patterns::kNone || !sdk::patterns::dequantization_from(g, values, convert, again) ||
        again.params.scale != quantize.quantization.scale || again.params.zero_point != quantize.quantization.zero_point ||
        !again.params.per_tensor())
        return false;
    const ValueId real = values.output(again.nodes.back(), 0);
    const size_t add = sdk::patterns::sole_reader(g, values, real, "Add");
    if (add == sdk::patterns::kNone) return false;
    const size_t port = values.input(add, 0) == real ? 1 : 0;
    if (values.input(add, 1 - port) != real || !sdk::patterns::dequantized_input(g, values, add, port, residual) ||
        !residual.params.per_tensor())
        return false;
    const Value& r = values[residual.q];
    if (r.is_constant() || r.shape != out_shape || (r.kind != Value::Kind::input && r.producer >= main)) return false;
    sum.kind = FusedOp::Kind::quantized_sum;
    sum.node = add;
    sum.operand = residual.q;
    sum.quantization = residual.params;
    sum.absorbed = again.nodes;
    return true;
}

// Clamps in a row compose into one clamp: the bounds are where the pair sends -inf and +inf.
FusedOp compose_clamps(const FusedOp& first, const FusedOp& second) {
    const auto apply = [&](float x) { return std::min(std::max(x, second.alpha), second.beta); };
    FusedOp op = second;
    op.alpha = apply(first.alpha);
    op.beta = apply(first.beta);
    return op;
}

bool is_clamp(const FusedOp& op) {
    return op.kind == FusedOp::Kind::eltwise && op.algorithm == dnnl::algorithm::eltwise_clip_v2;
}

// oneDNN 2.x keeps one eltwise injector per algorithm in a fused kernel, so two post-ops of one
// algorithm must agree on their parameters (else the second silently runs with the first's).
bool injectors_agree(const std::vector<FusedOp>& post_ops) {
    for (size_t i = 0; i < post_ops.size(); ++i)
        for (size_t j = i + 1; j < post_ops.size(); ++j)
            if (post_ops[i].kind == FusedOp::Kind::eltwise && post_ops[j].kind == FusedOp::Kind::eltwise &&
                post_ops[i].algorithm == post_ops[j].algorithm &&
                (post_ops[i].alpha != post_ops[j].alpha || post_ops[i].beta != post_ops[j].beta))
                return false;
    return true;
}

}  // namespace

std::vector<FusedOp> merged_post_ops(const std::vector<FusedOp>& fused) {
    std::vector<FusedOp> out;
    for (const FusedOp& op : fused) {
        if (op.kind == FusedOp::Kind::bias || op.kind == FusedOp::Kind::batch_norm) continue;
        if (is_clamp(op) && !out.empty() && is_clamp(out.back()))
            out.back() = compose_clamps(out.back(), op);
        else
            out.push_back(op);
    }
    return out;
}

namespace {

// Ops of one input (and constant parameters) with an eltwise algorithm of their own.
bool unary_eltwise(const sdk::GraphView& g, const ValueTable& values, size_t node, FusedOp& op) {
    using dnnl::algorithm;
    const std::string type = g.type(node);
    if (g.input_count(node) != 1 && type != "Swish") return false;
    if (type == "Relu") {
        op.algorithm = algorithm::eltwise_relu;
    } else if (type == "Clamp") {
        const Attributes a = g.attributes(node);
        op.algorithm = algorithm::eltwise_clip_v2;
        op.alpha = static_cast<float>(a.get_float("min"));
        op.beta = static_cast<float>(a.get_float("max"));
    } else if (type == "Sigmoid") {
        op.algorithm = algorithm::eltwise_logistic;
    } else if (type == "Tanh") {
        op.algorithm = algorithm::eltwise_tanh;
    } else if (type == "Elu") {
        op.algorithm = algorithm::eltwise_elu;
        op.alpha = static_cast<float>(g.attributes(node).get_float("alpha"));
    } else if (type == "Swish") {
        op.algorithm = algorithm::eltwise_swish;
        op.alpha = 1.0f;
        if (g.input_count(node) > 1 && !scalar_constant(values, values.input(node, 1), op.alpha)) return false;
    } else if (type == "HSwish") {
        op.algorithm = algorithm::eltwise_hardswish;
    } else if (type == "Mish") {
        op.algorithm = algorithm::eltwise_mish;
    } else if (type == "Gelu") {
        const bool tanh = g.version(node) != "opset2" &&
                          lower_case(g.attributes(node).get_string("approximation_mode", "erf")) == "tanh";
        op.algorithm = tanh ? algorithm::eltwise_gelu_tanh : algorithm::eltwise_gelu_erf;
    } else if (type == "Exp") {
        op.algorithm = algorithm::eltwise_exp;
    } else if (type == "Log") {
        op.algorithm = algorithm::eltwise_log;
    } else if (type == "Sqrt") {
        op.algorithm = algorithm::eltwise_sqrt;
    } else if (type == "Abs") {
        op.algorithm = algorithm::eltwise_abs;
    } else if (type == "Negative") {
        op.algorithm = algorithm::eltwise_linear;
        op.alpha = -1.0f;
    } else if (type == "Round") {
        // oneDNN rounds half to even; half away from zero has no algorithm.
        if (lower_case(g.attributes(node).get_string("mode", "half_to_even")) != "half_to_even") return false;
        op.algorithm = algorithm::eltwise_round;
    } else {
        return false;
    }
    return true;
}

// A binary op whose other operand than `port` is a one-element f32 constant c, as a function of
// the data: clip(c, inf) and clip(-inf, c) for Maximum and Minimum (ONNX's Clip arrives as that
// pair), x^c, and the linear functions c*x, x/c (as x * (1/c), within an ulp), x+c, x-c and c-x.
bool scalar_operand_eltwise(const sdk::GraphView& g, const ValueTable& values, size_t node, size_t port, FusedOp& op) {
    using dnnl::algorithm;
    float c = 0;
    if (!scalar_constant(values, values.input(node, 1 - port), c)) return false;
    const std::string type = g.type(node);
    constexpr float inf = std::numeric_limits<float>::infinity();
    if (type == "Maximum" || type == "Minimum") {
        op.algorithm = algorithm::eltwise_clip_v2;
        op.alpha = type == "Maximum" ? c : -inf;
        op.beta = type == "Maximum" ? inf : c;
    } else if (type == "Power" && port == 0) {
        op.algorithm = algorithm::eltwise_pow;
        op.alpha = 1.0f;
        op.beta = c;
    } else if (type == "Multiply" || (type == "Divide" && port == 0)) {
        op.algorithm = algorithm::eltwise_linear;
        op.alpha = type == "Multiply" ? c : 1.0f / c;
    } else if (type == "Add" || type == "Subtract") {
        op.algorithm = algorithm::eltwise_linear;
        const bool negated = type == "Subtract" && port == 1;  // c - x
        op.alpha = negated ? -1.0f : 1.0f;
        op.beta = type == "Subtract" && port == 0 ? -c : c;
    } else {
        return false;
    }
    return true;
}

}  // namespace

bool eltwise_of(const sdk::GraphView& g, const ValueTable& values, size_t node, size_t port, FusedOp& op) {
    op = FusedOp{};
    op.kind = FusedOp::Kind::eltwise;
    op.node = node;
    if (port >= g.input_count(node) || !is_f32(values[values.input(node, port)])) return false;
    if (g.input_count(node) == 2 && scalar_operand_eltwise(g, values, node, port, op)) return true;
    return port == 0 && unary_eltwise(g, values, node, op);
}

std::vector<FusedOp> fusable_chain(const sdk::GraphView& g, const ValueTable& values, size_t main, BiasRule rule) {
    std::vector<FusedOp> chain;
    if (g.output_count(main) != 1) return chain;
    const Shape out_shape = values[values.output(main, 0)].shape;
    ValueId current = values.output(main, 0);
    bool has_sum = false;
    // Appends `op` unless it would run with another post-op's parameters.
    const auto append = [&](const FusedOp& op) {
        chain.push_back(op);
        if (injectors_agree(merged_post_ops(chain))) return true;
        chain.pop_back();
        return false;
    };
    while (true) {
        const Value& cur = values[current];
        FusedOp decomposed;
        if (cur.kind == Value::Kind::intermediate && cur.uses.size() == 2 &&
            decomposed_activation_of(g, values, current, decomposed)) {
            // The activation reads the output twice, and nothing else does.
            if (!append(decomposed)) break;
            current = values.output(decomposed.node, 0);
            continue;
        }
        if (cur.kind != Value::Kind::intermediate || cur.uses.size() != 1 || !is_f32(cur)) break;
        const size_t next = cur.uses[0].node;
        if (g.output_count(next) != 1) break;
        sdk::patterns::Quantized quantized;
        if (cur.uses[0].port == 0 && sdk::patterns::quantization_from(g, values, next, quantized)) {
            FusedOp q;
            q.kind = FusedOp::Kind::quantize;
            q.node = quantized.nodes.back();
            q.absorbed.assign(quantized.nodes.begin(), quantized.nodes.end() - 1);
            q.quantization = std::move(quantized.params);
            chain.push_back(std::move(q));
            // Integers from here on, unless they are dequantized again for a quantized residual.
            FusedOp sum;
            if (has_sum || !quantized_residual(g, values, main, chain.back(), out_shape, sum)) break;
            chain.push_back(std::move(sum));
            has_sum = true;
            current = values.output(chain.back().node, 0);
            continue;
        }
        const ValueId next_out = values.output(next, 0);
        if (values[next_out].shape != out_shape || !is_f32(values[next_out])) break;

        FusedOp op;
        const bool only_bias_before = chain.empty() || (chain.size() == 1 && chain[0].kind == FusedOp::Kind::bias);
        if (rule == BiasRule::per_channel && only_bias_before && out_shape.size() >= 2 &&
            foldable_batch_norm(g, values, next, current, out_shape[1])) {
            op.kind = FusedOp::Kind::batch_norm;
            op.node = next;
        } else if (g.type(next) == "Add") {
            const ValueId other = values.input(next, 1 - cur.uses[0].port);
            const Value& o = values[other];
            if (!is_f32(o)) break;
            op.node = next;
            op.operand = other;
            if (chain.empty() && o.is_constant() && bias_fits(o.shape, out_shape, rule)) {
                op.kind = FusedOp::Kind::bias;
            } else if (!has_sum && o.shape == out_shape && residual_dies_at(values, other, next, main)) {
                op.kind = FusedOp::Kind::sum;
                has_sum = true;
            } else if (!eltwise_of(g, values, next, cur.uses[0].port, op)) {
                break;  // neither a bias, a residual nor a constant added (a linear post-op)
            }
        } else if (!eltwise_of(g, values, next, cur.uses[0].port, op)) {
            break;
        }
        if (!append(op)) break;
        current = next_out;
    }
    return chain;
}

std::vector<size_t> fused_nodes(const std::vector<FusedOp>& fused) {
    std::vector<size_t> nodes;
    for (const FusedOp& op : fused) {
        nodes.push_back(op.node);
        nodes.insert(nodes.end(), op.absorbed.begin(), op.absorbed.end());
    }
    return nodes;
}

dnnl::post_ops post_ops_of(const std::vector<FusedOp>& fused) {
    dnnl::post_ops ops;
    for (const FusedOp& op : merged_post_ops(fused)) {
        if (op.kind == FusedOp::Kind::eltwise) ops.append_eltwise(1.0f, op.algorithm, op.alpha, op.beta);
        if (op.kind == FusedOp::Kind::sum) ops.append_sum(1.0f);
    }
    return ops;
}

const FusedOp* find_fused(const std::vector<FusedOp>& fused, FusedOp::Kind kind) {
    for (const FusedOp& op : fused)
        if (op.kind == kind) return &op;
    return nullptr;
}

}  // namespace mosaic::cpu_plugin
