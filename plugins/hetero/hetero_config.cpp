#include "hetero_config.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace mosaic::hetero {

namespace {

bool env_flag(const char* name) {
    const char* v = std::getenv(name);
    if (!v) return false;
    const std::string s = sdk::upper(v);
    return s == "1" || s == "YES" || s == "TRUE" || s == "ON";
}

std::vector<std::string> split_list(const std::string& text) {
    if (text.empty())
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                         "HETERO has no devices to run on: name them in the device string (HETERO:ACCEL,REFERENCE) "
                         "or in MULTI_DEVICE_PRIORITIES, highest priority first");
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        // "GPU, CPU" is what people type after a comma; spaces inside a name are still a mistake.
        const size_t first = item.find_first_not_of(" \t"), last = item.find_last_not_of(" \t");
        item = first == std::string::npos ? std::string() : item.substr(first, last - first + 1);
        if (item.empty() || item.find_first_of(" \t") != std::string::npos)
            throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "HETERO device list '" + text +
                                                                "' has an empty or spaced entry; write it as "
                                                                "comma-separated names without spaces, e.g. ACCEL,REFERENCE");
        if (std::find(out.begin(), out.end(), item) != out.end())
            throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                             "HETERO device list '" + text + "' names '" + item + "' twice; list each device once");
        out.push_back(item);
    }
    if (!text.empty() && text.back() == ',')
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "HETERO device list '" + text + "' ends with a comma");
    return out;
}

}  // namespace

