// Input shapes from the command line, spelled as OpenVINO's benchmark_app spells them:
//   -shape       "data[1,3,224,224]", "[1,3,224,224]" (every input), several joined by commas
//                ("a[1,128],b[1,128]"); "?" or -1 leaves a dimension dynamic.
//   -data_shape  the same spelling: the shape of the data for inputs that are still dynamic.
//   -b N         the batch: the first dimension of every input of rank 2 or more (N of NCHW,
//                NHWC and NC, the layouts benchmark_app guesses for a model that states none).
// Commands that compile fix dynamic dimensions: -data_shape to the data's, and those left after all
// three become 1 (with a note saying so). `convert` keeps them: IR holds dynamic dimensions.
#pragma once

#include <mosaic/mosaic.hpp>

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

namespace mosaic::cli {

// What the user asked for; empty/0 means "not given".
struct ShapeArgs {
    std::vector<std::string> shape;       // -shape
    std::vector<std::string> data_shape;  // -data_shape
    int64_t batch = 0;                    // -b
    std::string data_flag = "-data_shape";  // what messages call data_shape (run takes it from -i)
    bool keep_dynamic = false;  // convert: dimensions no flag fixes stay dynamic, as IR can hold them
};

// Input name -> shape; the name "" stands for every input. `flag` names the option in errors.
// Throws UsageError for a malformed argument.
std::map<std::string, Shape> parse_shape_args(const std::vector<std::string>& args, const std::string& flag = "-shape");

// One model input whose shape the arguments decide.
struct ResolvedShape {
    std::string name;
    Shape declared;  // as the model has it
    Shape resolved;  // static, what the model is reshaped to
    bool defaulted = false;  // some dynamic dimension became 1 for want of a shape (never with keep_dynamic)
};

// Applies -shape, then -b, then -data_shape, then 1 for what is still dynamic (unless
// args.keep_dynamic), to `declared`
// (input name -> shape, in the model's input order). Throws UsageError naming the flag and the
// input for a name the model does not have, a rank that differs, or a -data_shape that contradicts
// a static dimension.
std::vector<ResolvedShape> resolve_shapes(const std::vector<std::pair<std::string, Shape>>& declared,
                                          const ShapeArgs& args);

// Whether -b applies to an input of this shape: it has a batch dimension N, its first, when its
// rank is 2 or more.
inline bool has_batch_dim(const Shape& shape) { return shape.size() >= 2; }

// Adds -shape/--shape (and, with `benchmark_flags`, -data_shape and -b) to a command.
void add_shape_options(CLI::App* cmd, ShapeArgs& target, bool benchmark_flags = false);

}  // namespace mosaic::cli
