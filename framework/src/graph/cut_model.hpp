// A model cut at an op the host runs. Devices compile static graphs, so a model whose shapes depend
// on values computed when it runs (NonZero of computed data, TopK with a computed k) is cut at the
// first op whose output shape is unknown until then (the "data-dependent op"): the prefix computes
// the op's inputs, the host runs the op with its reference kernel (its outputs are small: indices,
// top-k), and the rest of the model, which takes the op's outputs as inputs of dynamic shape, runs
// as a dynamic model, compiled per shape those outputs have and cached (shape_specializer.hpp). A
// second data-dependent op in the rest makes that a cut model in turn.
//
// A run-time If or Loop (control_flow.hpp) cuts the model the same way: the host reads the
// condition the prefix computed and runs the body it takes, compiled on the model's device.
#pragma once

#include <mosaic/model.hpp>
#include <mosaic/tensor.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mosaic {

struct CutModel {
    std::shared_ptr<Model> prefix;  // inputs: the model's; outputs: the op's inputs, in order
    std::shared_ptr<Model> suffix;  // inputs: the model's, then the op's outputs; outputs: the model's
    // The op the host runs between them.
    std::string type, version, name;
    Attributes attrs;
    // A control-flow op's bodies (Node::bodies); empty for a data-dependent op.
    std::vector<std::shared_ptr<Model>> bodies;
};

// Splits `model` at its first data-dependent op (in topological order, one whose input shapes are
// all static but whose output shape is not) or control-flow op; nullopt when there is none.
std::optional<CutModel> cut_at_data_dependent_op(const Model& model);

// Runs the data-dependent op on `inputs` (the prefix's outputs): its output shapes from shape
// inference over the known values, its values from the reference kernel. Throws ModelError naming
// the op when it refuses them (a negative k, say).
std::vector<Tensor> run_data_dependent_op(const CutModel& cut, const std::vector<Tensor>& inputs);

}  // namespace mosaic
