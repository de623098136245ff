// OpenVINO IR's FakeQuantize on activations (what NNCF's int8 models hold) rewritten into the
// quantize-dequantize pair an ONNX QDQ model spells (sdk/quantization_patterns.hpp), so that a device's
// integer kernels take NNCF's IR as they take ONNX Runtime's QDQ models (the CPU's: a convolution
// reading a FakeQuantize's output runs on its integers, the quantization after it fused), and a
// device without FakeQuantize (the GPU) runs it as the ops it has.
//
// A FakeQuantize with 256 levels, the same range in and out (per tensor, or per channel as NNCF
// writes before a depthwise convolution), and one zero point on the integer grid (what NNCF
// writes: the range is tuned so that 0 is a level) is exactly
//
//   x -> Divide(scale) -> Round -> [Add(zero_point)] -> Clamp(type's range) -> Convert(u8 | i8)
//     -> Convert(f32) -> [Subtract(zero_point)] -> Multiply(scale)
//
// with scale = (high - low) / 255 and zero_point = -low / scale: both clamp to low and high at the
// ends and round to the same grid in between. They differ only at exact ties with an odd zero point
// (round(x / s) + zp against round(x / s + zp), each half to even: one step apart), and in the
// float rounding of x / s, as two runtimes do; a NaN comes out of the clamp as a number. A zero point of 128 is NNCF's signed mode: i8 with zero point 0. Any other
// FakeQuantize (other levels, ranges differing in and out, zero points off the grid or differing
// between channels) stays as it is.
#pragma once

#include <mosaic/sdk/graph.hpp>
#include <mosaic/sdk/owned_graph.hpp>

#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mosaic::sdk {

struct RewrittenGraph {
    OwnedGraph graph;
    std::deque<std::vector<float>> constants;  // the scales and zero points the rewrite adds: the graph points at them
};

namespace detail {

// The integer grid of a FakeQuantize: one scale per element of its bounds (one, or one per index
// along an axis, [1, C, 1, 1]), one zero point for all.
struct Grid {
    std::vector<float> scale;
    Shape shape;  // of the bounds, which the scales keep
    int zero_point = 0;
    ElementType type = ElementType::u8;
};

// The values of a constant f32 input.
inline std::optional<std::vector<float>> constant_input(const GraphView& g, size_t node, size_t port, Shape& shape) {
    const PortRef src = g.input(node, port);
    if (!g.is_constant(src.node) || g.output_type(src.node, src.port) != ElementType::f32) return std::nullopt;
    shape = g.output_shape(src.node, src.port);
    std::vector<float> values(static_cast<size_t>(shape_size(shape)));
    size_t bytes = 0;
    const void* data = g.constant_data(src.node, &bytes);
    if (!data || bytes != values.size() * sizeof(float)) return std::nullopt;
    std::memcpy(values.data(), data, bytes);
    return values;
}

// The integer grid a FakeQuantize rounds to, when it is one the QDQ form states exactly.
inline std::optional<Grid> grid_of(const GraphView& g, size_t n) {
    if (g.type(n) != "FakeQuantize" || g.input_count(n) != 5 || g.output_count(n) != 1 ||
        g.output_type(n, 0) != ElementType::f32)
        return std::nullopt;
    const int64_t levels = g.attributes(n).get_int("levels", 0);
    if (levels != 256) return std::nullopt;
    std::optional<std::vector<float>> bound[4];
    Shape shapes[4];
    for (size_t i = 0; i < 4; ++i)
        if (!(bound[i] = constant_input(g, n, i + 1, shapes[i])) || shapes[i] != shapes[0]) return std::nullopt;
    if (*bound[2] != *bound[0] || *bound[3] != *bound[1]) return std::nullopt;
    int varying = 0;  // the scales may vary along one axis only, as a QDQ parameter does
    for (int64_t d : shapes[0]) varying += d != 1;
    if (varying > 1 || shapes[0].size() > g.output_shape(n, 0).size()) return std::nullopt;
    Grid grid;
    grid.shape = shapes[0];
    std::optional<int> zero_point;
    for (size_t i = 0; i < bound[0]->size(); ++i) {
        const double low = (*bound[0])[i], high = (*bound[1])[i];
        if (!(high > low) || !std::isfinite(high - low)) return std::nullopt;
        const double scale = (high - low) / 255.0;
        const double exact = -low / scale;
        const double level = std::nearbyint(exact);
        // NNCF tunes the range so that 0 is a level; its zero points land within float error of one.
        if (std::fabs(exact - level) > 1e-3 || level < 0 || level > 255) return std::nullopt;
        if (zero_point && *zero_point != static_cast<int>(level)) return std::nullopt;  // one zero point for all
        zero_point = static_cast<int>(level);
        grid.scale.push_back(static_cast<float>(scale));
        if (!(grid.scale.back() > 0) || !std::isfinite(grid.scale.back())) return std::nullopt;
    }
    if (!zero_point) return std::nullopt;
    grid.zero_point = *zero_point;
    if (grid.zero_point == 128) {  // NNCF's signed activations: [-128, 127] around 0
        grid.type = ElementType::i8;
        grid.zero_point = 0;
    }
    return grid;
}

class Rewriter {
public:
    Rewriter(const GraphView& g, RewrittenGraph& out) : g_(g), out_(out) {}

