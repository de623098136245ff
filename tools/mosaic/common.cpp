#include "common.hpp"
#include "shapes.hpp"

#include <mosaic/onnx.hpp>

#include <algorithm>
#include <map>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <vector>

namespace mosaic::cli {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        const size_t at = s.find(sep, start);
        out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return out;
        start = at + 1;
    }
}

// "GPU.1" -> "GPU", "CPU(4)" -> "CPU".
std::string base_device_name(std::string name) {
    name = name.substr(0, name.find('('));
    const size_t dot = name.find('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
}

// Every device a device string names: "HETERO:ACCEL,REFERENCE" -> HETERO, ACCEL, REFERENCE.
std::vector<std::string> named_devices(const std::string& device) {
    std::vector<std::string> names;
    const size_t colon = device.find(':');
    names.push_back(base_device_name(device.substr(0, colon)));
    if (colon != std::string::npos)
        for (const auto& part : split(device.substr(colon + 1), ','))
            if (!part.empty()) names.push_back(base_device_name(part));
    return names;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
    return out;
}

// Called from a catch block when Core failed on `device`: a clearer error when the device itself
// is the problem, else the original error.
[[noreturn]] void rethrow_for_device(Core& core, const std::string& device) {
    const std::exception_ptr original = std::current_exception();
    std::vector<std::string> available;
    try {
        available = core.get_available_devices();
    } catch (const std::exception&) {
        std::rethrow_exception(original);
    }
    std::set<std::string> known;
    for (const auto& d : available) known.insert(base_device_name(d));
    for (const auto& name : named_devices(device)) {
        if (name.empty()) throw UsageError("empty device name in '" + device + "'");
        if (known.count(name)) continue;
        for (const auto& p : core.problems())
            if (p.device == name) throw UsageError(describe_problem(p));
        throw UsageError("unknown device '" + name + "'" + (name != device ? " in '" + device + "'" : "") +
                         "; available devices: " + (available.empty() ? "none" : join(available, ", ")) +
                         " (see 'mosaic devices')");
    }
    std::rethrow_exception(original);
}

}  // namespace

namespace {

std::shared_ptr<Model> read_onnx_with_shapes(const std::string& path, const std::map<std::string, Shape>& given,
                                             bool dynamic_dims_to_one) {
    onnx::ReadOptions options;
    options.dynamic_dims_to_one = dynamic_dims_to_one;
    for (const auto& [name, shape] : given)
        if (!name.empty()) options.input_shapes[name] = shape;  // a shape for every input is applied after reading
    std::shared_ptr<Model> model;
    try {
        model = onnx::read_onnx(path, options);
    } catch (const onnx::UnsupportedError&) {
        throw;
    } catch (const ModelError& e) {
        // Value-dependent shapes resolve while the model is read, so a default of 1 may already
        // fail here ("window larger than the padded input 1"): say where that 1 came from.
        if (!dynamic_dims_to_one) throw;
        throw ModelError(std::string(e.what()) + "\n(dynamic dimensions of the model's inputs were set to 1 for want of "
                         "a shape: give one with --shape NAME[...], or the input's data with -i NAME=FILE.npy)");
    }
    auto note = model->get_rt_info().find("onnx.dynamic_inputs_set_to_one");
    if (note != model->get_rt_info().end()) print_dynamic_note(note->second.as<std::string>());
    return model;
}

// An ONNX model read with -shape's shapes. For convert (keep_dynamic) the dimensions -shape leaves
// stay dynamic. With -data_shape (or -i) it is read with its dynamic dimensions first, so that the
// data's shapes are checked against what the model declares, and only when value-dependent shapes
// need them at read time (a transformer's sequence length) read again with the data's shapes.
std::shared_ptr<Model> read_onnx_for(const std::string& path, const std::map<std::string, Shape>& given,
                                     const ShapeArgs& shape_args) {
    if (shape_args.keep_dynamic) {
        try {
            return read_onnx_with_shapes(path, given, false);
        } catch (const onnx::UnsupportedError&) {
            throw;
        } catch (const ModelError& e) {
            throw ModelError(std::string(e.what()) +
                             "\n(the inputs' dynamic dimensions were kept, as convert does; this model needs them "
                             "fixed to be read: give them with --shape NAME[...])");
        }
    }
    if (shape_args.data_shape.empty()) return read_onnx_with_shapes(path, given, true);
    try {
        return read_onnx_with_shapes(path, given, false);
    } catch (const onnx::UnsupportedError&) {
        throw;
    } catch (const ModelError&) {
        std::map<std::string, Shape> with_data = given;
        for (const auto& [name, shape] : parse_shape_args(shape_args.data_shape, shape_args.data_flag))
            if (!name.empty()) with_data.emplace(name, shape);
        if (with_data.size() == given.size()) throw;
        return read_onnx_with_shapes(path, with_data, false);
    }
}

// Reshapes the model's inputs as -shape, -b and -data_shape ask (see shapes.hpp).
std::vector<ResolvedShape> apply_shapes(Model& model, const ShapeArgs& args) {
    std::vector<std::pair<std::string, Shape>> declared;
    for (Node* p : model.get_parameters()) declared.emplace_back(Model::input_name(*p), p->output_shape(0));
    std::vector<ResolvedShape> resolved = resolve_shapes(declared, args);
    std::map<std::string, PartialShape> changed;
    std::string defaulted;
    for (const auto& r : resolved) {
        if (r.resolved != r.declared) changed[r.name] = r.resolved;
        if (r.defaulted) defaulted += (defaulted.empty() ? "" : ", ") + r.name + " " + to_string(r.declared);
    }
    if (!defaulted.empty()) print_dynamic_note(defaulted);
    if (!changed.empty()) model.reshape(changed);
    return resolved;
}

}  // namespace

