// Properties: OpenVINO's string keys, values as JSON (they cross the plugin ABI as JSON text).
// Typed keys, spelled as OpenVINO spells them, catch mistakes at compile time:
//   core.compile_model(model, "HETERO",
//                      mosaic::device::priorities("GPU", "CPU"),
//                      mosaic::device::properties("GPU", mosaic::enable_profiling(true)),
//                      mosaic::device::properties("CPU", mosaic::hint::inference_precision(mosaic::element::f32)));
// Each key is also reachable as mosaic::properties::..., and converts to its string ("PERF_COUNT").
#pragma once

#include <mosaic/element_type.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace mosaic {

using PropertyValue = nlohmann::json;
using AnyMap = std::map<std::string, PropertyValue>;
using Property_pair = std::pair<std::string, PropertyValue>;

namespace element {
using Type = ElementType;
inline constexpr Type undefined = ElementType::undefined, f32 = ElementType::f32, f16 = ElementType::f16,
                      bf16 = ElementType::bf16, f64 = ElementType::f64, i8 = ElementType::i8, u8 = ElementType::u8,
                      i16 = ElementType::i16, u16 = ElementType::u16, i32 = ElementType::i32, u32 = ElementType::u32,
                      i64 = ElementType::i64, u64 = ElementType::u64, boolean = ElementType::boolean;
}  // namespace element

inline namespace properties {
namespace hint {
enum class PerformanceMode { LATENCY, THROUGHPUT, CUMULATIVE_THROUGHPUT };
inline const char* to_string(PerformanceMode m) {
    switch (m) {
        case PerformanceMode::LATENCY: return "LATENCY";
        case PerformanceMode::THROUGHPUT: return "THROUGHPUT";
        case PerformanceMode::CUMULATIVE_THROUGHPUT: return "CUMULATIVE_THROUGHPUT";
    }
    return "LATENCY";
}
}  // namespace hint
}  // namespace properties

// How a typed value is written: enums by their OpenVINO names, the rest as JSON.
template <typename T, typename V>
PropertyValue property_value(V&& v) {
    using D = std::decay_t<V>;
    if constexpr (std::is_same_v<D, ElementType>) return PropertyValue(to_string(v));
    else if constexpr (std::is_same_v<D, hint::PerformanceMode>) return PropertyValue(hint::to_string(v));
    else return PropertyValue(T(std::forward<V>(v)));
}

template <typename T>
struct Property {
    const char* name;
    template <typename V>
    Property_pair operator()(V&& value) const { return {name, property_value<T>(std::forward<V>(value))}; }
    operator std::string() const { return name; }
};

// ov::device::priorities: priorities("GPU", "CPU") or priorities("GPU,CPU").
struct DevicePriorities {
    const char* name;
    template <typename... Devices>
    Property_pair operator()(const std::string& first, const Devices&... rest) const {
        std::string list = first;
        ((list += "," + std::string(rest)), ...);
        return {name, list};
    }
    operator std::string() const { return name; }
};

// ov::device::properties: per device, properties("GPU", enable_profiling(true), ...), or for
// several devices at once as a map {"GPU": {...}, "CPU": {...}}. Several of them in one call merge.
struct DeviceProperties {
    const char* name;
    template <typename... Props>
    Property_pair operator()(const std::string& device, Props&&... props) const {
        PropertyValue per_device = PropertyValue::object();
        ((per_device[std::forward<Props>(props).first] = std::forward<Props>(props).second), ...);
        return {name, PropertyValue{{device, per_device}}};
    }
    Property_pair operator()(const std::string& device, const AnyMap& props) const {
        return {name, PropertyValue{{device, PropertyValue(props)}}};
    }
    Property_pair operator()(const std::map<std::string, AnyMap>& devices) const {
        PropertyValue all = PropertyValue::object();
        for (const auto& [device, props] : devices) all[device] = PropertyValue(props);
        return {name, all};
    }
    operator std::string() const { return name; }
};

inline namespace properties {
inline constexpr Property<bool> enable_profiling{"PERF_COUNT"};
inline constexpr Property<std::string> full_device_name{"FULL_DEVICE_NAME"};
inline constexpr Property<std::vector<std::string>> available_devices{"AVAILABLE_DEVICES"};
// A list of {"name": KEY, "mutable": bool}, like OpenVINO's PropertyName with is_mutable().
inline constexpr Property<nlohmann::json> supported_properties{"SUPPORTED_PROPERTIES"};
inline constexpr Property<int64_t> inference_num_threads{"INFERENCE_NUM_THREADS"};
inline constexpr Property<int64_t> num_streams{"NUM_STREAMS"};
inline constexpr Property<std::string> cache_dir{"CACHE_DIR"};
inline constexpr Property<int64_t> optimal_number_of_infer_requests{"OPTIMAL_NUMBER_OF_INFER_REQUESTS"};
inline constexpr Property<std::vector<std::string>> execution_devices{"EXECUTION_DEVICES"};
inline constexpr Property<std::string> model_name{"NETWORK_NAME"};
// The ops a REFERENCE-based device runs, comma-separated; empty: all.
inline constexpr Property<std::string> supported_ops{"SUPPORTED_OPS"};
namespace hint {
// Takes hint::PerformanceMode::THROUGHPUT or its name.
inline constexpr Property<std::string> performance_mode{"PERFORMANCE_HINT"};
// Takes element::f32 or its name.
inline constexpr Property<std::string> inference_precision{"INFERENCE_PRECISION_HINT"};
// CPU: MatMuls by compressed weights quantize their activations to int8 in groups of this many
// values (a multiple of 32); 0 keeps them f32.
inline constexpr Property<int64_t> dynamic_quantization_group_size{"DYNAMIC_QUANTIZATION_GROUP_SIZE"};
}  // namespace hint
namespace device {
inline constexpr DevicePriorities priorities{"MULTI_DEVICE_PRIORITIES"};
inline constexpr DeviceProperties properties{"DEVICE_PROPERTIES"};
inline constexpr Property<std::string> full_name{"FULL_DEVICE_NAME"};
inline constexpr Property<std::string> id{"DEVICE_ID"};
}  // namespace device
}  // namespace properties

// Adds one property to a map; DEVICE_PROPERTIES sections merge per device instead of replacing.
inline void add_property(AnyMap& map, Property_pair property) {
    auto& [key, value] = property;
    auto it = map.find(key);
    if (key == "DEVICE_PROPERTIES" && it != map.end() && it->second.is_object() && value.is_object()) {
        for (auto& [device, props] : value.items()) {
            PropertyValue& section = it->second[device];
            if (section.is_object() && props.is_object()) section.update(props);
            else section = props;
        }
        return;
    }
    map[key] = std::move(value);
}

template <typename... Props>
AnyMap make_properties(Props&&... props) {
    AnyMap map;
    (add_property(map, Property_pair(std::forward<Props>(props))), ...);
    return map;
}

}  // namespace mosaic