    // Appends the QDQ form of FakeQuantize `n` reading `x`; returns its output (the Multiply).
    PortRef quantize_dequantize(size_t n, const Grid& grid, PortRef x) {
        const std::string name = g_.node_name(n);
        const Shape shape = g_.output_shape(n, 0);
        const PortRef scale = constant(name + "/scale", grid.scale, grid.shape);
        const std::optional<PortRef> zero_point =
            grid.zero_point ? std::optional<PortRef>(constant(name + "/zero_point", {static_cast<float>(grid.zero_point)}, {}))
                            : std::nullopt;
        PortRef v = op("Divide", name + "/divide", {x, scale}, ElementType::f32, shape);
        v = op("Round", name + "/round", {v}, ElementType::f32, shape, {{"mode", "half_to_even"}}, "opset5");
        if (zero_point) v = op("Add", name + "/add_zero_point", {v, *zero_point}, ElementType::f32, shape);
        const bool is_signed = grid.type == ElementType::i8;
        v = op("Clamp", name + "/clamp", {v}, ElementType::f32, shape,
               {{"min", is_signed ? "-128" : "0"}, {"max", is_signed ? "127" : "255"}});
        v = op("Convert", name + "/quantize", {v}, grid.type, shape, {{"destination_type", to_string(grid.type)}});
        v = op("Convert", name + "/dequantize", {v}, ElementType::f32, shape, {{"destination_type", "f32"}});
        if (zero_point) v = op("Subtract", name + "/subtract_zero_point", {v, *zero_point}, ElementType::f32, shape);
        // The last op keeps the FakeQuantize's name: it is the value its readers and outputs read.
        return op("Multiply", name, {v, scale}, ElementType::f32, shape);
    }

private:
    PortRef constant(const std::string& name, std::vector<float> values, const Shape& shape) {
        out_.constants.push_back(std::move(values));
        OwnedNode c;
        c.type = "Constant";
        c.version = "opset1";
        c.name = name;
        std::string dims;
        for (int64_t d : shape) dims += (dims.empty() ? "" : ",") + std::to_string(d);
        c.attrs = {{"element_type", "f32"}, {"shape", dims}};
        c.output_types = {ElementType::f32};
        c.output_shapes = {shape};
        c.constant = out_.constants.back().data();
        c.constant_bytes = out_.constants.back().size() * sizeof(float);
        out_.graph.nodes.push_back(std::move(c));
        return {out_.graph.nodes.size() - 1, 0};
    }

    PortRef op(const std::string& type, const std::string& name, std::vector<PortRef> inputs, ElementType t,
               const Shape& shape, std::vector<std::pair<std::string, std::string>> attrs = {},
               const char* version = "opset1") {
        OwnedNode node;
        node.type = type;
        node.version = version;
        node.name = name;
        node.inputs = std::move(inputs);
        node.output_types = {t};
        node.output_shapes = {shape};
        node.attrs = std::move(attrs);
        out_.graph.nodes.push_back(std::move(node));
        return {out_.graph.nodes.size() - 1, 0};
    }

    const GraphView& g_;
    RewrittenGraph& out_;
};

}  // namespace detail

// Whether FakeQuantize `n` is one the rewrite takes (a device's query answers for it as for the
// ops it becomes).
// The graph a device compiles: the rewrite where there is one, else the graph it was given.
inline GraphView compiled_view(const std::unique_ptr<RewrittenGraph>& rewritten, const GraphView& given) {
    return rewritten ? GraphView(rewritten->graph.view()) : given;
}

inline bool fake_quantize_as_qdq(const GraphView& g, size_t n) { return detail::grid_of(g, n).has_value(); }

// The graph with every FakeQuantize that qualifies rewritten; nullptr when none does. Those whose
// input is known at compile time (`compile_time`, per node: a weight's FakeQuantize) are left to
// be folded by FakeQuantize's own formula.
inline std::unique_ptr<RewrittenGraph> rewrite_fake_quantize(const GraphView& g, const std::vector<bool>& compile_time) {
    const size_t count = g.node_count();
    std::vector<std::optional<detail::Grid>> grids(count);
    bool any = false;
    for (size_t n = 0; n < count; ++n)
        if (!(n < compile_time.size() && compile_time[n])) any |= bool(grids[n] = detail::grid_of(g, n));
    if (!any) return nullptr;

    auto out = std::make_unique<RewrittenGraph>();
    out->graph.name = g.name();
    detail::Rewriter rewriter(g, *out);
    // Where each output of the source graph is in the new one; nodes keep their order, so the new
    // graph is topological with Parameters first and Results last, as the view's contract wants.
    std::vector<std::vector<PortRef>> moved(count);
    const auto moved_input = [&](size_t n, size_t i) {
        const PortRef src = g.input(n, i);
        return moved.at(src.node).at(src.port);
    };
    for (size_t n = 0; n < count; ++n) {
        if (grids[n]) {
            moved[n] = {rewriter.quantize_dequantize(n, *grids[n], moved_input(n, 0))};
            continue;
        }
        std::vector<PortRef> inputs;
        for (size_t i = 0; i < g.input_count(n); ++i) inputs.push_back(moved_input(n, i));
        const size_t copy = out->graph.add_copy(g, n);
        out->graph.nodes[copy].inputs = std::move(inputs);
        for (size_t o = 0; o < g.output_count(n); ++o) moved[n].push_back({copy, o});
    }
    return out;
}

}  // namespace mosaic::sdk
