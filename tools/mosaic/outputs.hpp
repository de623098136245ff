// `mosaic run -o DIR`: each output written as DIR/<name>.npy.
#pragma once

#include <mosaic/mosaic.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace mosaic::cli {

// A file name for an output name: characters other than letters, digits, '.', '-' and '_' become
// '_' (tensor names often hold '/' or ':'); an empty or dot-only result becomes "output_<index>".
std::string sanitize_file_name(const std::string& name, size_t index);

// Writes every output of `request` under `dir` (created if needed) and names each file on `log`.
// Two outputs whose names sanitize alike get distinct files. bf16 has no NumPy dtype, so a bf16
// output is written as f32 (exactly: every bf16 value is an f32 value).
void write_outputs(const std::string& dir, const CompiledModel& compiled, const InferRequest& request,
                   std::ostream& log);

}  // namespace mosaic::cli