HeteroConfig::HeteroConfig(const nlohmann::json& config, const std::vector<std::string>& own_keys,
                           const HostClient& host)
    : host_(host) {
    devices = split_list(config.value("MULTI_DEVICE_PRIORITIES", std::string()));
    for (const std::string& d : devices) {
        bool orchestrator = false;
        try {
            orchestrator = declared(d).contains("MULTI_DEVICE_PRIORITIES");
        } catch (const std::exception& e) {
            throw sdk::Error(MOSAIC_ERROR_NOT_FOUND, "HETERO device list '" + list_text() + "': device '" + d +
                                                         "' cannot be used: " + e.what());
        }
        // An orchestrator in the list would split again with no list of its own (or recurse).
        if (orchestrator)
            throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "HETERO device list '" + list_text() + "': '" + d +
                                                                "' is itself a multi-device orchestrator; list the "
                                                                "devices to split over instead");
    }
    const std::string placement_name = config.value("HETERO_PLACEMENT", std::string("GREEDY"));
    placement = placement_name == "MIN_TRANSFER" ? PlacementMode::min_transfer
                : placement_name == "ONE_DEVICE" ? PlacementMode::one_device
                                                 : PlacementMode::greedy;
    max_subgraphs = config.value("HETERO_MAX_SUBGRAPHS", int64_t{0});
    max_fallback_ratio = config.value("HETERO_MAX_FALLBACK_RATIO", 1.0);
    if (max_fallback_ratio < 0 || max_fallback_ratio > 1)
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "HETERO_MAX_FALLBACK_RATIO must be between 0 and 1, got " +
                                                            std::to_string(max_fallback_ratio));
    visualize = config.value("HETERO_VISUALIZE", false) || env_flag("MOSAIC_HETERO_VISUALIZE") ||
                env_flag("OPENVINO_HETERO_VISUALIZE");
    dump_dir = config.value("HETERO_DUMP_DIR", std::string());
    transfer_overhead_us = config.value("HETERO_TRANSFER_OVERHEAD_US", 20.0);
    perf_count = config.value("PERF_COUNT", false);
    crossing_memory = config.value("HETERO_CROSSING_MEMORY", std::string("AUTO"));
    const std::string policy = config.value("MODEL_DISTRIBUTION_POLICY", std::string());
    if (!policy.empty() && policy != "PIPELINE_PARALLEL")
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "MODEL_DISTRIBUTION_POLICY '" + policy +
                                                         "' is not one HETERO has; PIPELINE_PARALLEL is (or leave it empty)");
    pipeline = policy == "PIPELINE_PARALLEL";
    const int64_t in_flight = config.value("PERFORMANCE_HINT_NUM_REQUESTS", int64_t{0});
    if (in_flight > 4096)
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "PERFORMANCE_HINT_NUM_REQUESTS " + std::to_string(in_flight) +
                                                            " is more requests in flight than HETERO plans for (4096 at most)");
    requests = static_cast<uint64_t>(std::max<int64_t>(in_flight, 1));
    const nlohmann::json patterns = config.value("HETERO_AFFINITY_PATTERNS", nlohmann::json::object());
    for (const auto& [text, device] : patterns.items()) {
        const std::string where = "HETERO_AFFINITY_PATTERNS maps '" + text + "' to " + device.dump();
        if (!device.is_string() || std::find(devices.begin(), devices.end(), device.get<std::string>()) == devices.end())
            throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                             where + ", which is not a device of the HETERO list " + list_text() +
                                 "; map each pattern to one of " + list_text() + ", or add the device to the list");
        try {
            affinity_patterns.push_back({text, device.get<std::string>(), std::regex(text, std::regex::ECMAScript)});
        } catch (const std::regex_error& e) {
            throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, where + ", but '" + text + "' is not a valid regular expression (" +
                                                                e.what() + "); write it as ECMAScript, e.g. "
                                                                "\"layers\\.1[0-9]\\.\"");
        }
    }
    per_device_ = config.value("DEVICE_PROPERTIES", nlohmann::json::object());
    for (const auto& [device, props] : per_device_.items()) {
        if (!props.is_object())
            throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "DEVICE_PROPERTIES['" + device +
                                                                "'] must be a JSON object of properties, got " +
                                                                props.dump());
        // A section for a device that takes no part would be silently dropped: a typo, or a device
        // left out of the list.
        const bool listed = std::any_of(devices.begin(), devices.end(), [&](const std::string& d) {
            return d == device || base_device_name(d) == device;
        });
        if (!listed)
            throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "DEVICE_PROPERTIES has a section for '" + device +
                                                                "', which is not in the HETERO device list " +
                                                                list_text() + "; add it to the list or remove the section");
    }

    // Keys HETERO does not declare go to the devices that do; one no device declares is a mistake.
    for (const auto& [key, value] : config.items()) {
        if (std::find(own_keys.begin(), own_keys.end(), key) != own_keys.end()) continue;
        bool taken = false;
        for (const std::string& d : devices) taken = taken || declared(d).contains(key);
        if (!taken)
            throw sdk::Error(MOSAIC_ERROR_NOT_FOUND, "property '" + key + "' is neither a HETERO property nor one of "
                                                     "its devices' (" + list_text() +
                                                     "); check the spelling, or give it to one device with "
                                                     "DEVICE_PROPERTIES");
        forwarded_[key] = value;
    }
}

const nlohmann::json& HeteroConfig::declared(const std::string& device) const {
    auto it = declared_.find(device);
    if (it == declared_.end()) it = declared_.emplace(device, host_.device_properties(device)).first;
    return it->second;
}

std::string HeteroConfig::list_text() const {
    std::string s;
    for (const auto& d : devices) s += (s.empty() ? "" : ",") + d;
    return s;
}

nlohmann::json HeteroConfig::device_config(const std::string& device) const {
    nlohmann::json out = nlohmann::json::object();
    const nlohmann::json& keys = declared(device);
    for (const auto& [key, value] : forwarded_.items())
        if (keys.contains(key)) out[key] = value;
    // PERF_COUNT is HETERO's own too; turning it on profiles every subgraph, leaving it off keeps
    // what each device was configured with.
    if (perf_count && keys.contains("PERF_COUNT")) out["PERF_COUNT"] = true;
    const std::string base = base_device_name(device);
    for (const std::string& name : {base, device})
        if (per_device_.contains(name))
            for (const auto& [key, value] : per_device_.at(name).items()) out[key] = value;
    return out;
}

}  // namespace mosaic::hetero
