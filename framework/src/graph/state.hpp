// Stateful models (OpenVINO's ReadValue / Assign): a variable's value is read at the start of an
// inference and written at its end, and kept per infer request between them. Devices never see
// the two ops: the compiled graph reads each variable as two extra inputs, its state and a
// "reset" flag, through Select(reset, initial value, state), and writes it as an extra output. The
// request keeps the state tensors and swaps them in and out, so stateful models run on every
// device, HETERO and dynamic shapes included, with no copy of the state between inferences.
//
// A variable whose declared shape is dynamic changes shape as the model runs (a decoder's KV cache
// gains a row per token: optimum-intel's OpenVINO IR). Its initial value and its state may differ
// in shape, so no Select can choose between them: the graph reads the state alone (one extra
// input), and a reset runs the initial model, the part of the model that computes the initial
// values from the model's inputs, to give the state its first value.
#pragma once

#include <mosaic/model.hpp>
#include <mosaic/tensor.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mosaic {

struct Variable {
    static constexpr size_t kNone = SIZE_MAX;
    std::string id;
    ElementType type = ElementType::undefined;
    Shape shape;  // -1 in a dimension that changes between inferences
    // Positions among the compiled graph's inputs and outputs (after the model's own); a variable
    // of dynamic shape has no reset input (kNone).
    size_t state_input = 0, reset_input = 0, state_output = 0;
    // A variable of dynamic shape: its output of the initial model (StatelessModel::initial_model).
    size_t initial_output = kNone;
    // The value after a reset when it is known without running the model (a constant or zeros);
    // empty when it is computed from the inputs.
    Tensor initial;
};

struct StatelessModel {
    std::shared_ptr<Model> model;
    std::vector<Variable> variables;
    // With the model's inputs, the initial values of the variables of dynamic shape, one output
    // each; null when every variable's shape is static.
    std::shared_ptr<Model> initial_model;
};

// The model with its ReadValue / Assign pairs turned into inputs and outputs; nullopt when it has
// none. Throws ModelError naming the variable when a ReadValue has no Assign (or the reverse), two
// share an id, what an Assign writes differs in type or shape from what its ReadValue reads (a
// dynamic dimension fits any), or a variable of dynamic shape has no initializer or one that reads
// another variable.
std::optional<StatelessModel> make_stateless(const Model& model);

}  // namespace mosaic
