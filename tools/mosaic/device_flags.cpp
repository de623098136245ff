#include "device_flags.hpp"

#include "common.hpp"

#include <algorithm>
#include <map>
#include <vector>

namespace mosaic::cli {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t at = s.find(sep); at != std::string::npos; at = s.find(sep, start)) {
        out.push_back(s.substr(start, at - start));
        start = at + 1;
    }
    out.push_back(s.substr(start));
    return out;
}

// "HETERO:ACCEL,REFERENCE" -> {ACCEL, REFERENCE}; a plain device -> {}.
std::vector<std::string> sub_devices(const std::string& device) {
    const size_t colon = device.find(':');
    if (colon == std::string::npos) return {};
    std::vector<std::string> out;
    for (const auto& d : split(device.substr(colon + 1), ','))
        if (!d.empty()) out.push_back(d);
    return out;
}

// Device -> value: "2" for every device in `targets`, or "A:2,B:1" for some of them.
std::map<std::string, std::string> values_per_device(const DeviceFlag& flag, const std::vector<std::string>& targets) {
    std::map<std::string, std::string> out;
    if (flag.value.find(':') == std::string::npos) {
        for (const auto& t : targets) out[t] = flag.value;
        return out;
    }
    for (const auto& pair : split(flag.value, ',')) {
        const size_t colon = pair.find(':');
        const std::string dev = pair.substr(0, colon);
        if (colon == std::string::npos || dev.empty() || colon + 1 == pair.size())
            throw UsageError(std::string(flag.flag) + " '" + flag.value + "': '" + pair +
                             "' is not DEVICE:VALUE (or give one value for every device)");
        if (std::find(targets.begin(), targets.end(), dev) == targets.end()) {
            std::string list;
            for (const auto& t : targets) list += (list.empty() ? "" : ", ") + t;
            throw UsageError(std::string(flag.flag) + " '" + flag.value + "' names device '" + dev +
                             "', which the device string does not; its devices are: " + list);
        }
        out[dev] = pair.substr(colon + 1);
    }
    return out;
}

}  // namespace

void apply_device_flag(AnyMap& props, const std::string& device, const DeviceFlag& flag) {
    if (flag.value.empty()) return;
    const std::vector<std::string> subs = sub_devices(device);
    if (subs.empty()) {
        props[flag.key] = values_per_device(flag, {device}).at(device);
        return;
    }
    PropertyValue& per_device = props[properties::device::properties.name];
    if (per_device.is_null()) per_device = PropertyValue::object();
    for (const auto& [dev, value] : values_per_device(flag, subs)) per_device[dev][flag.key] = value;
}

}  // namespace mosaic::cli
