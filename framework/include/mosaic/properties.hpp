// Properties: OpenVINO's string keys, values as JSON (they cross the plugin ABI as JSON text).
// Typed keys catch mistakes at compile time:
//   core.compile_model(model, "REFERENCE", {properties::enable_profiling(true),
//                                           properties::hint::performance_mode("THROUGHPUT")});
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mosaic {

using PropertyValue = nlohmann::json;
using AnyMap = std::map<std::string, PropertyValue>;

template <typename T>
struct Property {
    const char* name;
    std::pair<std::string, PropertyValue> operator()(T value) const { return {name, PropertyValue(std::move(value))}; }
    operator std::string() const { return name; }
};

namespace properties {
inline constexpr Property<bool> enable_profiling{"PERF_COUNT"};
inline constexpr Property<std::string> full_device_name{"FULL_DEVICE_NAME"};
// A list of {"name": KEY, "mutable": bool}, like OpenVINO's PropertyName with is_mutable().
inline constexpr Property<nlohmann::json> supported_properties{"SUPPORTED_PROPERTIES"};
inline constexpr Property<int64_t> inference_num_threads{"INFERENCE_NUM_THREADS"};
inline constexpr Property<int64_t> num_streams{"NUM_STREAMS"};
inline constexpr Property<int64_t> optimal_number_of_infer_requests{"OPTIMAL_NUMBER_OF_INFER_REQUESTS"};
inline constexpr Property<std::vector<std::string>> execution_devices{"EXECUTION_DEVICES"};
inline constexpr Property<std::string> model_name{"NETWORK_NAME"};
// The ops a REFERENCE-based device runs, comma-separated; empty: all.
inline constexpr Property<std::string> supported_ops{"SUPPORTED_OPS"};
namespace hint {
inline constexpr Property<std::string> performance_mode{"PERFORMANCE_HINT"};
inline constexpr Property<std::string> inference_precision{"INFERENCE_PRECISION_HINT"};
}  // namespace hint
namespace device {
inline constexpr Property<std::string> priorities{"MULTI_DEVICE_PRIORITIES"};
// {"GPU": {"PERF_COUNT": true}, "CPU": {...}}
inline constexpr Property<nlohmann::json> properties{"DEVICE_PROPERTIES"};
}  // namespace device
}  // namespace properties

}  // namespace mosaic
