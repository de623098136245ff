// Small edits of a Model's edges shared by the framework's model rewrites (state.cpp: variables into
// inputs/outputs; staged_model.cpp: a data-dependent op into an input).
#pragma once

#include <mosaic/model.hpp>

namespace mosaic {

// Points every input that reads `from` at `to`.
inline void replace_uses(Model& model, const Output& from, const Output& to) {
    for (Node* n : model.get_ops())
        for (size_t i = 0; i < n->input_count(); ++i)
            if (n->input(i) == from) n->set_input(i, to);
}

}  // namespace mosaic
