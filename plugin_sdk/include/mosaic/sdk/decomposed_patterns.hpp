// Activations that exporters write as several ops, for devices that run them as one: torch's erf
// Gelu, x * 0.5 * (1 + Erf(x / sqrt(2))) in any of its orders (Divide by sqrt(2) or Multiply by
// 1/sqrt(2); the 0.5 applied to x, to the Erf term or to the product), and Swish as x * Sigmoid(x).
// Five ops and four passes over the tensor, or two, where one eltwise pass (or a post-op of the
// MatMul or convolution before it) does.
//
// Written over a device's own table of the graph's values, so that every device matches exactly
// the same graphs. `Values` provides size(), input(node, i) and output(node, port) (value ids,
// SIZE_MAX for none), and operator[](id) a value with `kind` (an enum with `constant` and
// `intermediate`: not a graph input or output), `type`, `shape`, `constant` (a constant's bytes),
// `producer` (SIZE_MAX for none) and `uses` (each with `node` and `port`).
#pragma once

#include <mosaic/sdk/graph.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mosaic::sdk::patterns {

constexpr size_t kNone = SIZE_MAX;

// `v` as a float, when it is a one-element f32 constant (of any rank); false for kNone.
template <class Values>
bool scalar_constant(const Values& values, size_t v, float& out) {
    if (v >= values.size()) return false;
    const auto& value = values[v];
    if (!value.is_constant() || value.type != ElementType::f32 || shape_size(value.shape) != 1) return false;
    std::memcpy(&out, value.constant, sizeof(float));
    return true;
}

// `v` is a one-element f32 constant within a relative `tolerance` of `expected` (graphs exported
// from other frameworks write sqrt(2) and 1/sqrt(2) with whatever rounding they had).
template <class Values>
bool scalar_constant_near(const Values& values, size_t v, double expected, double tolerance = 1e-6) {
    float value = 0;
    return scalar_constant(values, v, value) && std::fabs(value - expected) <= tolerance * std::fabs(expected);
}

// The node of `type` (with one output) that alone reads `v`, when `v` is an intermediate tensor:
// not a graph output, since a pattern run as one never writes its inner tensors. kNone otherwise.
template <class Values>
size_t sole_reader(const GraphView& g, const Values& values, size_t v, const char* type) {
    const auto& value = values[v];
    using Kind = decltype(value.kind);
    if (value.kind != Kind::intermediate || value.uses.size() != 1) return kNone;
    const size_t reader = value.uses[0].node;
    return g.type(reader) == type && g.output_count(reader) == 1 ? reader : kNone;
}

// What two-input `node` reads besides `v`, when it reads `v` exactly once; kNone otherwise.
template <class Values>
size_t other_operand(const GraphView& g, const Values& values, size_t node, size_t v) {
    if (g.input_count(node) != 2) return kNone;
    const size_t a = values.input(node, 0), b = values.input(node, 1);
    if (a == v && b != v) return b;
    if (b == v && a != v) return a;
    return kNone;
}

enum class DecomposedActivation { none, gelu_erf, swish };

