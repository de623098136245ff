#include <mosaic/reference/constant_folding.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>

namespace mosaic::reference {

namespace {

bool is_static(const Shape& s) {
    return std::all_of(s.begin(), s.end(), [](int64_t d) { return d >= 0; });
}

// Ops whose value is not a function of their inputs alone: state kept between inferences, random
// draws that a model expects anew each time, and bodies run by control flow.
bool never_folded(const std::string& type) {
    static const std::set<std::string> ops{"Parameter", "Result",      "ReadValue", "Assign", "RandomUniform",
                                           "Multinomial", "If",        "Loop",      "TensorIterator"};
    return ops.count(type) > 0;
}

// The rule of compile_time_nodes() for node `n`, given whether each of its inputs' producers is known.
template <typename KnownFn>
bool known_by_rule(const sdk::GraphView& graph, size_t n, KnownFn&& input_known) {
    const std::string type = graph.type(n);
    if (type == "Constant") return true;
    if (never_folded(type) || graph.input_count(n) == 0) return false;
    if (type == "ShapeOf") {
        if (!is_static(graph.input_shape(n, 0))) return false;
    } else {
        for (size_t i = 0; i < graph.input_count(n); ++i)
            if (!input_known(graph.input(n, i).node)) return false;
    }
    for (size_t o = 0; o < graph.output_count(n); ++o)
        if (graph.output_type(n, o) == ElementType::undefined || !is_static(graph.output_shape(n, o))) return false;
    return true;
}

bool is_compile_time(const sdk::GraphView& graph, size_t n, std::unordered_map<size_t, bool>& memo) {
    if (auto it = memo.find(n); it != memo.end()) return it->second;
    const bool known = known_by_rule(graph, n, [&](size_t input) { return is_compile_time(graph, input, memo); });
    memo[n] = known;
    return known;
}

}  // namespace

std::vector<bool> compile_time_nodes(const sdk::GraphView& graph) {
    std::vector<bool> known(graph.node_count(), false);
    for (size_t n = 0; n < known.size(); ++n)  // a graph view lists producers before their consumers
        known[n] = known_by_rule(graph, n, [&](size_t input) { return static_cast<bool>(known[input]); });
    return known;
}

bool is_compile_time(const sdk::GraphView& graph, size_t node) {
    std::unordered_map<size_t, bool> memo;
    return is_compile_time(graph, node, memo);
}

std::vector<std::unique_ptr<uint8_t[]>> fold_node(const sdk::GraphView& graph, size_t n,
                                                  const std::vector<ConstTensorView>& inputs) {
    const std::string type = graph.type(n), version = graph.version(n);
    const Attributes attrs = graph.attributes(n);
    KernelArgs args{type, version, attrs, inputs, {}};
    std::vector<std::unique_ptr<uint8_t[]>> outputs;
    for (size_t o = 0; o < graph.output_count(n); ++o) {
        const ElementType t = graph.output_type(n, o);
        const Shape shape = graph.output_shape(n, o);
        const size_t bytes = static_cast<size_t>(shape_size(shape)) * element_size(t);
        outputs.emplace_back(new uint8_t[std::max<size_t>(bytes, 1)]());
        args.outputs.push_back({t, shape, outputs.back().get()});
    }
    run_reference_kernel(args);
    return outputs;
}

}  // namespace mosaic::reference
