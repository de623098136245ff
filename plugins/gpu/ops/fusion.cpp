#include "ops/fusion.hpp"

#include "ops/activation.hpp"

#include <mosaic/sdk/decomposed_patterns.hpp>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace mosaic::gpu_plugin {

namespace {

// The single node reading `v`, when `v` is an intermediate nobody else reads.
std::optional<size_t> only_reader(const BuildContext& ctx, ValueId v) {
    const Value& value = ctx.values[v];
    if (value.kind != Value::Kind::intermediate || value.uses.size() != 1) return std::nullopt;
    const size_t reader = value.uses[0].node;
    if (!ctx.values.runs(reader) || ctx.fused[reader]) return std::nullopt;
    return reader;
}

// True when `c` broadcast to `out` varies along `axis` only, with out[axis] values.
bool is_channel_vector(const Shape& c, const Shape& out, size_t axis) {
    if (c.size() > out.size() || shape_size(c) != out[axis]) return false;
    const size_t lead = out.size() - c.size();
    for (size_t d = 0; d < c.size(); ++d)
        if (c[d] != 1 && lead + d != axis) return false;
    return true;
}

// An activation exporters write as several ops (torch's erf Gelu, Swish as x * Sigmoid(x): the
// SDK's decomposed_patterns.hpp, which the CPU device matches too) reading `v`, when `v` is an
// intermediate read by the pattern's ops alone, all of them still to run here: its ops, the last
// one last, and its activation. As one activation of the epilogue it spares up to four passes
// over the tensor (BERT-base's Gelu after each intermediate MatMul).
std::optional<std::pair<std::vector<size_t>, Activation>> decomposed_activation_of(const BuildContext& ctx, ValueId v) {
    const Value& value = ctx.values[v];
    if (value.kind != Value::Kind::intermediate) return std::nullopt;
    std::vector<size_t> nodes;
    const sdk::patterns::DecomposedActivation kind = sdk::patterns::decomposed_activation(ctx.graph, ctx.values, v, nodes);
    if (kind == sdk::patterns::DecomposedActivation::none) return std::nullopt;
    for (const Use& u : value.uses)
        if (std::find(nodes.begin(), nodes.end(), u.node) == nodes.end()) return std::nullopt;
    if (!ctx.all_still_to_run(nodes)) return std::nullopt;
    const Activation act = kind == sdk::patterns::DecomposedActivation::swish ? Activation{ACT_SWISH, 1.0f, 0.0f}
                                                                              : Activation{ACT_GELU_ERF, 0.0f, 0.0f};
    return std::make_pair(std::move(nodes), act);
}

bool is_f32_add(const sdk::GraphView& g, size_t n) {
    return g.type(n) == "Add" && g.input_count(n) == 2 && g.output_type(n, 0) == ElementType::f32 &&
           g.input_type(n, 0) == ElementType::f32 && g.input_type(n, 1) == ElementType::f32;
}

// The host values of `v` when it is an f32 value known at compile time with `count` elements.
const float* compile_time_floats(const BuildContext& ctx, ValueId v, int64_t count) {
    const Value& value = ctx.values[ctx.values.storage_of(v)];
    if (!value.is_constant() || value.type != ElementType::f32 || shape_size(ctx.values[v].shape) != count) return nullptr;
    return static_cast<const float*>(value.constant);
}

}  // namespace

std::optional<sdk::ChannelAffine> batch_norm_affine_of(const BuildContext& ctx, size_t bn, ValueId data, const float* bias) {
    const sdk::GraphView& g = ctx.graph;
    if (g.type(bn) != "BatchNormInference" || g.input_count(bn) != 5 || g.output_type(bn, 0) != ElementType::f32)
        return std::nullopt;
    const sdk::BatchNormPorts ports = sdk::batch_norm_ports(g.version(bn) == "opset5");
    const Shape shape = g.input_shape(bn, ports.data);
    if (ctx.values.input(bn, ports.data) != data || shape.size() < 2) return std::nullopt;
    const float* p[4] = {};
    const size_t params[4] = {ports.gamma, ports.beta, ports.mean, ports.variance};
    for (size_t i = 0; i < 4; ++i)
        if (!(p[i] = compile_time_floats(ctx, ctx.values.input(bn, params[i]), shape[1]))) return std::nullopt;
    return sdk::batch_norm_affine(p[0], p[1], p[2], p[3], g.attributes(bn).get_float("epsilon"),
                                  static_cast<size_t>(shape[1]), bias);
}

