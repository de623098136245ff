// Declared, validated device properties. A device lists what it accepts (name, kind, default,
// allowed values, read-only); every value a user sets goes through validate(), so an unknown key or
// an ill-typed value gets the same clear error on every device. Values use OpenVINO's string keys
// and accept the spellings OpenVINO configuration files use ("YES"/"NO", numbers as strings).
#pragma once

#include <mosaic/sdk/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <string>
#include <vector>

namespace mosaic::sdk {

enum class PropertyKind { boolean, integer, number, string, choice, object };

struct PropertySpec {
    std::string name;
    PropertyKind kind = PropertyKind::string;
    nlohmann::json default_value;
    std::vector<std::string> choices;  // for choice; for integer, names accepted besides numbers ("AUTO")
    bool read_only = false;
    int64_t min = 0;                   // for integer
    std::string help;
};

inline std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
}

[[noreturn]] inline void property_type_error(const std::string& device, const PropertySpec& spec,
                                             const nlohmann::json& value, const std::string& expected) {
    throw Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                "property '" + spec.name + "' of device '" + device + "' expects " + expected + ", got " + value.dump());
}

// Returns the canonical JSON value for `value` under `spec`, or throws Error(INVALID_ARGUMENT).
inline nlohmann::json normalize_property(const std::string& device, const PropertySpec& spec,
                                         const nlohmann::json& value) {
    switch (spec.kind) {
        case PropertyKind::boolean: {
            if (value.is_boolean()) return value;
            if (value.is_string()) {
                std::string s = upper(value.get<std::string>());
                if (s == "YES" || s == "TRUE") return true;
                if (s == "NO" || s == "FALSE") return false;
            }
            property_type_error(device, spec, value, "YES or NO (a boolean)");
        }
        case PropertyKind::integer: {
            const std::string names = spec.choices.empty() ? "" : " or one of " + nlohmann::json(spec.choices).dump();
            int64_t v = 0;
            if (value.is_number_integer()) {
                v = value.get<int64_t>();
            } else if (value.is_string()) {
                const std::string s = value.get<std::string>();
                for (const auto& c : spec.choices)
                    if (upper(c) == upper(s)) return c;
                size_t used = 0;
                try { v = std::stoll(s, &used); } catch (const std::exception&) { used = 0; }
                if (s.empty() || used != s.size()) property_type_error(device, spec, value, "an integer" + names);
            } else {
                property_type_error(device, spec, value, "an integer" + names);
            }
            if (v < spec.min) property_type_error(device, spec, value, "an integer >= " + std::to_string(spec.min) + names);
            return v;
        }
        case PropertyKind::number: {
            if (value.is_number()) return value.get<double>();
            if (value.is_string()) {
                const std::string s = value.get<std::string>();
                size_t used = 0;
                double v = 0;
                try { v = std::stod(s, &used); } catch (const std::exception&) { used = 0; }
                if (!s.empty() && used == s.size()) return v;
            }
            property_type_error(device, spec, value, "a number");
        }
        case PropertyKind::string:
            if (!value.is_string()) property_type_error(device, spec, value, "a string");
            return value;
        case PropertyKind::choice: {
            if (!value.is_string()) property_type_error(device, spec, value, "one of " + nlohmann::json(spec.choices).dump());
            const std::string s = value.get<std::string>();
            for (const auto& c : spec.choices)
                if (upper(c) == upper(s)) return c;
            property_type_error(device, spec, value, "one of " + nlohmann::json(spec.choices).dump());
        }
        case PropertyKind::object:
            if (!value.is_object()) property_type_error(device, spec, value, "a JSON object");
            return value;
    }
    property_type_error(device, spec, value, "a valid value");
}

// A device's property values, guarded for concurrent get/set.
class PropertyStore {
public:
    PropertyStore(std::string device, std::vector<PropertySpec> specs) : device_(std::move(device)), specs_(std::move(specs)) {
        for (const auto& s : specs_) values_[s.name] = s.default_value;
    }

    const std::string& device() const { return device_; }
    const std::vector<PropertySpec>& specs() const { return specs_; }

    // For orchestrators (HETERO): keys the device does not declare are kept as given instead of
    // refused, so that the device can forward them to the devices it runs on (which validate them).
    void forward_unknown_keys(bool on) { forward_unknown_ = on; }
    bool forwards_unknown_keys() const { return forward_unknown_; }
    bool declares(const std::string& key) const {
        for (const auto& s : specs_)
            if (s.name == key) return true;
        return false;
    }

