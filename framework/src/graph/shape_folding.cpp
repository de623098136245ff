#include "graph/shape_folding.hpp"

#include "graph/graph_edit.hpp"
#include "graph/shape_inference.hpp"

#include <set>
#include <vector>

namespace mosaic {

void fold_shape_computations(Model& model) {
    ShapeInference inference;
    std::vector<Node*> known;
    // Values computed from a tensor's shape (a ShapeOf of what the model computes, and what is
    // computed from that). Expressions over constants alone stay: devices and HETERO place them
    // with their readers (a bias Reshape, a weight's decompression).
    std::set<const Node*> from_shape;
    for (Node* n : model.get_ordered_ops()) {
        inference.infer(*n);  // records the values it folds
        if (n->is_parameter() || n->is_constant() || n->is_result() || n->output_count() == 0) continue;
        bool derived = n->get_type_name() == "ShapeOf" && !n->input(0).node->is_constant();
        for (const Output& in : n->inputs()) derived = derived || from_shape.count(in.node) > 0;
        if (!derived) continue;
        from_shape.insert(n);
        bool all = true;
        for (size_t o = 0; o < n->output_count(); ++o) all = all && inference.known_value(n->output(o)) != nullptr;
        if (all) known.push_back(n);
    }
    if (known.empty()) return;
    for (Node* n : known) {
        const std::string name = n->get_friendly_name();
        std::vector<Node*> constants;
        for (size_t o = 0; o < n->output_count(); ++o) {
            const ops::KnownValue* v = inference.known_value(n->output(o));
            const size_t bytes = static_cast<size_t>(shape_size(v->shape)) * element_size(v->type);
            Node* c = model.add_constant(v->type, v->shape, Buffer::copy_of(v->data, bytes), name + "/folded" + std::to_string(o));
            c->set_output_names(0, n->output_names(o));
            replace_uses(model, n->output(o), c->output(0));
            constants.push_back(c);
        }
        model.remove_node(n);  // read by nothing now; the constants take its name
        for (size_t o = 0; o < constants.size(); ++o)
            constants[o]->set_friendly_name(constants.size() == 1 ? name : name + ":" + std::to_string(o));
    }
    remove_unread_ops(model);
    model.validate();
}

}  // namespace mosaic
