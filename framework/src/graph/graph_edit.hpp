// Small edits of a Model's edges shared by the framework's model rewrites (state.cpp: variables into
// inputs/outputs; staged_model.cpp: a data-dependent op into an input; shape_folding.cpp: shape
// arithmetic into constants).
#pragma once

#include <mosaic/model.hpp>

#include <map>
#include <string>

namespace mosaic {

// Points every input that reads `from` at `to`.
inline void replace_uses(Model& model, const Output& from, const Output& to) {
    for (Node* n : model.get_ops())
        for (size_t i = 0; i < n->input_count(); ++i)
            if (n->input(i) == from) n->set_input(i, to);
}

// `name`, or `name_<k>` when the model has a node of that name (friendly names are unique).
inline std::string unique_name(const Model& model, const std::string& name) {
    std::string unique = name;
    for (int k = 1; model.find_node(unique); ++k) unique = name + "_" + std::to_string(k);
    return unique;
}

// Removes the ops no Result depends on; Parameters stay, so the model keeps its inputs in order (an
// input nothing reads is simply not read).
inline void remove_unread_ops(Model& model) {
    bool removed = true;
    while (removed) {
        removed = false;
        std::map<const Node*, size_t> readers;
        for (Node* n : model.get_ops())
            for (const Output& in : n->inputs()) ++readers[in.node];
        for (Node* n : model.get_ops())
            if (!n->is_result() && !n->is_parameter() && readers[n] == 0) {
                model.remove_node(n);
                removed = true;
            }
    }
}

}  // namespace mosaic
