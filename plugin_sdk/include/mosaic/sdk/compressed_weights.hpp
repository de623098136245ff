// Compressed weights as exporters write them for LLMs: a MatMul whose weights are integer codes
// decompressed in the graph, one scale (and zero point) per group of consecutive codes of a row.
//
//   codes u8|i8 [N, K] or [N, K / G, G]  (an IR's u4/i4 constants arrive unpacked into u8/i8)
//     -> Convert (f16|f32) -> [Subtract zero point] -> Multiply scale -> [Reshape to [N, K]]
//     -> [Convert f32] -> MatMul(A, ., transpose_b)   and/or   Gather(., indices, axis 0)
//
// with the scale and zero point [N, 1] (one per row: NNCF's int8), [N, K / G, 1] (groups: its int4,
// ONNX Runtime's MatMulNBits as the ONNX reader writes it) or one for the whole tensor, and A a real
// tensor (a QDQ model's MatMul of a dequantized activation is an integer kernel's). A device that
// reads the codes themselves (dequantizing in registers, or in tiles) keeps the weights compressed in
// memory: a quarter or an eighth of their f32 bytes for an LLM's decode step to stream.
//
// The pattern is found over a table of the graph's values (sdk/value_table.hpp) and a predicate
// saying which values are known at compile time (a constant, or computed from constants only), so a
// device can find it before folding (to leave the decompression unfolded: decompressing an LLM's
// weights to f32 at compile time is what compressing them saved) and again over its folded table,
// where the scales and zero points are constants it reads.
#pragma once

#include <mosaic/sdk/decomposed_patterns.hpp>
#include <mosaic/sdk/value_table.hpp>

#include <cstdint>
#include <vector>