void Executor::take_epilogue(const sdk::GraphView& graph, const Epilogue& e) {
    if (!e.empty()) fused_into(graph.node_name(e.last_node), e.out);
    if (e.bias != kNoValue) add_input(e.bias);
    if (e.residual != kNoValue) add_input(e.residual);
}

Epilogue fuse_epilogue(BuildContext& ctx, size_t node, size_t channel_axis, bool fold_batch_norm) {
    const sdk::GraphView& g = ctx.graph;
    const Shape out_shape = g.output_shape(node, 0);
    Epilogue e;
    e.out = ctx.values.output(node, 0);
    e.last_node = node;
    e.args.channels = static_cast<cl_int>(out_shape.at(channel_axis));
    int64_t inner = 1;
    for (size_t d = channel_axis + 1; d < out_shape.size(); ++d) inner *= out_shape[d];
    e.args.inner = static_cast<cl_int>(inner);
    e.args.bias_per_column = channel_axis + 1 == out_shape.size() ? 1 : 0;

    auto take = [&](size_t n) {
        ctx.fused[n] = true;
        e.out = ctx.values.output(n, 0);
        e.last_node = n;
    };
    // Which operand of a binary node is not the chain's value.
    auto other_input = [&](size_t n) { return ctx.values.input(n, 0) == e.out ? size_t{1} : size_t{0}; };

    std::optional<size_t> next = only_reader(ctx, e.out);
    // 1. bias
    if (next && is_f32_add(g, *next) && g.output_shape(*next, 0) == out_shape) {
        const size_t k = other_input(*next);
        if (check_compile_time_input(g, *next, k).empty() && is_channel_vector(g.input_shape(*next, k), out_shape, channel_axis)) {
            e.args.has_bias = 1;
            e.bias = ctx.values.input(*next, k);
            take(*next);
            next = only_reader(ctx, e.out);
        }
    }
    // 1b. a BatchNormInference over the channels: its scale into the filters (the executor's),
    // its shift, with the bias's values, into a bias of its own.
    if (fold_batch_norm && next && channel_axis == 1) {
        const float* bias = e.bias != kNoValue ? compile_time_floats(ctx, e.bias, e.args.channels) : nullptr;
        if (e.bias == kNoValue || bias)
            if (std::optional<sdk::ChannelAffine> bn = batch_norm_affine_of(ctx, *next, e.out, bias)) {
                e.args.has_bias = 1;
                e.bias = kNoValue;
                e.filter_scale = std::move(bn->scale);
                e.folded_bias = ctx.upload(bn->shift.data(), bn->shift.size());
                take(*next);
                next = only_reader(ctx, e.out);
            }
    }
    // An activation of the chain's value, stored into kind/a/b; false when `next` is none.
    auto take_activation = [&](cl_int& kind, cl_float& a, cl_float& b) {
        if (const auto decomposed = decomposed_activation_of(ctx, e.out)) {  // x read twice: no single reader
            kind = decomposed->second.kind;
            a = decomposed->second.a;
            b = decomposed->second.b;
            for (size_t n : decomposed->first) take(n);
            next = only_reader(ctx, e.out);
            return true;
        }
        if (!next || g.output_shape(*next, 0) != out_shape || ctx.values.input(*next, 0) != e.out) return false;
        const std::optional<Activation> act = activation_of(g, *next);
        if (!act) return false;
        kind = act->kind;
        a = act->a;
        b = act->b;
        take(*next);
        next = only_reader(ctx, e.out);
        return true;
    };
    // 2. first activation
    take_activation(e.args.act1, e.args.act1_a, e.args.act1_b);
    // 3. residual: the other operand must exist before the main op runs.
    if (next && is_f32_add(g, *next) && g.output_shape(*next, 0) == out_shape) {
        const size_t k = other_input(*next);
        const ValueId r = ctx.values.input(*next, k);
        const Value& rv = ctx.values[r];
        if (r != e.out && !rv.is_constant() && rv.shape == out_shape &&
            (rv.kind == Value::Kind::input || rv.producer < node)) {
            e.args.has_residual = 1;
            e.residual = r;
            take(*next);
            next = only_reader(ctx, e.out);
        }
    }
    // 4. second activation
    take_activation(e.args.act2, e.args.act2_a, e.args.act2_b);
    return e;
}

}  // namespace mosaic::gpu_plugin
