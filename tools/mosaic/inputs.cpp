#include "inputs.hpp"

#include "common.hpp"
#include "fill.hpp"
#include "npy.hpp"

#include <algorithm>
#include <map>

namespace mosaic::cli {

namespace {

bool answers_to(const PortDesc& port, const std::string& name) {
    return port.name == name || std::find(port.names.begin(), port.names.end(), name) != port.names.end();
}

bool shape_matches(const Shape& expected, const Shape& given) {
    if (expected.size() != given.size()) return false;
    for (size_t i = 0; i < expected.size(); ++i)
        if (expected[i] >= 0 && expected[i] != given[i]) return false;
    return true;
}

Tensor generated_input(const PortDesc& port, size_t index) {
    if (!is_static(port.shape))
        throw UsageError("input '" + port.name + "' has the dynamic shape " + to_string(port.shape) +
                         "; give its data with --input " + port.name + "=FILE.npy");
    return deterministic_tensor(port.type, port.shape, input_seed(index));
}

}  // namespace

InputSpec parse_input_spec(const std::string& text) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw UsageError("--input '" + text + "' must have the form NAME=FILE.npy");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

const PortDesc& find_input(const CompiledModel& compiled, const std::string& name) {
    for (const auto& port : compiled.inputs())
        if (answers_to(port, name)) return port;
    std::string names;
    for (const auto& port : compiled.inputs()) names += (names.empty() ? "" : ", ") + port.name;
    throw UsageError("the model has no input named '" + name + "'; its inputs are: " + names);
}

void check_input_tensor(const PortDesc& port, const Tensor& tensor, const std::string& path) {
    const bool type_ok = tensor.element_type() == port.type;
    if (type_ok && shape_matches(port.shape, tensor.shape())) return;
    std::string msg = "input '" + port.name + "' expects " + to_string(port.type) + " " + to_string(port.shape) +
                      ", but '" + path + "' holds " + to_string(tensor.element_type()) + " " +
                      to_string(tensor.shape());
    if (!type_ok) {
        try {
            msg += " (convert it with numpy: a.astype('" + npy::dtype_of(port.type) + "'))";
        } catch (const npy::NpyError&) {
        }
    }
    throw UsageError(msg);
}

void bind_inputs(InferRequest& request, const CompiledModel& compiled, const std::vector<std::string>& specs,
                 std::ostream& log) {
    std::map<std::string, std::string> given;  // port name -> file
    for (const auto& text : specs) {
        const InputSpec spec = parse_input_spec(text);
        const PortDesc& port = find_input(compiled, spec.name);
        if (!given.emplace(port.name, spec.path).second)
            throw UsageError("input '" + port.name + "' is given twice with --input");
    }
    const auto& inputs = compiled.inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
        const PortDesc& port = inputs[i];
        const auto it = given.find(port.name);
        if (it != given.end()) {
            Tensor t = npy::read(it->second);
            check_input_tensor(port, t, it->second);
            request.set_tensor(port.name, t);
            log << "Input '" << port.name << "': " << to_string(t.element_type()) << " " << to_string(t.shape())
                << " from " << it->second << "\n";
        } else {
            request.set_tensor(port.name, generated_input(port, i));
            log << "Input '" << port.name << "': " << to_string(port.type) << " " << to_string(port.shape)
                << " not given (--input " << port.name << "=FILE.npy), filled with "
                << deterministic_fill_description(port.type) << "\n";
        }
    }
}

void fill_inputs(InferRequest& request, const CompiledModel& compiled) {
    const auto& inputs = compiled.inputs();
    for (size_t i = 0; i < inputs.size(); ++i) request.set_tensor(inputs[i].name, generated_input(inputs[i], i));
}

}  // namespace mosaic::cli
