// The runners (runner.hpp), one per form of compiled model, made by the factory the compiled
// model's builder chose (CompiledModel::Impl::create).
#pragma once

#include "runtime/runner.hpp"

#include <mosaic/compiled_model.hpp>

#include <memory>
#include <vector>

namespace mosaic {

// `state` is the request's variables (state.hpp): a runner that makes runners of other compiled
// models (the parts of a cut, a dynamic model's specializations) hands it on.

// A compiled model of static shapes, on its plugin's request.
std::unique_ptr<Runner> make_device_runner(std::shared_ptr<CompiledModel::Impl> model);

// A model compiled with dynamic input shapes: each inference on the runner of the specialization
// for its input shapes (the most recently used kept, as many as the model's shape cache holds).
std::unique_ptr<Runner> make_dynamic_runner(std::shared_ptr<CompiledModel::Impl> model,
                                            std::vector<VariableValue>& state);

// A model cut at an op the host runs (cut_model.hpp): prefix, `op`, suffix. The op's inputs are
// the prefix's outputs; the suffix takes the model's inputs, then the op's outputs.
std::unique_ptr<Runner> make_cut_runner(std::shared_ptr<CompiledModel::Impl> model, std::unique_ptr<Runner> op,
                                        std::vector<VariableValue>& state);

// The op of a cut model, run on the host: a data-dependent op on its reference kernel, or a
// control-flow op (control_flow.hpp) whose bodies run on runners of their own compiled models.
using OpRunnerFactory = std::unique_ptr<Runner> (*)(std::shared_ptr<CompiledModel::Impl> model,
                                                   std::vector<VariableValue>& state);
std::unique_ptr<Runner> make_data_dependent_op_runner(std::shared_ptr<CompiledModel::Impl> model,
                                                      std::vector<VariableValue>& state);
std::unique_ptr<Runner> make_if_runner(std::shared_ptr<CompiledModel::Impl> model, std::vector<VariableValue>& state);
std::unique_ptr<Runner> make_loop_runner(std::shared_ptr<CompiledModel::Impl> model, std::vector<VariableValue>& state);

// A stateful model (state.hpp): `inner` runs the graph with the variables as extra inputs and
// outputs; `state` is the request's, read before and written after each inference.
std::unique_ptr<Runner> make_stateful_runner(std::shared_ptr<CompiledModel::Impl> model,
                                             std::vector<VariableValue>& state, std::unique_ptr<Runner> inner);

}  // namespace mosaic