    const PropertySpec& spec(const std::string& key) const {
        for (const auto& s : specs_)
            if (s.name == key) return s;
        std::vector<std::string> names;
        for (const auto& s : specs_) names.push_back(s.name);
        throw Error(MOSAIC_ERROR_NOT_FOUND, "device '" + device_ + "' has no property '" + key +
                                                "'; supported properties: " + nlohmann::json(names).dump());
    }

    // Validates every entry of `object` and returns them normalised, changing nothing.
    // `allow_read_only` is for the initial configuration from the registry (e.g. FULL_DEVICE_NAME).
    nlohmann::json validate(const nlohmann::json& object, bool allow_read_only = false) const {
        if (!object.is_object())
            throw Error(MOSAIC_ERROR_INVALID_ARGUMENT, "properties for device '" + device_ + "' must be a JSON object, got " +
                                                           object.dump());
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [key, value] : object.items()) {
            if (forward_unknown_ && !declares(key)) {
                out[key] = value;
                continue;
            }
            const PropertySpec& s = spec(key);
            if (s.read_only && !allow_read_only)
                throw Error(MOSAIC_ERROR_INVALID_ARGUMENT, "property '" + key + "' of device '" + device_ + "' is read-only");
            out[key] = normalize_property(device_, s, value);
        }
        return out;
    }

    void set(const nlohmann::json& object, bool allow_read_only = false) {
        nlohmann::json checked = validate(object, allow_read_only);
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto& [key, value] : checked.items()) values_[key] = value;
    }

    nlohmann::json get(const std::string& key) const {
        if (key == "SUPPORTED_PROPERTIES") {
            nlohmann::json list = nlohmann::json::array();
            for (const auto& s : specs_) list.push_back({{"name", s.name}, {"mutable", !s.read_only}});
            return list;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        if (forward_unknown_ && !declares(key) && values_.contains(key)) return values_.at(key);
        spec(key);
        return values_.at(key);
    }

    // All values, with `overrides` (already validated) applied: the configuration a compile uses.
    nlohmann::json merged(const nlohmann::json& overrides) const {
        std::lock_guard<std::mutex> lock(mutex_);
        nlohmann::json out = values_;
        for (const auto& [key, value] : overrides.items()) out[key] = value;
        return out;
    }

private:
    std::string device_;
    std::vector<PropertySpec> specs_;
    mutable std::mutex mutex_;
    nlohmann::json values_ = nlohmann::json::object();
    bool forward_unknown_ = false;
};

// Specs most devices share, so their names, kinds and defaults agree across plugins.
namespace standard_properties {
inline PropertySpec full_device_name(std::string value) {
    return {"FULL_DEVICE_NAME", PropertyKind::string, std::move(value), {}, true, 0, "human-readable device name"};
}
inline PropertySpec perf_count() {
    return {"PERF_COUNT", PropertyKind::boolean, false, {}, false, 0, "collect per-layer profiling records"};
}
inline PropertySpec performance_hint() {
    return {"PERFORMANCE_HINT", PropertyKind::choice, "LATENCY", {"LATENCY", "THROUGHPUT", "CUMULATIVE_THROUGHPUT"},
            false, 0, "optimise for latency or throughput"};
}
inline PropertySpec num_streams(int64_t value = 1) {
    return {"NUM_STREAMS", PropertyKind::integer, value, {}, false, 1, "parallel inference streams"};
}
// NUM_STREAMS for a device that chooses the count itself: "AUTO" (the default) or an integer.
inline PropertySpec num_streams_or_auto() {
    return {"NUM_STREAMS", PropertyKind::integer, "AUTO", {"AUTO"}, false, 1,
            "parallel inference streams; AUTO: chosen from PERFORMANCE_HINT"};
}
inline PropertySpec inference_num_threads(int64_t value = 0) {
    return {"INFERENCE_NUM_THREADS", PropertyKind::integer, value, {}, false, 0, "threads per inference (0: auto)"};
}
inline PropertySpec inference_precision_hint(std::vector<std::string> choices) {
    std::string first = choices.front();
    return {"INFERENCE_PRECISION_HINT", PropertyKind::choice, first, std::move(choices), false, 0,
            "element type used for computation"};
}
inline PropertySpec optimal_number_of_infer_requests(int64_t value = 1) {
    return {"OPTIMAL_NUMBER_OF_INFER_REQUESTS", PropertyKind::integer, value, {}, true, 1,
            "requests to keep in flight for best throughput"};
}
}  // namespace standard_properties

}  // namespace mosaic::sdk
