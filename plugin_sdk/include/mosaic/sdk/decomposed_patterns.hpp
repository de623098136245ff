// Ops that exporters write as several, for devices that run them as one:
//
// - torch's erf Gelu, x * 0.5 * (1 + Erf(x / sqrt(2))) in any of its orders (Divide by sqrt(2) or
//   Multiply by 1/sqrt(2); the 0.5 applied to x, to the Erf term or to the product), and Swish as
//   x * Sigmoid(x): five ops and four passes over the tensor, or two, where one eltwise pass (or a
//   post-op of the MatMul or convolution before it) does;
// - layer normalisation, (x - mean) / sqrt(var + eps) over the trailing axes of x, times a
//   constant scale, plus a constant shift: the decomposition torch's exporter writes for
//   nn.LayerNorm (ReduceMean -> Subtract -> Power(2) or Multiply(d, d) -> ReduceMean -> Add(eps)
//   -> Sqrt -> Divide, or Multiply(d, Divide(1, .)) as Mosaic's ONNX LayerNormalization translator
//   writes it, then an optional Multiply and Add: nine to eleven ops), or MVN normalising the
//   variance with eps inside the square root, then the same optional Multiply and Add (OpenVINO
//   IR's LayerNorm).
//
// Written over a device's table of the graph's values (sdk/value_table.hpp's, or one of its own),
// so that every device matches exactly the same graphs. `Values` provides size(), input(node, i) and output(node, port) (value ids,
// SIZE_MAX for none), and operator[](id) a value with `kind` (an enum with `constant` and
// `intermediate`: not a graph input or output), `type`, `shape`, `constant` (a constant's bytes),
// `producer` (SIZE_MAX for none) and `uses` (each with `node` and `port`).
#pragma once

#include <mosaic/sdk/graph.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
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

// `v` as integers, when it is an integer constant of rank 0 or 1.
template <class Values>
bool int_constant(const Values& values, size_t v, std::vector<int64_t>& out) {
    if (v >= values.size()) return false;
    const auto& value = values[v];
    if (!value.is_constant() || value.shape.size() > 1) return false;
    if (value.type != ElementType::i64 && value.type != ElementType::i32) return false;
    const int64_t count = shape_size(value.shape);
    out.clear();
    for (int64_t i = 0; i < count; ++i)
        out.push_back(value.type == ElementType::i64 ? static_cast<const int64_t*>(value.constant)[i]
                                                     : static_cast<const int32_t*>(value.constant)[i]);
    return true;
}

// `axes` (negative ones counting from the end) as a sorted list of distinct axes of a tensor of
// `rank`, or false when one is out of range or repeated.
inline bool normalize_axes(std::vector<int64_t>& axes, size_t rank) {
    const auto r = static_cast<int64_t>(rank);
    for (int64_t& a : axes) {
        if (a < -r || a >= r) return false;
        if (a < 0) a += r;
    }
    std::sort(axes.begin(), axes.end());
    return std::adjacent_find(axes.begin(), axes.end()) == axes.end();
}

