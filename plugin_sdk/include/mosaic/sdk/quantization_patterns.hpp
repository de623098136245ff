// Quantization as the readers write it, for devices that run it in integers. Mosaic's graph has no
// quantized types: ONNX's DequantizeLinear arrives as real = (q - zero_point) * scale, spelled
//
//   Multiply(Subtract(Convert(q -> f32), zero_point), scale)      (or Multiply(Convert(q), scale))
//
// and QuantizeLinear as q = saturate(round_half_to_even(x / scale) + zero_point), spelled
//
//   Convert(Clamp(Add(Round(Divide(x, scale)), zero_point), type's range) -> u8 | i8)
//
// (framework/src/readers/onnx/translators/quantization.cpp), with scale and zero point constants
// that broadcast per tensor or along one axis. A device that recognises them can run a
// convolution on q itself (an integer kernel, the scales applied to its accumulator) instead of
// on the dequantized f32 tensor, and write its result quantized.
//
// Written over a device's table of the graph's values (sdk/value_table.hpp's, or one of its own),
// as sdk/decomposed_patterns.hpp is. Dequantized constants (a convolution's filters) have been
// folded by the table; their pattern is found by walking the graph, whose nodes are all still
// there, and reading each node's folded value.
#pragma once

#include <mosaic/sdk/decomposed_patterns.hpp>
#include <mosaic/sdk/value_table.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mosaic::sdk::patterns {

// How a tensor's integers map to reals: real = (q - zero_point) * scale, one scale and zero point
// for the whole tensor (axis -1) or one per index along `axis`.
struct QuantParams {
    ElementType type = ElementType::undefined;  // of q: u8 or i8
    std::vector<float> scale;
    std::vector<int32_t> zero_point;  // as many as scale
    int64_t axis = -1;

    bool per_tensor() const { return scale.size() == 1; }
    bool symmetric() const {
        for (int32_t z : zero_point)
            if (z != 0) return false;
        return true;
    }
};

// An f32 tensor computed as the dequantization of integer tensor `q`.
struct Dequantized {
    size_t q = kNone;  // the integer tensor's value
    QuantParams params;
    std::vector<size_t> nodes;  // Convert, [Subtract], Multiply: the ops that compute the f32 tensor
};

// The f32 tensor quantized from `input` by the ops `nodes`, into `output`.
struct Quantized {
    size_t input = kNone, output = kNone;
    QuantParams params;
    std::vector<size_t> nodes;  // Divide, Round, [Add], Clamp, Convert
};

namespace detail {

inline bool quantized_type(ElementType t) { return t == ElementType::u8 || t == ElementType::i8; }
inline double type_low(ElementType t) { return t == ElementType::u8 ? 0.0 : -128.0; }
inline double type_high(ElementType t) { return t == ElementType::u8 ? 255.0 : 127.0; }

// A constant f32 parameter broadcasting against a tensor of rank `rank`: one element, or one per
// index along a single axis (written [C, 1, ...] by the reader). Its values and that axis (-1 for
// one element); false for any other shape.
template <class Values>
bool broadcast_parameter(const Values& values, size_t v, size_t rank, std::vector<float>& out, int64_t& axis) {
    if (v >= values.size()) return false;
    const auto& p = values[v];
    if (!p.is_constant() || p.type != ElementType::f32 || p.shape.size() > rank) return false;
    const int64_t count = shape_size(p.shape);
    axis = -1;
    if (count != 1) {
        for (size_t i = 0; i < p.shape.size(); ++i) {
            if (p.shape[i] == 1) continue;
            if (axis >= 0) return false;  // varies along two axes
            axis = static_cast<int64_t>(rank - p.shape.size() + i);
        }
    }
    out.resize(static_cast<size_t>(count));
    std::memcpy(out.data(), p.constant, out.size() * sizeof(float));
    return true;
}

// Scales a kernel can use: finite and positive (a zero or NaN scale is refused by the reader).
inline bool usable_scales(const std::vector<float>& scale) {
    for (float s : scale)
        if (!(s > 0) || !std::isfinite(s)) return false;
    return true;
}

// Zero points given as f32 constants: integers within the range of `type`.
inline bool integer_zero_points(const std::vector<float>& zp, ElementType type, std::vector<int32_t>& out) {
    out.clear();
    for (float z : zp) {
        if (z != std::nearbyint(z) || z < type_low(type) || z > type_high(type)) return false;
        out.push_back(static_cast<int32_t>(z));
    }
    return true;
}

// Both parameters along the same axis (or per tensor), the zero points spread to the scales' count.
inline bool combine(QuantParams& q, std::vector<float> scale, int64_t scale_axis, const std::vector<float>& zp,
                    int64_t zp_axis) {
    if (!usable_scales(scale)) return false;
    std::vector<int32_t> zero_point;
    if (!integer_zero_points(zp, q.type, zero_point)) return false;
    if (zero_point.size() == 1 && scale.size() > 1) zero_point.assign(scale.size(), zero_point[0]);
    if (scale.size() == 1 && zero_point.size() > 1) {
        scale.assign(zero_point.size(), scale[0]);
        scale_axis = zp_axis;
    }
    if (zero_point.size() != scale.size() || (scale.size() > 1 && zp.size() > 1 && scale_axis != zp_axis)) return false;
    q.scale = std::move(scale);
    q.zero_point = std::move(zero_point);
    q.axis = q.scale.size() > 1 ? scale_axis : -1;
    return true;
}

}  // namespace detail

