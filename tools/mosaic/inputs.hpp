// Model inputs for `mosaic run`: --input NAME=FILE.npy, and deterministic data for the rest.
#pragma once

#include <mosaic/mosaic.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace mosaic::cli {

struct InputSpec {
    std::string name;
    std::string path;
};

// "NAME=FILE.npy"; throws UsageError for anything else.
InputSpec parse_input_spec(const std::string& text);

// The compiled model's input that answers to `name` (any of its tensor names); throws UsageError
// listing the model's inputs when none does.
const PortDesc& find_input(const CompiledModel& compiled, const std::string& name);

// Checks a tensor read from `path` against the input it is meant for; throws UsageError naming the
// input, the expected and the given type and shape.
void check_input_tensor(const PortDesc& port, const Tensor& tensor, const std::string& path);

// Sets every input of `request`: from the .npy files named by `specs`, the others with
// deterministic data. Says on `log` what each input got.
void bind_inputs(InferRequest& request, const CompiledModel& compiled, const std::vector<std::string>& specs,
                 std::ostream& log);

// Deterministic data for every input (benchmark); throws for a dynamic input shape.
void fill_inputs(InferRequest& request, const CompiledModel& compiled);

}  // namespace mosaic::cli
