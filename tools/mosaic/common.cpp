#include "common.hpp"

#include <algorithm>
#include <filesystem>
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

// Called when Core failed on `device`: a clearer error when the device itself is the problem.
[[noreturn]] void rethrow_for_device(Core& core, const std::string& device, const std::exception& original) {
    std::vector<std::string> available;
    try {
        available = core.get_available_devices();
    } catch (const std::exception&) {
        throw;  // the registry itself is broken: report that
    }
    std::set<std::string> known;
    for (const auto& d : available) known.insert(base_device_name(d));
    for (const auto& name : named_devices(device)) {
        if (name.empty()) throw UsageError("empty device name in '" + device + "'");
        if (known.count(name)) continue;
        for (const auto& p : core.problems())
            if (p.device == name)
                throw UsageError("device '" + name + "' is registered in " + p.source + " but cannot be used: " +
                                 p.message);
        throw UsageError("unknown device '" + name + "'" + (name != device ? " in '" + device + "'" : "") +
                         "; available devices: " + (available.empty() ? "none" : join(available, ", ")) +
                         " (see 'mosaic devices')");
    }
    (void)original;
    throw;  // the device is fine: the original error stands
}

}  // namespace

std::shared_ptr<Model> load_model(Core& core, const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw UsageError("model file '" + path + "' does not exist");
    if (std::filesystem::is_directory(path, ec)) throw UsageError("model path '" + path + "' is a directory, not a model file");
    try {
        return core.read_model(path);
    } catch (const std::exception& e) {
        const std::string what = e.what();
        // Readers usually name the file already; do not repeat it.
        if (what.find(path) != std::string::npos) throw std::runtime_error(what);
        throw std::runtime_error("cannot read model '" + path + "': " + what);
    }
}

CompiledModel compile_model(Core& core, const std::shared_ptr<const Model>& model, const std::string& device,
                            const AnyMap& properties) {
    try {
        return core.compile_model(model, device, properties);
    } catch (const std::exception& e) {
        rethrow_for_device(core, device, e);
    }
}

QueryResult query_model(Core& core, const std::shared_ptr<const Model>& model, const std::string& device) {
    try {
        return core.query_model(model, device);
    } catch (const std::exception& e) {
        rethrow_for_device(core, device, e);
    }
}

std::string format_property(const PropertyValue& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_array() && std::all_of(value.begin(), value.end(), [](const PropertyValue& v) { return v.is_string(); })) {
        std::string out;
        for (const auto& v : value) out += (out.empty() ? "" : ", ") + v.get<std::string>();
        return out;
    }
    return value.dump();
}

void warn(const std::string& message) { std::cerr << "mosaic: warning: " << message << "\n"; }

}  // namespace mosaic::cli
