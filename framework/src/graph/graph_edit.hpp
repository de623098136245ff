// Small edits of a Model's edges shared by the framework's model rewrites (state.cpp: variables into
// inputs/outputs; staged_model.cpp: a data-dependent op into an input; shape_folding.cpp: shape
// arithmetic into constants).
#pragma once

#include <mosaic/model.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace mosaic {

// Points every input that reads `from` at `to`.
inline void replace_uses(Model& model, const Output& from, const Output& to) {
    for (Node* n : model.get_ops())
        for (size_t i = 0; i < n->input_count(); ++i)
            if (n->input(i) == from) n->set_input(i, to);
}

// Removes each Identity whose value no Result reads, its readers reading its input instead: the
// devices never see an op that only passes a value on. One a Result reads stays (the output keeps
// its producer's names), run as a copy.
inline void bypass_identities(Model& model) {
    std::vector<Node*> identities;
    std::set<const Node*> read_by_result;
    for (Node* n : model.get_ops()) {
        if (n->get_type_name() == "Identity" && n->input_count() == 1) identities.push_back(n);
        if (n->is_result())
            for (const Output& in : n->inputs()) read_by_result.insert(in.node);
    }
    for (Node* id : identities) {
        if (read_by_result.count(id)) continue;
        replace_uses(model, id->output(0), id->input(0));
        model.remove_node(id);
    }
}

// `name`, or `name_<k>` when the model has a node of that name (friendly names are unique).
inline std::string unique_name(const Model& model, const std::string& name) {
    std::string unique = name;
    for (int k = 1; model.find_node(unique); ++k) unique = name + "_" + std::to_string(k);
    return unique;
}

// True when some node reads an output of `n`.
inline bool has_readers(const Model& model, const Node* n) {
    for (const Node* reader : model.get_ops())
        for (const Output& in : reader->inputs())
            if (in.node == n) return true;
    return false;
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
