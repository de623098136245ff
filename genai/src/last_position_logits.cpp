#include "last_position_logits.hpp"
#include "graph_constants.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic::genai {

namespace {

bool one_element_constant(const Output& o) {
    if (!o.node->is_constant()) return false;
    const Shape& s = o.node->output_shape(o.index);
    return is_static(s) && shape_size(s) == 1;
}

// An op that computes each position from that position alone: the slice may go before it.
bool per_position(const Node& n) {
    const std::string& type = n.get_type_name();
    if (type == "Convert" || type == "Tanh") return n.input_count() == 1;
    if (type == "Add" || type == "Subtract" || type == "Multiply" || type == "Divide")
        return n.input_count() == 2 && (one_element_constant(n.input(0)) || one_element_constant(n.input(1)));
    return false;
}

}  // namespace

bool slice_logits_to_last_position(Model& model) {
    Node* result;
    try {
        result = model.output("logits").node;
    } catch (const std::out_of_range&) {
        return false;
    }
    // What reads each node: a node of the path read by anything but the next one would see the
    // sliced positions too.
    std::map<const Node*, size_t> readers;
    for (const Node* op : model.get_ops())
        for (const Output& in : op->inputs()) ++readers[in.node];
    // Up from the result through per-position ops to the projection.
    Node* n = result->input(0).node;
    while (n && readers[n] == 1 && per_position(*n)) {
        const size_t data = one_element_constant(n->input(0)) && n->input_count() == 2 ? 1 : 0;
        n = n->input(data).node;
    }
    if (!n || readers[n] != 1) return false;
    if (!n || n->get_type_name() != "MatMul" || n->attrs().get_bool("transpose_a", false)) return false;
    // [batch, positions, hidden] by one [hidden, vocabulary] matrix: each position's logits are its own.
    const Output hidden = n->input(0), weights = n->input(1);
    if (hidden.node->output_shape(hidden.index).size() != 3 || hidden.node->is_constant() ||
        weights.node->output_shape(weights.index).size() != 2)
        return false;
    const std::string name = n->get_friendly_name() + "/last_position";
    Node* slice = model.add_node("Slice", "opset8",
                                 {hidden, i64_constant(model, -1, name + "/start"),
                                  i64_constant(model, std::numeric_limits<int64_t>::max(), name + "/stop"),
                                  i64_constant(model, 1, name + "/step"), i64_constant(model, 1, name + "/axes")},
                                 {}, name);
    n->set_input(0, slice->output(0));
    model.validate();
    return true;
}

}  // namespace mosaic::genai