// Whether `multiply` computes the dequantization of an integer tensor (computed or constant), with
// constant scales and zero points; `out` says of what and how.
template <class Values>
bool dequantization_at(const GraphView& g, const Values& values, size_t multiply, Dequantized& out) {
    out = Dequantized{};
    if (g.type(multiply) != "Multiply" || g.output_count(multiply) != 1 || g.input_count(multiply) != 2) return false;
    // The scale is the constant operand; the other comes from Subtract or Convert.
    size_t data_port = kNone;
    for (size_t i = 0; i < 2; ++i) {
        const std::string t = g.type(g.input(multiply, i).node);
        if (t == "Subtract" || t == "Convert") data_port = i;
    }
    if (data_port == kNone) return false;
    size_t inner = g.input(multiply, data_port).node;
    const size_t scale_value = values.input(multiply, 1 - data_port);
    size_t subtract = kNone;
    if (g.type(inner) == "Subtract") {
        subtract = inner;
        inner = g.input(subtract, 0).node;
    }
    if (g.type(inner) != "Convert" || g.input_count(inner) != 1) return false;
    const size_t q = values.input(inner, 0);
    const auto& qv = values[q];
    if (!detail::quantized_type(qv.type) || values[values.output(inner, 0)].type != ElementType::f32) return false;
    // Parameters that broadcast q to a larger tensor (a grey image times three channel gains) are
    // no dequantization of q.
    if (values[values.output(multiply, 0)].shape != qv.shape) return false;
    const size_t rank = qv.shape.size();
    std::vector<float> scale, zp{0.0f};
    int64_t scale_axis = -1, zp_axis = -1;
    if (!detail::broadcast_parameter(values, scale_value, rank, scale, scale_axis)) return false;
    if (subtract != kNone && !detail::broadcast_parameter(values, values.input(subtract, 1), rank, zp, zp_axis))
        return false;
    out.params.type = qv.type;
    if (!detail::combine(out.params, std::move(scale), scale_axis, zp, zp_axis)) return false;
    out.q = q;
    out.nodes = {inner};
    if (subtract != kNone) out.nodes.push_back(subtract);
    out.nodes.push_back(multiply);
    return true;
}

// Whether input `port` of `node` is a dequantized integer tensor (dequantization_at its producer).
// With `through_views`, also one reshaped after a dequantization per tensor (ONNX Runtime leaves a
// Flatten between a pooling's dequantization and the Gemm after it): the integers in q's order are
// then those of the input, for a device that reads q as a row-major tensor of the input's shape.
template <class Values>
bool dequantized_input(const GraphView& g, const Values& values, size_t node, size_t port, Dequantized& out,
                       bool through_views = false) {
    size_t producer = g.input(node, port).node;
    while (through_views && is_view_op(g.type(producer)) && g.input_count(producer) >= 1) producer = g.input(producer, 0).node;
    return dequantization_at(g, values, producer, out) &&
           (producer == g.input(node, port).node || out.params.per_tensor());
}

// Whether `convert` starts a dequantization, each step read by the next alone (a device that runs
// the ops as one never writes the inner tensors).
template <class Values>
bool dequantization_from(const GraphView& g, const Values& values, size_t convert, Dequantized& out) {
    out = Dequantized{};
    if (g.type(convert) != "Convert" || g.output_count(convert) != 1) return false;
    size_t current = values.output(convert, 0);
    const size_t subtract = sole_reader(g, values, current, "Subtract");
    if (subtract != kNone) {
        if (values.input(subtract, 0) != current) return false;
        current = values.output(subtract, 0);
    }
    const size_t multiply = sole_reader(g, values, current, "Multiply");
    return multiply != kNone && dequantization_at(g, values, multiply, out) && out.nodes.front() == convert;
}

// Whether `divide` starts a quantization of its first input (each step read by the next alone);
// `out` says into what and how.
template <class Values>
bool quantization_from(const GraphView& g, const Values& values, size_t divide, Quantized& out) {
    out = Quantized{};
    if (g.type(divide) != "Divide" || g.input_count(divide) != 2 || g.output_count(divide) != 1) return false;
    const size_t x = values.input(divide, 0);
    if (values[x].type != ElementType::f32 || values[values.output(divide, 0)].shape != values[x].shape) return false;
    const size_t rank = values[x].shape.size();
    std::vector<float> scale, zp{0.0f};
    int64_t scale_axis = -1, zp_axis = -1;
    if (!detail::broadcast_parameter(values, values.input(divide, 1), rank, scale, scale_axis)) return false;
    const size_t round = sole_reader(g, values, values.output(divide, 0), "Round");
    if (round == kNone || lower_case(g.attributes(round).get_string("mode", "half_to_even")) != "half_to_even") return false;
    size_t current = values.output(round, 0);
    size_t add = sole_reader(g, values, current, "Add");
    if (add != kNone) {
        const size_t other = other_operand(g, values, add, current);
        if (other == kNone || !detail::broadcast_parameter(values, other, rank, zp, zp_axis)) return false;
        current = values.output(add, 0);
    }
    const size_t clamp = sole_reader(g, values, current, "Clamp");
    if (clamp == kNone) return false;
    const size_t convert = sole_reader(g, values, values.output(clamp, 0), "Convert");
    if (convert == kNone) return false;
    const size_t q = values.output(convert, 0);
    const ElementType type = values[q].type;
    if (!detail::quantized_type(type)) return false;
    // The clamp is the type's range: a narrower one (a fused activation's) is not a plain saturation.
    const Attributes a = g.attributes(clamp);
    if (a.get_float("min") != detail::type_low(type) || a.get_float("max") != detail::type_high(type)) return false;
    out.params.type = type;
    if (!detail::combine(out.params, std::move(scale), scale_axis, zp, zp_axis)) return false;
    out.input = x;
    out.output = q;
    out.nodes = {divide, round};
    if (add != kNone) out.nodes.push_back(add);
    out.nodes.push_back(clamp);
    out.nodes.push_back(convert);
    return true;
}

}  // namespace mosaic::sdk::patterns