namespace detail {

// The op of `type` that alone reads `v` when `v` is f32 of `shape`, and writes f32 of that shape.
template <class Values>
size_t pattern_step(const GraphView& g, const Values& values, size_t v, const char* type, const Shape& shape) {
    if (values[v].type != ElementType::f32 || values[v].shape != shape) return kNone;
    const size_t reader = sole_reader(g, values, v, type);
    if (reader == kNone) return kNone;
    const auto& out = values[values.output(reader, 0)];
    return out.type == ElementType::f32 && out.shape == shape ? reader : kNone;
}

template <class Values>
bool is_multiply_by(const GraphView& g, const Values& values, size_t node, size_t x, double c) {
    if (g.type(node) != "Multiply" || g.input_count(node) != 2) return false;
    const size_t other = other_operand(g, values, node, x);
    return other != kNone && scalar_constant_near(values, other, c);
}

// torch's erf Gelu: its nodes, the last one last.
template <class Values>
bool erf_gelu(const GraphView& g, const Values& values, size_t x, std::vector<size_t>& nodes) {
    const auto& xv = values[x];
    const Shape& shape = xv.shape;
    constexpr double sqrt2 = 1.41421356237309504880;
    // x / sqrt(2), or x * (1 / sqrt(2))
    size_t scaled = kNone;
    for (const auto& u : xv.uses) {
        const size_t n = u.node;
        if (g.output_count(n) != 1 || g.input_count(n) != 2) continue;
        const bool divides = g.type(n) == "Divide" && u.port == 0 && values.input(n, 1) != x &&
                             scalar_constant_near(values, values.input(n, 1), sqrt2);
        if (divides || is_multiply_by(g, values, n, x, 1.0 / sqrt2)) {
            scaled = n;
            break;
        }
    }
    if (scaled == kNone) return false;
    const size_t erf = pattern_step(g, values, values.output(scaled, 0), "Erf", shape);
    if (erf == kNone) return false;
    const size_t erf_out = values.output(erf, 0);
    const size_t plus_one = pattern_step(g, values, erf_out, "Add", shape);
    if (plus_one == kNone || !scalar_constant_near(values, other_operand(g, values, plus_one, erf_out), 1.0)) return false;
    const size_t term = values.output(plus_one, 0);  // 1 + erf(x / sqrt(2))
    const size_t first = pattern_step(g, values, term, "Multiply", shape);
    if (first == kNone) return false;
    const size_t first_other = other_operand(g, values, first, term);
    if (first_other == kNone) return false;
    nodes = {scaled, erf, plus_one, first};
    if (first_other == x || scalar_constant_near(values, first_other, 0.5)) {
        // (x * term) * 0.5, or (term * 0.5) * x: one more Multiply by what the first did not take
        const size_t product = values.output(first, 0);
        const size_t last = pattern_step(g, values, product, "Multiply", shape);
        if (last == kNone) return false;
        const size_t other = other_operand(g, values, last, product);
        const bool completes = first_other == x ? scalar_constant_near(values, other, 0.5) : other == x;
        if (!completes) return false;
        nodes.push_back(last);
    } else {
        // (x * 0.5) * term
        const auto& half = values[first_other];
        using Kind = decltype(half.kind);
        if (half.kind != Kind::intermediate || half.type != ElementType::f32 || half.uses.size() != 1 ||
            half.producer == kNone || !is_multiply_by(g, values, half.producer, x, 0.5) || half.shape != shape)
            return false;
        nodes.insert(nodes.end() - 1, half.producer);
    }
    return true;
}

// Swish (SiLU) as x * Sigmoid(x), how EfficientNet and many torch models export it: its nodes,
// the Multiply last.
template <class Values>
bool sigmoid_swish(const GraphView& g, const Values& values, size_t x, std::vector<size_t>& nodes) {
    for (const auto& u : values[x].uses) {
        if (g.type(u.node) != "Sigmoid" || g.output_count(u.node) != 1) continue;
        const size_t gate = values.output(u.node, 0);
        const size_t product = pattern_step(g, values, gate, "Multiply", values[x].shape);
        if (product == kNone || other_operand(g, values, product, gate) != x) continue;
        nodes = {u.node, product};
        return true;
    }
    return false;
}

}  // namespace detail

// The decomposed activation of f32 `x`, if one reads it: `nodes` gets its ops, the last one (whose
// result is the activation's) last. Every inner tensor is f32 of x's shape, read by the next op
// only, and no graph output. Other readers of x are the caller's concern: a device that fuses the
// pattern into the op computing x must check that nothing else reads x.
template <class Values>
DecomposedActivation decomposed_activation(const GraphView& g, const Values& values, size_t x, std::vector<size_t>& nodes) {
    if (values[x].type != ElementType::f32) return DecomposedActivation::none;
    if (detail::erf_gelu(g, values, x, nodes)) return DecomposedActivation::gelu_erf;
    if (detail::sigmoid_swish(g, values, x, nodes)) return DecomposedActivation::swish;
    return DecomposedActivation::none;
}

}  // namespace mosaic::sdk::patterns