void print_dynamic_note(const std::string& inputs) {
    std::cerr << "mosaic: note: dynamic dimensions set to 1 (give --shape NAME[...] to choose): " << inputs << "\n";
}

std::shared_ptr<Model> load_model(Core& core, const std::string& path, const ShapeArgs& shape_args,
                                  std::vector<ResolvedShape>* resolved) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw UsageError("model file '" + path + "' does not exist");
    if (std::filesystem::is_directory(path, ec)) throw UsageError("model path '" + path + "' is a directory, not a model file");
    const std::map<std::string, Shape> given = parse_shape_args(shape_args.shape);
    try {
        // -data_shape needs to see which dimensions the model leaves dynamic.
        std::shared_ptr<Model> model = onnx::is_onnx_file(path) ? read_onnx_for(path, given, shape_args)
                                                                : core.read_model(path);
        std::vector<ResolvedShape> shapes = apply_shapes(*model, shape_args);
        if (resolved) *resolved = std::move(shapes);
        return model;
    } catch (const UsageError&) {
        throw;
    } catch (const std::exception& e) {
        const std::string what = e.what();
        // Readers usually name the file already; do not repeat it.
        if (what.find(path) != std::string::npos) throw;
        throw std::runtime_error("cannot read model '" + path + "': " + what);
    }
}

CompiledModel compile_model(Core& core, const std::shared_ptr<const Model>& model, const std::string& device,
                            const AnyMap& properties) {
    try {
        return core.compile_model(model, device, properties);
    } catch (const std::exception&) {
        rethrow_for_device(core, device);
    }
}

QueryResult query_model(Core& core, const std::shared_ptr<const Model>& model, const std::string& device,
                        const AnyMap& properties) {
    try {
        return core.query_model_details(model, device, properties);
    } catch (const std::exception&) {
        rethrow_for_device(core, device);
    }
}

std::vector<std::string> property_names(const PropertyValue& supported) {
    std::vector<std::string> names;
    if (supported.is_array()) {
        for (const auto& v : supported) {
            if (v.is_string())
                names.push_back(v.get<std::string>());
            else if (v.is_object() && v.contains("name") && v["name"].is_string())
                names.push_back(v["name"].get<std::string>());
        }
    } else if (supported.is_object()) {
        for (const auto& [k, v] : supported.items()) names.push_back(k);
    }
    return names;
}

std::string format_property(const PropertyValue& value) {
    if (value.is_string()) return value.get<std::string>().empty() ? "\"\"" : value.get<std::string>();
    if (value.is_array() && std::all_of(value.begin(), value.end(), [](const PropertyValue& v) { return v.is_string(); })) {
        std::string out;
        for (const auto& v : value) out += (out.empty() ? "" : ", ") + v.get<std::string>();
        return out;
    }
    return value.dump();
}

std::string describe_problem(const RegistryProblem& p) {
    // The library's messages usually name the file and the entry already.
    const bool named = p.message.find(p.source) != std::string::npos &&
                       (p.device.empty() || p.message.find(p.device) != std::string::npos);
    if (named) return p.message;
    return "registry entry " + (p.device.empty() ? std::string("(no device name)") : "'" + p.device + "'") + " in " +
           p.source + " is unusable: " + p.message;
}

void write_text_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw UsageError("cannot write '" + path + "'; check that its folder is writable");
    out << text;
    out.close();
    if (!out) throw UsageError("error writing '" + path + "' (disk full?)");
}

void warn(const std::string& message) { std::cerr << "mosaic: warning: " << message << "\n"; }

}  // namespace mosaic::cli