namespace mosaic::sdk::patterns {

struct CompressedWeights {
    size_t codes = kNone;       // the integer constant's value (u8 or i8), rows * columns codes in row order
    size_t scale = kNone;       // the scale's value: shape [N, K / G, 1], [N, 1] or one element
    size_t zero_point = kNone;  // the zero point's value, shaped as the scale; kNone: zero
    int64_t rows = 0;           // N: the MatMul's output columns
    int64_t columns = 0;        // K: the reduction
    int64_t group = 0;          // G: consecutive codes of a row under one scale (K for one per row)
    std::vector<size_t> nodes;  // Convert, [Subtract], Multiply, [view], [Convert]: the decompression
};

namespace detail {

// A parameter of shape `p` that broadcasts over codes of shape `q` with one value per group of the
// last axis (or per row, or one): every axis 1 or q's, and the last 1.
inline bool group_parameter_shape(const Shape& p, const Shape& q) {
    if (p.size() > q.size()) return false;
    for (size_t i = 0; i < p.size(); ++i) {
        const int64_t d = p[p.size() - 1 - i], qd = q[q.size() - 1 - i];
        if (d != 1 && (d != qd || i == 0)) return false;
    }
    return true;
}

// The input of Multiply `multiply` that comes from integers (a Subtract, or a Convert of integers:
// the scale may be a Convert of floats), or kNone.
template <class Values>
size_t integer_side(const GraphView& g, const Values& values, size_t multiply) {
    if (g.type(multiply) != "Multiply" || g.input_count(multiply) != 2) return kNone;
    for (size_t i = 0; i < 2; ++i) {
        const size_t p = values[values.input(multiply, i)].producer;
        if (p == SIZE_MAX) continue;
        if (g.type(p) == "Subtract" || (g.type(p) == "Convert" && !is_floating(values[values.input(p, 0)].type))) return i;
    }
    return kNone;
}

// Whether `v` is a dequantized activation (through views): a QDQ model's MatMul, which a device's
// integer kernels take (sdk/quantization_patterns.hpp), not a weight-only one.
template <class Values>
bool dequantized_activation(const GraphView& g, const Values& values, size_t v) {
    size_t p = values[v].producer;
    while (p != SIZE_MAX && is_view_op(g.type(p))) p = values[values.input(p, 0)].producer;
    return p != SIZE_MAX && integer_side(g, values, p) != kNone;
}

}  // namespace detail

// Whether value `weights` (f32 [N, K]) is compressed weights decompressed in the graph as above;
// `known(value)` says whether a value is known at compile time. Each step before `weights` must be
// read by the next alone; who reads `weights` is the caller's to check.
template <class Values, class Known>
bool compressed_weights_of(const GraphView& g, const Values& values, size_t weights, const Known& known,
                           CompressedWeights& out) {
    out = CompressedWeights{};
    const auto& b = values[weights];
    if (b.type != ElementType::f32 || b.shape.size() != 2 || b.producer == SIZE_MAX) return false;
    out.rows = b.shape[0];
    out.columns = b.shape[1];
    if (out.rows <= 0 || out.columns <= 0) return false;

    // Back from the weights: each step's output read by the next step alone.
    auto producer_of = [&](size_t node, size_t port, size_t& producer) {
        const size_t v = values.input(node, port);
        if (values[v].uses.size() != 1 || values[v].producer == SIZE_MAX) return false;
        producer = values[v].producer;
        return g.output_count(producer) == 1;
    };
    size_t step = b.producer;
    if (g.output_count(step) != 1) return false;
    std::vector<size_t> nodes;
    if (g.type(step) == "Convert") {  // f16 -> f32
        nodes.push_back(step);
        if (!is_floating(values[values.input(step, 0)].type) || !producer_of(step, 0, step)) return false;
    }
    if (is_view_op(g.type(step))) {
        nodes.push_back(step);
        if (!producer_of(step, 0, step)) return false;
    }
    const size_t multiply = step;
    nodes.push_back(multiply);
    const size_t data_port = detail::integer_side(g, values, multiply);
    if (data_port == kNone || !producer_of(multiply, data_port, step)) return false;
    out.scale = values.input(multiply, 1 - data_port);
    if (g.type(step) == "Subtract") {
        nodes.push_back(step);
        out.zero_point = values.input(step, 1);
        if (!known(out.zero_point) || !producer_of(step, 0, step)) return false;
    }
    if (g.type(step) != "Convert" || g.input_count(step) != 1) return false;
    nodes.push_back(step);
    out.codes = values.input(step, 0);
    const auto& codes = values[out.codes];
    if (!codes.is_constant() || (codes.type != ElementType::u8 && codes.type != ElementType::i8)) return false;
    if (!known(out.scale) || !is_floating(values[out.scale].type)) return false;
    if (out.zero_point != kNone && !is_floating(values[out.zero_point].type)) return false;

    // Shapes: the decompression keeps the codes' shape, whose row-major order is the weights'.
    const Shape& q = codes.shape;
    if (q.empty() || values[values.output(multiply, 0)].shape != q || shape_size(q) != out.rows * out.columns) return false;
    const Shape& scale_shape = values[out.scale].shape;
    if (!detail::group_parameter_shape(scale_shape, q)) return false;
    if (out.zero_point != kNone && values[out.zero_point].shape != scale_shape &&
        shape_size(values[out.zero_point].shape) != 1)
        return false;
    out.group = shape_size(scale_shape) == 1 ? out.columns : q.back();
    if (out.group <= 0 || out.columns % out.group != 0) return false;
    out.nodes.assign(nodes.rbegin(), nodes.rend());
    return true;
}

// Whether MatMul `matmul` reads compressed weights transposed (input 1) by a real A.
template <class Values, class Known>
bool compressed_matmul_at(const GraphView& g, const Values& values, size_t matmul, const Known& known,
                          CompressedWeights& out) {
    if (g.type(matmul) != "MatMul" || g.input_count(matmul) != 2) return false;
    const Attributes attrs = g.attributes(matmul);
    if (!attrs.get_bool("transpose_b", false) || attrs.get_bool("transpose_a", false)) return false;
    const auto& a = values[values.input(matmul, 0)];
    if (a.type != ElementType::f32 || a.shape.empty() || detail::dequantized_activation(g, values, values.input(matmul, 0)))
        return false;
    return compressed_weights_of(g, values, values.input(matmul, 1), known, out) && a.shape.back() == out.columns;
}

// Whether Gather `gather` takes rows of compressed weights (its data, along axis 0, batch_dims 0):
// an embedding table, often the head's weights too (tied).
template <class Values, class Known>
bool compressed_gather_at(const GraphView& g, const Values& values, size_t gather, const Known& known,
                          CompressedWeights& out) {
    if (g.type(gather) != "Gather" || g.input_count(gather) != 3 || g.attributes(gather).get_int("batch_dims", 0) != 0)
        return false;
    const auto& axis = values[values.input(gather, 2)];
    const auto& indices = values[values.input(gather, 1)];
    if (!axis.is_constant() || shape_size(axis.shape) != 1 ||
        (indices.type != ElementType::i64 && indices.type != ElementType::i32))
        return false;
    const int64_t a = axis.type == ElementType::i64 ? *static_cast<const int64_t*>(axis.constant)
                      : axis.type == ElementType::i32 ? *static_cast<const int32_t*>(axis.constant)
                                                      : -1;
    return (a == 0 || a == -2) && compressed_weights_of(g, values, values.input(gather, 0), known, out);
}

// Whether every reader of compressed weights `weights` reads them compressed: a MatMul as
// compressed_matmul_at, a Gather as compressed_gather_at where the device takes those (`gathers`).
// Only then may a device leave their decompression unfolded.
template <class Values, class Known>
bool read_compressed_only(const GraphView& g, const Values& values, size_t weights, const Known& known, bool gathers) {
    CompressedWeights w;
    for (const auto& use : values[weights].uses) {
        const bool ok = (use.port == 1 && compressed_matmul_at(g, values, use.node, known, w)) ||
                        (gathers && use.port == 0 && compressed_gather_at(g, values, use.node, known, w));
        if (!ok) return false;
    }
    return !values[weights].uses.empty();
}

// Per node of `graph`: whether it decompresses weights that every reader takes compressed (MatMuls,
// and Gathers with `gathers`), for ValueTableOptions::unfolded: a device that reads the codes itself
// leaves their decompression unfolded, as folding would write every weight as f32. Found on the
// graph before any folding (its structure and constants, compile_time_nodes for the parameters).
inline std::vector<bool> compressed_decompressions(const GraphView& graph, bool gathers) {
    std::vector<bool> out(graph.node_count(), false);
    ValueTableOptions options;
    options.fold_constants = false;  // nothing computed: the structure and the constants are enough
    const BasicValueTable<> values(graph, options);
    const std::vector<bool> compile_time = reference::compile_time_nodes(graph);
    const auto known = [&](size_t v) {
        return values[v].is_constant() || (values[v].producer != SIZE_MAX && compile_time[values[v].producer]);
    };
    for (size_t n = 0; n < graph.node_count(); ++n) {
        CompressedWeights w;
        const std::string type = graph.type(n);
        size_t port = 0;
        if (type == "MatMul" && compressed_matmul_at(graph, values, n, known, w))
            port = 1;
        else if (!gathers || type != "Gather" || !compressed_gather_at(graph, values, n, known, w))
            continue;
        if (read_compressed_only(graph, values, values.input(n, port), known, gathers))
            for (size_t d : w.nodes) out[d] = true;
    }
    return out;
}

// A parameter's values (scale or zero point, f32 or f16 constant) spread to one per group: rows *
// columns / group of them, in row order. `p` kNone gives zeros.
template <class Values>
std::vector<float> group_values(const Values& values, size_t p, const CompressedWeights& w) {
    const size_t groups = static_cast<size_t>(w.rows * (w.columns / w.group));
    std::vector<float> out(groups, 0.0f);
    if (p == kNone) return out;
    const auto& v = values[p];
    auto at = [&](size_t i) {
        if (v.type == ElementType::f32) return static_cast<const float*>(v.constant)[i];
        if (v.type == ElementType::f16) return f16_to_f32(static_cast<const uint16_t*>(v.constant)[i]);
        if (v.type == ElementType::bf16) return bf16_to_f32(static_cast<const uint16_t*>(v.constant)[i]);
        return static_cast<float>(static_cast<const double*>(v.constant)[i]);
    };
    const size_t count = static_cast<size_t>(shape_size(v.shape));
    if (count == 1) {
        std::fill(out.begin(), out.end(), at(0));
        return out;
    }
    // The parameter broadcasts over the codes' leading axes (its last is 1): index each group's
    // position in those axes into it, a stride of 0 where it has a 1.
    const Shape& q = values[w.codes].shape;
    const size_t lead = q.size() - 1;
    Shape p_shape(lead + 1 - v.shape.size(), 1);
    p_shape.insert(p_shape.end(), v.shape.begin(), v.shape.end());
    std::vector<int64_t> stride(lead, 0);
    int64_t s = 1;
    for (size_t i = lead; i-- > 0;) {
        stride[i] = p_shape[i] == 1 ? 0 : s;
        s *= p_shape[i];
    }
    for (size_t gi = 0; gi < groups; ++gi) {
        int64_t rest = static_cast<int64_t>(gi), index = 0;
        for (size_t i = lead; i-- > 0;) {
            index += (rest % q[i]) * stride[i];
            rest /= q[i];
        }
        out[gi] = at(static_cast<size_t>(index));
    }
    return out;
}

}  // namespace mosaic::sdk::patterns
