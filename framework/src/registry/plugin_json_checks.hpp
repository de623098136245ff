// JSON values a plugin sends across the ABI, checked against the shapes plugin_abi.h documents
// ("JSON values that cross the ABI"). Every place the host reads plugin-provided JSON goes through
// here, so a plugin that sends another shape gets one kind of error, naming the plugin library, the
// device, the key and the expected shape, and never a raw nlohmann exception from deep inside Core.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mosaic {

// Who sent a value, for messages: "plugin '<library path>' (device '<name>')".
struct PluginSender {
    std::string library;
    std::string device;
    std::string describe() const;
};

// The shapes, worded as plugin_abi.h words them; the errors quote them.
namespace plugin_shapes {
inline constexpr const char* supported_properties =
    "a JSON array of {\"name\": string, \"mutable\": boolean} objects (a plain array of name strings is also "
    "accepted; each name is then mutable)";
inline constexpr const char* device_ids = "a JSON array of non-empty strings without '.', ':' or ',', e.g. [\"0\", \"1\"]";
inline constexpr const char* any_value = "a JSON value (a string must be quoted: \"\\\"text\\\"\")";
inline constexpr const char* properties = "a JSON object of properties, e.g. {\"PERF_COUNT\": true}";
inline constexpr const char* execution_devices = "a JSON array of device-name strings";
inline constexpr const char* positive_integer = "a JSON integer >= 1";
}  // namespace plugin_shapes

// Throws std::runtime_error: "<sender> sent <key> as <value>, not <expected>; <what to do>".
[[noreturn]] void refuse_plugin_value(const PluginSender& sender, const std::string& key, const std::string& value,
                                      const std::string& expected);

// Parses `text` written by the plugin for `key`; refuses text that is not JSON.
nlohmann::json parse_plugin_json(const PluginSender& sender, const std::string& key, const std::string& text,
                                 const std::string& expected = plugin_shapes::any_value);

// A device's SUPPORTED_PROPERTIES in the canonical shape: [{"name": ..., "mutable": ...}, ...].
nlohmann::json canonical_supported_properties(const PluginSender& sender, const nlohmann::json& value);

// The device's ids from device_ids().
std::vector<std::string> plugin_device_ids(const PluginSender& sender, const std::string& text);

// A compiled-model property: the keys the host interprets (EXECUTION_DEVICES,
// OPTIMAL_NUMBER_OF_INFER_REQUESTS) are checked for their shape.
nlohmann::json plugin_compiled_property(const PluginSender& sender, const std::string& key, const std::string& text);

// Properties an orchestrator hands to the host services (query_device, compile_on_device,
// import_on_device): NULL or "" is {}, anything else must be a JSON object. The host table does not
// know which plugin calls it, so this throws sdk::Error(INVALID_ARGUMENT) naming the function: the
// status goes back to the calling plugin, and the host names that plugin when the status reaches it.
nlohmann::json plugin_properties_argument(const std::string& function, const char* text);

}  // namespace mosaic
