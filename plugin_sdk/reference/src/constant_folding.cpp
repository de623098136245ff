#include <mosaic/reference/constant_folding.hpp>

#include <algorithm>
#include <set>
#include <string>

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

}  // namespace

std::vector<bool> compile_time_nodes(const sdk::GraphView& graph) {
    const size_t count = graph.node_count();
    std::vector<bool> known(count, false);
    for (size_t n = 0; n < count; ++n) {  // a graph view lists producers before their consumers
        const std::string type = graph.type(n);
        if (type == "Constant") {
            known[n] = true;
            continue;
        }
        if (never_folded(type) || graph.input_count(n) == 0) continue;
        bool inputs_known = true;
        for (size_t i = 0; i < graph.input_count(n); ++i) inputs_known = inputs_known && known[graph.input(n, i).node];
        if (type == "ShapeOf") inputs_known = is_static(graph.input_shape(n, 0));
        bool outputs_static = true;
        for (size_t o = 0; o < graph.output_count(n); ++o)
            outputs_static = outputs_static && graph.output_type(n, o) != ElementType::undefined &&
                             is_static(graph.output_shape(n, o));
        known[n] = inputs_known && outputs_static;
    }
    return known;
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
