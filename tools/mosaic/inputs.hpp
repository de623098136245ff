// Model inputs for `mosaic run` and `mosaic benchmark`: -i [NAME=]FILE with .npy files or images
// (JPEG, PNG: see tools/image/image_input.hpp), and deterministic data for the rest.
#pragma once

#include "shapes.hpp"

#include <mosaic/mosaic.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace mosaic::cli {

struct InputSpec {
    std::string name;  // empty: the model's only input
    std::string path;
};

// "NAME=FILE" or "FILE"; throws UsageError for an empty name or file.
InputSpec parse_input_spec(const std::string& text);

// The shapes of the .npy files among -i specs, as -data_shape entries ("NAME[1,3,64,64]", or
// "[...]" for an unnamed one): the model runs at the shape of the data it is given. Images take
// the model's shape instead, so they are not listed.
std::vector<std::string> data_shapes_of(const std::vector<std::string>& specs);

// The model at `path`, at the shapes of the .npy data `specs` give (-i), `shape_args` deciding where
// they give none (load_model in common.hpp; `resolved` as there).
std::shared_ptr<Model> load_model_for_inputs(Core& core, const std::string& path, ShapeArgs shape_args,
                                             const std::vector<std::string>& specs,
                                             std::vector<ResolvedShape>* resolved = nullptr);

// The compiled model's input that answers to `name` (any of its tensor names); throws UsageError
// listing the model's inputs when none does.
const PortDesc& find_input(const CompiledModel& compiled, const std::string& name);

// Checks a tensor read from `path` against the input it is meant for; throws UsageError naming the
// input, the expected and the given type and shape.
void check_input_tensor(const PortDesc& port, const Tensor& tensor, const std::string& path);

// The data of one model input and, for people, where it came from.
struct InputData {
    std::string name;
    Tensor tensor;
    std::string origin;
};

// Data for every input of `compiled`: from the files `specs` name (one .npy file, or images: one,
// or one per batch item, in the order given), deterministic data for the others. Throws UsageError
// for a dynamic input shape without data.
std::vector<InputData> prepare_inputs(const CompiledModel& compiled, const std::vector<std::string>& specs);

void set_inputs(InferRequest& request, const std::vector<InputData>& inputs);

// One line per input: "Input 'NAME': TYPE SHAPE <origin>".
void print_inputs(std::ostream& log, const std::vector<InputData>& inputs);

}  // namespace mosaic::cli
