#include "registry/plugin_json_checks.hpp"

#include "registry/registry.hpp"

#include <mosaic/sdk/status.hpp>

#include <stdexcept>

namespace mosaic {

namespace {

// Long values are cut: the point is to show the shape, not to dump a megabyte into a message.
std::string shown(const std::string& text) {
    constexpr size_t kMax = 200;
    return text.size() <= kMax ? text : text.substr(0, kMax) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace

std::string PluginSender::describe() const {
    return "plugin '" + library + "' (device '" + device + "')";
}

void refuse_plugin_value(const PluginSender& sender, const std::string& key, const std::string& value,
                         const std::string& expected) {
    throw std::runtime_error(sender.describe() + " sent " + key + " as " + shown(value) + ", not " + expected +
                             "; the plugin must write the shape that mosaic/plugin_abi.h documents (\"JSON values "
                             "that cross the ABI\"); `mosaic verify-plugin " + sender.device +
                             "` checks a plugin against it");
}

nlohmann::json parse_plugin_json(const PluginSender& sender, const std::string& key, const std::string& text,
                                 const std::string& expected) {
    nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) refuse_plugin_value(sender, key, "'" + text + "' (not JSON)", expected);
    return value;
}

nlohmann::json canonical_supported_properties(const PluginSender& sender, const nlohmann::json& value) {
    const std::string key = "SUPPORTED_PROPERTIES";
    if (!value.is_array()) refuse_plugin_value(sender, key, value.dump(), plugin_shapes::supported_properties);
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) {
        // OpenVINO's PropertyName is read-write unless it says otherwise; a bare name follows it.
        if (item.is_string() && !item.get<std::string>().empty()) {
            out.push_back({{"name", item}, {"mutable", true}});
            continue;
        }
        const bool good_object = item.is_object() && item.contains("name") && item["name"].is_string() &&
                                 !item["name"].get<std::string>().empty() &&
                                 (!item.contains("mutable") || item["mutable"].is_boolean());
        if (!good_object)
            refuse_plugin_value(sender, key, value.dump() + " (the entry " + item.dump() + " is wrong)",
                                plugin_shapes::supported_properties);
        nlohmann::json entry = item;
        if (!entry.contains("mutable")) entry["mutable"] = true;
        out.push_back(std::move(entry));
    }
    return out;
}

std::vector<std::string> plugin_device_ids(const PluginSender& sender, const std::string& text) {
    const std::string key = "device_ids";
    const nlohmann::json value = parse_plugin_json(sender, key, text, plugin_shapes::device_ids);
    if (!value.is_array()) refuse_plugin_value(sender, key, text, plugin_shapes::device_ids);
    std::vector<std::string> ids;
    for (const auto& id : value) {
        // An id becomes part of a device string ("GPU.1"), so it obeys the device-name rules.
        if (!id.is_string() || !device_name_problem(id.get<std::string>()).empty())
            refuse_plugin_value(sender, key, text + " (the id " + id.dump() + " is wrong)", plugin_shapes::device_ids);
        ids.push_back(id.get<std::string>());
    }
    return ids;
}

nlohmann::json plugin_compiled_property(const PluginSender& sender, const std::string& key, const std::string& text) {
    const std::string what = "compiled-model property " + key;
    nlohmann::json value = parse_plugin_json(sender, what, text);
    if (key == "EXECUTION_DEVICES") {
        bool ok = value.is_array();
        for (const auto& d : value) ok = ok && d.is_string();
        if (!ok) refuse_plugin_value(sender, what, text, plugin_shapes::execution_devices);
    } else if (key == "OPTIMAL_NUMBER_OF_INFER_REQUESTS") {
        if (!value.is_number_integer() || value.get<int64_t>() < 1)
            refuse_plugin_value(sender, what, text, plugin_shapes::positive_integer);
    }
    return value;
}

nlohmann::json plugin_properties_argument(const std::string& function, const char* text) {
    if (!text || !*text) return nlohmann::json::object();
    nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded() || !value.is_object())
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "host service " + function + ": properties_json is " +
                                                            shown(text) + ", not " + plugin_shapes::properties);
    return value;
}

}  // namespace mosaic
