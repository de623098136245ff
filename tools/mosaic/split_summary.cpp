#include "split_summary.hpp"

#include <exception>

namespace mosaic::cli {

namespace {

std::string count_of(int64_t n, const char* singular, const char* plural) {
    return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

int64_t integer_field(const PropertyValue& object, const char* key) {
    if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return 0;
    return object[key].get<int64_t>();
}

}  // namespace

std::string format_split_summary(const PropertyValue& split) {
    std::string devices;
    if (split.is_object() && split.contains("devices") && split["devices"].is_array())
        for (const auto& d : split["devices"]) {
            const int64_t ops = integer_field(d, "ops");
            if (ops == 0 || !d.contains("device") || !d["device"].is_string()) continue;
            devices += (devices.empty() ? "" : ", ") + d["device"].get<std::string>() + " " + count_of(ops, "op", "ops");
        }
    const int64_t subgraphs = split.is_object() && split.contains("subgraphs") && split["subgraphs"].is_array()
                                  ? static_cast<int64_t>(split["subgraphs"].size())
                                  : 0;
    return "Split: " + (devices.empty() ? std::string("no ops") : devices) + "; " +
           count_of(subgraphs, "subgraph", "subgraphs") + "; " +
           count_of(integer_field(split, "transfer_bytes"), "byte crosses", "bytes cross") +
           " devices per inference";
}

std::string split_summary(const CompiledModel& compiled) {
    PropertyValue split;
    try {
        split = compiled.get_property("HETERO_SPLIT");
    } catch (const std::exception&) {
        return "";  // a plain device: nothing was split
    }
    // A plugin may hand the object over as JSON text rather than as JSON.
    if (split.is_string()) split = PropertyValue::parse(split.get<std::string>(), nullptr, false);
    if (!split.is_object()) return "";
    return format_split_summary(split);
}

}  // namespace mosaic::cli
