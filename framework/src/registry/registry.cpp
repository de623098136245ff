#include "registry/registry.hpp"

#include "common/nearest_names.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace mosaic {

namespace fs = std::filesystem;

namespace {

// Reads a JSON file; on failure returns false and says why in `error`.
bool read_json(const std::string& path, nlohmann::json& out, std::string& error) {
    std::ifstream in(path);
    if (!in) {
        error = "'" + path + "' cannot be read: " + std::strerror(errno);
        return false;
    }
    try {
        out = nlohmann::json::parse(in);
        return true;
    } catch (const nlohmann::json::exception& e) {
        // Not only parse_error: a number too large for a double (1e999) is an out_of_range error,
        // and must break only the file that holds it, not every device of the registry.
        error = "'" + path + "' is not valid JSON: " + e.what();
        return false;
    }
}

// The keys config/schemas/plugins.schema.json allows; anything else is refused rather than ignored,
// so that a misspelt key ("propertis", "libary") cannot silently drop what it was meant to set.
const std::vector<std::string> kFileKeys = {"$schema", "version", "plugins"};
const std::vector<std::string> kEntryKeys = {"device",     "library",          "properties",
                                             "isolation",  "timeout_ms",       "infer_timeout_ms",
                                             "memory_limit_mb"};
const std::vector<std::string> kIsolationSettingKeys = {"timeout_ms", "infer_timeout_ms", "memory_limit_mb"};

// Reads "isolation" and its settings into `out`; returns "" or what is wrong, naming the key.
std::string read_isolation(const nlohmann::json& e, IsolationSettings& out) {
    if (e.contains("isolation")) {
        const nlohmann::json& v = e["isolation"];
        if (!v.is_string() || (v != "process" && v != "in-process"))
            return "has \"isolation\": " + v.dump() +
                   "; the values allowed are \"in-process\" (the default: the plugin runs inside the application) and "
                   "\"process\" (the plugin runs in a mosaic-plugin-host process of its own)";
        out.isolated = v == "process";
    }
    for (const std::string& key : kIsolationSettingKeys) {
        if (!e.contains(key)) continue;
        if (!out.isolated)
            return "sets \"" + key + "\", which applies only to a plugin isolated in its own process; add "
                   "\"isolation\": \"process\" or remove it";
        const nlohmann::json& v = e[key];
        if (!v.is_number_integer() || v.get<int64_t>() < 1)
            return "has \"" + key + "\": " + v.dump() + "; it must be a whole number above 0";
        const int64_t n = v.get<int64_t>();
        if (key == "timeout_ms") out.timeout_ms = static_cast<long>(n);
        else if (key == "infer_timeout_ms") out.infer_timeout_ms = static_cast<long>(n);
        else out.memory_limit_mb = static_cast<uint64_t>(n);
    }
    return "";
}

// "" when every key of `object` is in `known`, else what is wrong with the first that is not.
std::string unknown_key_problem(const nlohmann::json& object, const std::vector<std::string>& known) {
    for (const auto& [key, value] : object.items()) {
        if (std::find(known.begin(), known.end(), key) != known.end()) continue;
        std::string allowed;
        for (const auto& k : known) allowed += (allowed.empty() ? "\"" : ", \"") + k + "\"";
        return "has the unknown key \"" + key + "\" (did you mean \"" + nearest_names(key, known, 1).front() +
               "\"?); the keys allowed there are " + allowed + " (config/schemas/plugins.schema.json)";
    }
    return "";
}

}  // namespace

std::string device_name_problem(const std::string& name) {
    if (name.empty()) return "the device name is empty";
    for (char c : name)
        if (c == '.' || c == ':' || c == ',' || c == ' ')
            return "device name '" + name + "' contains '" + std::string(1, c) +
                   "', which is reserved for device ids (GPU.1) and device lists (HETERO:GPU,CPU)";
    // The name also names its property file, devices/<name>.json: a path separator would read a
    // file from outside devices/ (or anywhere, for "/etc/x").
    for (char c : name)
        if (c == '/' || c == '\\')
            return "device name '" + name + "' contains '" + std::string(1, c) +
                   "', a path separator; device names are plain identifiers such as \"GPU\" or \"MY_ACCEL\"";
    return "";
}

