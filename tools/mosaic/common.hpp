// Helpers every command shares: reading the model and compiling it with errors that say what to do.
#pragma once

#include "shapes.hpp"

#include <mosaic/mosaic.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic::cli {

// A mistake by the user (bad flag value, missing file...). main() prints it as
// "mosaic: error: <message>" and exits with 1, like any other exception.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Checks that `path` exists and is a file before handing it to Core::read_model, and names the
// file in any error the reader reports. The model is reshaped as `shape_args` ask (see shapes.hpp);
// a dynamic dimension they leave open becomes 1, with a note on stderr saying so. `resolved`, when
// given, receives each input's declared and final shape.
std::shared_ptr<Model> load_model(Core& core, const std::string& path, const ShapeArgs& shape_args = {},
                                  std::vector<ResolvedShape>* resolved = nullptr);

// Runs `step` (a compile, an inference); when it throws and some input's dynamic dimensions were
// set to 1 for want of a shape, the error says so and names --shape, since that default is the
// likely cause ("MaxPool window larger than padded input 1").
template <typename Step>
auto with_default_shape_note(const std::vector<ResolvedShape>& shapes, Step&& step) -> decltype(step()) {
    try {
        return step();
    } catch (const std::exception& e) {
        std::string defaulted;
        for (const auto& s : shapes)
            if (s.defaulted) defaulted += (defaulted.empty() ? "" : ", ") + s.name + " " + to_string(s.declared);
        if (defaulted.empty()) throw;
        throw std::runtime_error(std::string(e.what()) + "\n(dynamic dimensions of " + defaulted +
                                 " were set to 1 for want of a shape: give one with --shape NAME[...], or the "
                                 "input's data with -i NAME=FILE.npy)");
    }
}

// "mosaic: note: dynamic dimensions set to 1 ...: <inputs>" on stderr.
void print_dynamic_note(const std::string& inputs);

// Core::compile_model, and when it fails because the device string names a device the registry
// does not have (or cannot load), an error that says so and lists the devices there are.
CompiledModel compile_model(Core& core, const std::shared_ptr<const Model>& model, const std::string& device,
                            const AnyMap& properties);
QueryResult query_model(Core& core, const std::shared_ptr<const Model>& model, const std::string& device,
                        const AnyMap& properties = {});

// The keys a SUPPORTED_PROPERTIES value lists, whatever its shape: an array of names, an array of
// {"name": ..., "mutable": ...} objects, or an object keyed by name.
std::vector<std::string> property_names(const PropertyValue& supported);

// A property value for people: strings without quotes, everything else as compact JSON.
std::string format_property(const PropertyValue& value);

// A broken registry entry in one line, naming the registry file and the device.
std::string describe_problem(const RegistryProblem& problem);

// Writes `text` to `path`, replacing it; throws UsageError naming the file when it cannot.
void write_text_file(const std::string& path, const std::string& text);

// "mosaic: warning: ..." on stderr.
void warn(const std::string& message);

}  // namespace mosaic::cli