// `s` in lower case: attribute words (auto_pad, approximation_mode, eps_mode, activations) are
// matched whatever case the model wrote them in, as the reference kernels do.
inline std::string lower_case(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
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

// A matched layer normalisation: `src` normalised over its dims [first_axis, rank), scaled by the
// constant `scale` and shifted by the constant `shift` where they are not kNone (each broadcasts
// over the normalised dims only: layer_norm_parameter lays it out over them).
struct LayerNorm {
    size_t src = kNone;
    size_t first_axis = 0;
    float eps = 0;
    size_t scale = kNone, shift = kNone;
    size_t last = 0;            // the node whose output the pattern produces
    std::vector<size_t> nodes;  // every node but the first
};

namespace detail {

// The axes a reduction over `axes_value` (a constant) of a tensor of `rank` names, when they are a
// trailing run [first, rank).
template <class Values>
bool trailing_axes(const Values& values, size_t axes_value, size_t rank, size_t& first) {
    std::vector<int64_t> axes;
    if (!int_constant(values, axes_value, axes) || axes.empty() || !normalize_axes(axes, rank)) return false;
    first = rank - axes.size();
    for (size_t i = 0; i < axes.size(); ++i)
        if (axes[i] != static_cast<int64_t>(first + i)) return false;
    return true;
}

inline Shape reduced_shape(Shape shape, size_t first_axis) {
    for (size_t a = first_axis; a < shape.size(); ++a) shape[a] = 1;
    return shape;
}

// ReduceMean of `v` over [first_axis, rank) keeping dims, as the only reader of `v`.
template <class Values>
size_t mean_of(const GraphView& g, const Values& values, size_t v, size_t first_axis) {
    const size_t n = sole_reader(g, values, v, "ReduceMean");
    if (n == kNone) return kNone;
    const Shape& shape = values[v].shape;
    size_t first = 0;
    if (!trailing_axes(values, values.input(n, 1), shape.size(), first) || first != first_axis) return kNone;
    const auto& out = values[values.output(n, 0)];
    return out.type == ElementType::f32 && out.shape == reduced_shape(shape, first_axis) ? n : kNone;
}

// A constant that broadcasts over the normalised axes [first_axis, rank) of `shape` only.
template <class Value>
bool fits_normalised_axes(const Value& c, const Shape& shape, size_t first_axis) {
    if (!c.is_constant() || c.type != ElementType::f32 || c.shape.size() > shape.size()) return false;
    const size_t offset = shape.size() - c.shape.size();
    for (size_t i = 0; i < c.shape.size(); ++i) {
        const size_t axis = offset + i;
        if (c.shape[i] != 1 && (axis < first_axis || c.shape[i] != shape[axis])) return false;
    }
    return true;
}

// After the normalisation: an optional Multiply by a constant scale, then an optional Add of a
// constant shift, each the only reader of what precedes it.
template <class Values>
void scale_and_shift(const GraphView& g, const Values& values, LayerNorm& p) {
    const Shape& shape = values[p.src].shape;
    for (const char* type : {"Multiply", "Add"}) {
        const size_t current = values.output(p.last, 0);
        const size_t n = sole_reader(g, values, current, type);
        if (n == kNone) continue;
        const size_t other = other_operand(g, values, n, current);
        if (other == kNone) continue;
        const auto& out = values[values.output(n, 0)];
        if (!fits_normalised_axes(values[other], shape, p.first_axis) || out.type != ElementType::f32 || out.shape != shape)
            continue;
        (std::string(type) == "Multiply" ? p.scale : p.shift) = other;
        p.nodes.push_back(n);
        p.last = n;
    }
}

// torch's decomposed LayerNorm, from its first ReduceMean `mean_node`.
template <class Values>
bool decomposed_layer_norm(const GraphView& g, const Values& values, size_t mean_node, LayerNorm& p) {
    if (g.input_count(mean_node) != 2 || g.output_count(mean_node) != 1) return false;
    const size_t x = values.input(mean_node, 0);
    const auto& xv = values[x];
    using Kind = decltype(xv.kind);
    const size_t rank = xv.shape.size();
    if (xv.type != ElementType::f32 || rank == 0 || !trailing_axes(values, values.input(mean_node, 1), rank, p.first_axis))
        return false;
    const Shape& shape = xv.shape;
    const Shape stat_shape = reduced_shape(shape, p.first_axis);
    const size_t mean = values.output(mean_node, 0);
    if (values[mean].type != ElementType::f32 || values[mean].shape != stat_shape) return false;

    // d = x - mean
    const size_t sub = sole_reader(g, values, mean, "Subtract");
    if (sub == kNone || values.input(sub, 0) != x || values.input(sub, 1) != mean) return false;
    const size_t d = values.output(sub, 0);
    const auto& dv = values[d];
    if (dv.kind != Kind::intermediate || dv.type != ElementType::f32 || dv.shape != shape) return false;

    // d squared, and d divided by the deviation: the only readers of d
    size_t square = kNone, normalise = kNone;
    size_t square_reads = 0;
    for (const auto& u : dv.uses) {
        const std::string type = g.type(u.node);
        if (type == "Power" && u.port == 0 && scalar_constant_near(values, values.input(u.node, 1), 2.0, 0)) {
            square = u.node;
            ++square_reads;
        } else if (type == "Multiply" && values.input(u.node, 0) == d && values.input(u.node, 1) == d) {
            square = u.node;
            ++square_reads;
        } else if ((type == "Divide" && u.port == 0) || type == "Multiply") {
            if (normalise != kNone && normalise != u.node) return false;
            normalise = u.node;
        } else {
            return false;
        }
    }
    const size_t expected_square_reads = square != kNone && g.type(square) == "Multiply" ? 2 : 1;
    if (square == kNone || normalise == kNone || square_reads != expected_square_reads ||
        dv.uses.size() != square_reads + 1)
        return false;

    // var = mean(d^2); dev = sqrt(var + eps)
    const auto& squared = values[values.output(square, 0)];
    if (squared.type != ElementType::f32 || squared.shape != shape) return false;
    const size_t var = mean_of(g, values, values.output(square, 0), p.first_axis);
    if (var == kNone) return false;
    const size_t var_out = values.output(var, 0);
    const size_t plus_eps = sole_reader(g, values, var_out, "Add");
    if (plus_eps == kNone || !scalar_constant(values, other_operand(g, values, plus_eps, var_out), p.eps) ||
        values[values.output(plus_eps, 0)].shape != stat_shape)
        return false;
    const size_t sqrt = sole_reader(g, values, values.output(plus_eps, 0), "Sqrt");
    if (sqrt == kNone || values[values.output(sqrt, 0)].shape != stat_shape) return false;
    const size_t dev = values.output(sqrt, 0);

    // d / dev, or d * (1 / dev)
    p.nodes = {sub, square, var, plus_eps, sqrt};
    const size_t reader = sole_reader(g, values, dev, "Divide");
    if (reader == kNone) return false;
    if (reader == normalise) {
        if (values.input(normalise, 1) != dev) return false;
    } else {
        if (!scalar_constant_near(values, values.input(reader, 0), 1.0, 0) || values.input(reader, 1) != dev) return false;
        const size_t inverse = values.output(reader, 0);
        if (values[inverse].shape != stat_shape || sole_reader(g, values, inverse, "Multiply") != normalise ||
            g.type(normalise) != "Multiply" || other_operand(g, values, normalise, d) != inverse)
            return false;
        p.nodes.push_back(reader);
    }
    const auto& normalised = values[values.output(normalise, 0)];
    if (normalised.type != ElementType::f32 || normalised.shape != shape) return false;
    p.nodes.push_back(normalise);
    p.src = x;
    p.last = normalise;
    scale_and_shift(g, values, p);
    return true;
}

// MVN normalising the variance with eps inside the square root over trailing axes.
template <class Values>
bool mvn_layer_norm(const GraphView& g, const Values& values, size_t node, LayerNorm& p) {
    const size_t x = values.input(node, 0);
    const auto& xv = values[x];
    const size_t rank = xv.shape.size();
    const Attributes a = g.attributes(node);
    if (xv.type != ElementType::f32 || rank == 0 || g.output_count(node) != 1) return false;
    if (g.version(node) == "opset6") {
        if (!a.get_bool("normalize_variance") || lower_case(a.get_string("eps_mode", "inside_sqrt")) != "inside_sqrt" ||
            !trailing_axes(values, values.input(node, 1), rank, p.first_axis))
            return false;
    } else {
        if (!a.get_bool("normalize_variance", false)) return false;
        std::vector<int64_t> axes = a.get_ints("reduction_axes", {});
        if (axes.empty()) p.first_axis = a.get_bool("across_channels", false) ? 1 : 2;
        else if (normalize_axes(axes, rank) && axes.back() == static_cast<int64_t>(rank) - 1 &&
                 axes.size() == static_cast<size_t>(axes.back() - axes.front() + 1))
            p.first_axis = static_cast<size_t>(axes.front());
        else
            return false;
        if (p.first_axis >= rank) return false;
    }
    p.eps = static_cast<float>(a.get_float("eps"));
    p.src = x;
    p.last = node;
    scale_and_shift(g, values, p);
    return true;
}

}  // namespace detail

// The layer normalisation beginning at `node` (its first ReduceMean, or an MVN), or false. The
// pattern fires only when every inner tensor is read by the next op alone (no other consumer, no
// graph output), the axes are a trailing run, the constants have the shapes and values the
// pattern needs, and everything is f32.
template <class Values>
bool layer_norm_of(const GraphView& g, const Values& values, size_t node, LayerNorm& p) {
    const std::string type = g.type(node);
    return (type == "ReduceMean" && detail::decomposed_layer_norm(g, values, node, p)) ||
           (type == "MVN" && detail::mvn_layer_norm(g, values, node, p));
}

// A layer normalisation's scale or shift `c` (f32 bytes of `c_shape`) laid out over the normalised
// dims [first_axis, rank) of `shape`, one value each: the constant itself when it already is, else
// a copy broadcast into `copy`.
inline const float* layer_norm_parameter(const void* c, const Shape& c_shape, const Shape& shape, size_t first_axis,
                                         std::vector<float>& copy) {
    const auto* data = static_cast<const float*>(c);
    const Shape inner(shape.begin() + static_cast<std::ptrdiff_t>(first_axis), shape.end());
    const int64_t count = shape_size(inner);
    if (shape_size(c_shape) == count) return data;
    // Right-align c against the inner dims; its strides are 0 where it broadcasts.
    Shape c_inner(inner.size(), 1);
    for (size_t i = 0; i < c_shape.size() && i < inner.size(); ++i)
        c_inner[inner.size() - 1 - i] = c_shape[c_shape.size() - 1 - i];
    std::vector<int64_t> strides(inner.size(), 0);
    for (int64_t i = static_cast<int64_t>(inner.size()) - 1, s = 1; i >= 0; --i) {
        strides[static_cast<size_t>(i)] = c_inner[static_cast<size_t>(i)] == 1 ? 0 : s;
        s *= c_inner[static_cast<size_t>(i)];
    }
    copy.resize(static_cast<size_t>(count));
    for (int64_t flat = 0; flat < count; ++flat) {
        int64_t rest = flat, offset = 0;
        for (int64_t i = static_cast<int64_t>(inner.size()) - 1; i >= 0; --i) {
            offset += rest % inner[static_cast<size_t>(i)] * strides[static_cast<size_t>(i)];
            rest /= inner[static_cast<size_t>(i)];
        }
        copy[static_cast<size_t>(flat)] = data[offset];
    }
    return copy.data();
}

}  // namespace mosaic::sdk::patterns
