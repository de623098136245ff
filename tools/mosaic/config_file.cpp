#include "config_file.hpp"

#include "common.hpp"

#include <fstream>
#include <sstream>

namespace mosaic::cli {

namespace {

// The first device of a device string: "HETERO:ACCEL,REFERENCE" -> "HETERO".
std::string primary_device(const std::string& device) { return device.substr(0, device.find(':')); }

}  // namespace

AnyMap parse_config(const std::string& text, const std::string& device, const std::string& source) {
    PropertyValue root;
    try {
        root = PropertyValue::parse(text);
    } catch (const nlohmann::json::exception& e) {  // also out_of_range: a number too large for a double (1e999)
        throw UsageError("config file '" + source + "' is not valid JSON: " + e.what());
    }
    if (!root.is_object())
        throw UsageError("config file '" + source + "' must hold a JSON object of properties, such as "
                         "{\"PERF_COUNT\": true} or {\"" + primary_device(device) + "\": {\"PERF_COUNT\": true}}");

    AnyMap props;
    PropertyValue per_device = PropertyValue::object();
    for (const auto& [key, value] : root.items()) {
        const bool device_section = value.is_object() && key != properties::device::properties.name;
        if (!device_section) {
            props[key] = value;
        } else if (key == device || key == primary_device(device)) {
            for (const auto& [k, v] : value.items()) props[k] = v;
        } else {
            per_device[key] = value;
        }
    }
    // Only a device that runs others (HETERO:A,B, or one given MULTI_DEVICE_PRIORITIES) takes
    // sections for other devices; for a plain device they are ignored, as benchmark_app does.
    const bool composite = device.find(':') != std::string::npos ||
                           props.count(properties::device::priorities.name) != 0;
    if (!composite) {
        for (const auto& [k, v] : per_device.items())
            warn("config file '" + source + "': section '" + k + "' is ignored: device '" + device +
                 "' does not use it");
        per_device = PropertyValue::object();
    }
    if (!per_device.empty()) {
        PropertyValue& merged = props[properties::device::properties.name];
        if (merged.is_null()) merged = PropertyValue::object();
        if (!merged.is_object())
            throw UsageError("config file '" + source + "': DEVICE_PROPERTIES must be an object of device sections");
        for (const auto& [k, v] : per_device.items()) {
            PropertyValue& section = merged[k];
            // {"DEVICE_PROPERTIES": {"ACCEL": 1}, "ACCEL": {...}}: the file's own entry for the
            // device must be a section too before the two can be merged.
            if (!section.is_null() && !section.is_object())
                throw UsageError("config file '" + source + "': DEVICE_PROPERTIES entry '" + k +
                                 "' must be an object of properties, such as {\"PERF_COUNT\": true}, to merge the '" +
                                 k + "' section into it");
            section.update(v);
        }
    }
    return props;
}

AnyMap load_config(const std::string& path, const std::string& device) {
    std::ifstream in(path);
    if (!in) throw UsageError("cannot open config file '" + path + "'");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_config(text.str(), device, path);
}

}  // namespace mosaic::cli
