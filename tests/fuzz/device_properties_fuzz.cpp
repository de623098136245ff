// A device property file (devices/REFERENCE.json beside a registry) read by Core and handed to the
// real REFERENCE plugin: whatever the file holds, it may break only its own device, never Core or
// the plugin, and a device that loads answers for each property it lists.
#include "fuzz_scratch.hpp"
#include "fuzz_targets.hpp"

#include <mosaic/core.hpp>

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace mosaic::fuzz {

namespace {

// A registry of one device, REFERENCE, backed by the build's plugin: beside the registry that
// MOSAIC_PLUGINS names (ctest and scripts/fuzz.sh set it; this target links libmosaic's objects, so
// there is no libmosaic beside which to look). The plugin is also opened here and never closed, so
// each input's Core finds it loaded instead of loading it.
std::string reference_registry() {
    const char* build_registry = std::getenv("MOSAIC_PLUGINS");
    if (!build_registry || !*build_registry)
        throw std::logic_error("set MOSAIC_PLUGINS to the build's registry (BUILD/lib/mosaic/plugins.json)");
    const std::filesystem::path plugin =
        std::filesystem::path(build_registry).parent_path() / "plugins" / "libmosaic_reference_plugin.so";
    if (!dlopen(plugin.c_str(), RTLD_NOW))
        throw std::logic_error("cannot load " + plugin.string() + " (build mosaic_reference_plugin): " + dlerror());
    const nlohmann::json doc = {{"version", 1}, {"plugins", {{{"device", "REFERENCE"}, {"library", plugin.string()}}}}};
    return write_scratch("device_properties/plugins.json", doc.dump());
}

}  // namespace

void device_properties(const uint8_t* data, size_t size) {
    static const std::string registry = reference_registry();
    write_scratch("device_properties/devices/REFERENCE.json", {reinterpret_cast<const char*>(data), size});
    Core core(registry);  // not caught: the registry itself is valid, so nothing may escape
    const auto devices = core.get_available_devices();
    if (devices.empty()) {
        if (core.problems().empty()) report_finding("device_properties", "REFERENCE is missing and no problem says why");
        return;
    }
    for (const auto& property : core.get_property("REFERENCE", "SUPPORTED_PROPERTIES"))  // [{"name": ..., "mutable": ...}]
        core.get_property("REFERENCE", property.at("name").get<std::string>());
}

}  // namespace mosaic::fuzz
