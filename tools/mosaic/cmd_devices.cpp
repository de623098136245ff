// mosaic devices [--json]: every device with its full name and property values; broken registry
// entries are warnings on stderr, because the devices that do load are still usable.
#include "commands.hpp"
#include "common.hpp"

#include <iostream>
#include <memory>

namespace mosaic::cli {

namespace {

struct DevicesOptions {
    bool json = false;
};

struct DeviceInfo {
    std::string name;
    std::string full_name;
    std::vector<std::pair<std::string, PropertyValue>> properties;  // in SUPPORTED_PROPERTIES order
    std::vector<std::pair<std::string, std::string>> errors;        // property -> why it could not be read
};

DeviceInfo describe(Core& core, const std::string& device) {
    DeviceInfo info;
    info.name = device;
    PropertyValue supported;
    try {
        const PropertyValue full_name = core.get_property(device, properties::full_device_name);
        info.full_name = format_property(full_name);
        supported = core.get_property(device, properties::supported_properties);
    } catch (const std::exception& e) {
        // One misbehaving device should not hide the others.
        warn("device '" + device + "': " + e.what());
    }
    for (const auto& key : property_names(supported)) {
        if (key == std::string(properties::supported_properties)) continue;
        try {
            info.properties.emplace_back(key, core.get_property(device, key));
        } catch (const std::exception& e) {
            info.errors.emplace_back(key, e.what());
        }
    }
    return info;
}

void print_text(const std::vector<DeviceInfo>& devices) {
    if (devices.empty()) std::cout << "No devices available.\n";
    for (const auto& d : devices) {
        std::cout << d.name << "\n";
        std::cout << "    FULL_DEVICE_NAME: " << d.full_name << "\n";
        std::cout << "    SUPPORTED_PROPERTIES:\n";
        for (const auto& [key, value] : d.properties) {
            if (key == std::string(properties::full_device_name)) continue;  // shown above
            std::cout << "        " << key << ": " << format_property(value) << "\n";
        }
        for (const auto& [key, why] : d.errors) std::cout << "        " << key << ": <cannot read: " << why << ">\n";
    }
}

void print_json(const std::vector<DeviceInfo>& devices, const std::vector<RegistryProblem>& problems) {
    PropertyValue out = {{"devices", PropertyValue::array()}, {"problems", PropertyValue::array()}};
    for (const auto& d : devices) {
        PropertyValue props = PropertyValue::object();
        for (const auto& [key, value] : d.properties) props[key] = value;
        PropertyValue entry = {{"name", d.name}, {"full_name", d.full_name}, {"properties", props}};
        if (!d.errors.empty()) {
            entry["property_errors"] = PropertyValue::object();
            for (const auto& [key, why] : d.errors) entry["property_errors"][key] = why;
        }
        out["devices"].push_back(entry);
    }
    for (const auto& p : problems)
        out["problems"].push_back({{"device", p.device}, {"source", p.source}, {"message", p.message}});
    std::cout << out.dump(2) << "\n";
}

void run_devices(const DevicesOptions& opts) {
    Core core;
    std::vector<DeviceInfo> devices;
    for (const auto& name : core.get_available_devices()) devices.push_back(describe(core, name));
    const std::vector<RegistryProblem> problems = core.problems();
    if (opts.json)
        print_json(devices, problems);
    else
        print_text(devices);
    std::cout.flush();
    for (const auto& p : problems) warn(describe_problem(p));
}

}  // namespace

void add_devices_command(CLI::App& app) {
    auto opts = std::make_shared<DevicesOptions>();
    CLI::App* cmd = app.add_subcommand("devices", "List the available devices and their properties");
    cmd->add_flag("--json", opts->json, "Print JSON: {\"devices\": [...], \"problems\": [...]}");
    cmd->callback([opts] { run_devices(*opts); });
}

}  // namespace mosaic::cli
