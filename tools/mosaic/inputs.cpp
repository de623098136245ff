#include "inputs.hpp"

#include "common.hpp"
#include "fill.hpp"
#include "npy.hpp"

#include "tools/image/image_input.hpp"

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

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
}

std::string input_names(const CompiledModel& compiled) {
    std::vector<std::string> names;
    for (const auto& port : compiled.inputs()) names.push_back(port.name);
    return join(names);
}

InputData generated_input(const PortDesc& port, size_t index) {
    if (!is_static(port.shape))
        throw UsageError("input '" + port.name + "' has the dynamic shape " + to_string(port.shape) +
                         "; give its data with -i " + port.name + "=FILE.npy, or its shape with -shape");
    return {port.name, deterministic_tensor(port.type, port.shape, input_seed(index)),
            "not given (-i " + port.name + "=FILE), filled with " + deterministic_fill_description(port.type)};
}

// Images fill a batch; anything else is read as .npy, one file per input.
InputData input_from_files(const PortDesc& port, const std::vector<std::string>& paths) {
    const bool images = std::all_of(paths.begin(), paths.end(), image::is_image_path);
    if (images) {
        try {
            const image::ImageGeometry g = image::image_geometry(port.shape);
            return {port.name, image::load_images(paths, port.type, port.shape),
                    "from " + join(paths) + " (BGR, " + (g.layout == image::Layout::nchw ? "NCHW" : "NHWC") +
                        ", resized to " + std::to_string(g.width) + "x" + std::to_string(g.height) + ")"};
        } catch (const image::ImageError& e) {
            throw UsageError("input '" + port.name + "': " + e.what());
        }
    }
    if (paths.size() > 1)
        throw UsageError("input '" + port.name + "' is given " + std::to_string(paths.size()) + " files (" +
                         join(paths) + "); only images (JPEG, PNG) fill a batch, a .npy file holds the whole input");
    Tensor t = npy::read(paths.front());
    check_input_tensor(port, t, paths.front());
    return {port.name, t, "from " + paths.front()};
}

}  // namespace

InputSpec parse_input_spec(const std::string& text) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos) {
        if (text.empty()) throw UsageError("-i needs a file: [NAME=]FILE (.npy, .png, .jpg)");
        return {"", text};
    }
    if (eq == 0 || eq + 1 == text.size())
        throw UsageError("-i '" + text + "' must have the form NAME=FILE or FILE (.npy, .png, .jpg)");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<std::string> data_shapes_of(const std::vector<std::string>& specs) {
    std::vector<std::string> out;
    std::map<std::string, int> files;  // per input name
    for (const auto& text : specs) ++files[parse_input_spec(text).name];
    for (const auto& text : specs) {
        const InputSpec spec = parse_input_spec(text);
        // Several files for one input are refused later with the reason (only images fill a batch).
        if (image::is_image_path(spec.path) || files[spec.name] > 1) continue;
        const Shape shape = npy::read(spec.path).get_shape();
        std::string dims;
        for (int64_t d : shape) dims += (dims.empty() ? "" : ",") + std::to_string(d);
        out.push_back(spec.name + "[" + dims + "]");
    }
    return out;
}

std::shared_ptr<Model> load_model_for_inputs(Core& core, const std::string& path, ShapeArgs shape_args,
                                             const std::vector<std::string>& specs, std::vector<ResolvedShape>* resolved) {
    shape_args.data_shape = data_shapes_of(specs);
    shape_args.data_flag = "-i";
    return load_model(core, path, shape_args, resolved);
}

const PortDesc& find_input(const CompiledModel& compiled, const std::string& name) {
    for (const auto& port : compiled.inputs())
        if (answers_to(port, name)) return port;
    throw UsageError("the model has no input named '" + name + "'; its inputs are: " + input_names(compiled));
}

void check_input_tensor(const PortDesc& port, const Tensor& tensor, const std::string& path) {
    const bool type_ok = tensor.get_element_type() == port.type;
    if (type_ok && shape_matches(port.shape, tensor.get_shape())) return;
    std::string msg = "input '" + port.name + "' expects " + to_string(port.type) + " " + to_string(port.shape) +
                      ", but '" + path + "' holds " + to_string(tensor.get_element_type()) + " " +
                      to_string(tensor.get_shape());
    if (!type_ok) {
        try {
            msg += " (convert it with numpy: a.astype('" + npy::dtype_of(port.type) + "'))";
        } catch (const npy::NpyError&) {
        }
    }
    throw UsageError(msg);
}

std::vector<InputData> prepare_inputs(const CompiledModel& compiled, const std::vector<std::string>& specs) {
    std::map<std::string, std::vector<std::string>> given;  // port name -> files, in the order given
    for (const auto& text : specs) {
        const InputSpec spec = parse_input_spec(text);
        if (spec.name.empty() && compiled.inputs().size() != 1)
            throw UsageError("-i '" + text + "' names no input, but the model has " +
                             std::to_string(compiled.inputs().size()) + " inputs (" + input_names(compiled) +
                             "); give NAME=FILE");
        const PortDesc& port = spec.name.empty() ? compiled.inputs().front() : find_input(compiled, spec.name);
        given[port.name].push_back(spec.path);
    }
    std::vector<InputData> out;
    const auto& inputs = compiled.inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto it = given.find(inputs[i].name);
        out.push_back(it == given.end() ? generated_input(inputs[i], i) : input_from_files(inputs[i], it->second));
    }
    return out;
}

void set_inputs(InferRequest& request, const std::vector<InputData>& inputs) {
    for (const auto& in : inputs) request.set_tensor(in.name, in.tensor);
}

void print_inputs(std::ostream& log, const std::vector<InputData>& inputs) {
    for (const auto& in : inputs)
        log << "Input '" << in.name << "': " << to_string(in.tensor.get_element_type()) << " "
            << to_string(in.tensor.get_shape()) << " " << in.origin << "\n";
}

}  // namespace mosaic::cli
