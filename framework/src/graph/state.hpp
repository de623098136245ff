// Stateful models (OpenVINO's ReadValue / Assign): a variable's value is read at the start of an
// inference and written at its end, and kept per infer request between them. Devices never see
// the two ops: the compiled graph reads each variable as two extra inputs, its state and a
// "reset" flag, through Select(reset, initial value, state), and writes it as an extra output. The
// request keeps the state tensors and swaps them in and out, so stateful models run on every
// device, HETERO and dynamic shapes included, with no copy of the state between inferences.
#pragma once

#include <mosaic/model.hpp>
#include <mosaic/tensor.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mosaic {

struct Variable {
    std::string id;
    ElementType type = ElementType::undefined;
    Shape shape;
    // Positions among the compiled graph's inputs and outputs (after the model's own).
    size_t state_input = 0, reset_input = 0, state_output = 0;
    // The value after a reset when it is known without running the model (a constant or zeros);
    // empty when it is computed from the inputs.
    Tensor initial;
};

struct StatelessModel {
    std::shared_ptr<Model> model;
    std::vector<Variable> variables;
};

// The model with its ReadValue / Assign pairs turned into inputs and outputs; nullopt when it has
// none. Throws ModelError naming the variable when a ReadValue has no Assign (or the reverse), two
// share an id, or what an Assign writes differs in type or shape from what its ReadValue reads.
std::optional<StatelessModel> make_stateless(const Model& model);

}  // namespace mosaic