std::string default_registry_path() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&default_registry_path), &info) && info.dli_fname)
        return (fs::path(info.dli_fname).parent_path() / "mosaic" / "plugins.json").string();
    return "plugins.json";
}

RegistryFile read_registry(const std::string& path) {
    nlohmann::json doc;
    std::string error;
    if (!read_json(path, doc, error)) throw std::runtime_error("plugin registry " + error);
    if (!doc.is_object() || !doc.contains("plugins") || !doc["plugins"].is_array())
        throw std::runtime_error("plugin registry '" + path +
                                 "' must be a JSON object with a \"plugins\" array: {\"plugins\": [{\"device\": ..., "
                                 "\"library\": ...}]}");
    if (std::string bad = unknown_key_problem(doc, kFileKeys); !bad.empty())
        throw std::runtime_error("plugin registry '" + path + "' " + bad);
    if (doc.contains("version") && doc["version"] != 1)
        throw std::runtime_error("plugin registry '" + path + "' has version " + doc["version"].dump() +
                                 "; this Mosaic reads version 1");

    const fs::path dir = fs::path(path).parent_path();
    RegistryFile file;
    std::map<std::string, std::string> first_source;
    const auto& plugins = doc["plugins"];
    for (size_t i = 0; i < plugins.size(); ++i) {
        const auto& e = plugins[i];
        const std::string where = "'" + path + "' plugins[" + std::to_string(i) + "]";
        auto problem = [&](const std::string& device, const std::string& message) {
            file.problems.push_back({device, path, "registry entry " + where + ": " + message});
        };
        if (!e.is_object()) { problem("", "must be an object with \"device\" and \"library\""); continue; }
        if (!e.contains("device") || !e["device"].is_string()) {
            problem("", "has no \"device\" string; give the device name, e.g. \"device\": \"CPU\"");
            continue;
        }
        const std::string device = e["device"].get<std::string>();
        if (std::string bad = device_name_problem(device); !bad.empty()) { problem(device, bad); continue; }
        if (first_source.count(device)) {
            problem(device, "device '" + device + "' is defined twice (first at " + first_source[device] +
                                "); the first definition is used: rename or remove one");
            continue;
        }
        first_source[device] = where;

        RegistryEntry entry;
        entry.device = device;
        entry.source = where;
        entry.properties = nlohmann::json::object();
        if (std::string bad = unknown_key_problem(e, kEntryKeys); !bad.empty()) {
            entry.problem = "registry entry " + where + " for device '" + device + "' " + bad;
        } else if (std::string bad_isolation = read_isolation(e, entry.isolation); !bad_isolation.empty()) {
            entry.problem = "registry entry " + where + " for device '" + device + "' " + bad_isolation;
        } else if (!e.contains("library") || !e["library"].is_string()) {
            entry.problem = "registry entry " + where + " for device '" + device +
                            "' has no \"library\" string; give the plugin's path relative to the registry file";
        } else {
            fs::path lib = e["library"].get<std::string>();
            entry.library = (lib.is_absolute() ? lib : dir / lib).lexically_normal().string();
        }
        if (e.contains("properties")) {
            if (e["properties"].is_object())
                entry.properties = e["properties"];
            else if (entry.problem.empty())
                entry.problem = "registry entry " + where + " for device '" + device + "': \"properties\" must be an object";
        }
        const fs::path device_file = dir / "devices" / (device + ".json");
        if (entry.problem.empty() && fs::exists(device_file)) {
            nlohmann::json extra;
            if (!read_json(device_file.string(), extra, error))
                entry.problem = "device property file " + error;
            else if (!extra.is_object())
                entry.problem = "device property file '" + device_file.string() + "' must be a JSON object of properties";
            else
                for (const auto& [k, v] : extra.items()) entry.properties[k] = v;
        }
        file.entries.push_back(std::move(entry));
    }
    return file;
}

}  // namespace mosaic
