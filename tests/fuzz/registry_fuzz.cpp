// The plugin registry file (plugins.json): a broken entry must become a problem of its own, and
// every entry kept must name a property file inside devices/ (devices/<name>.json).
#include "fuzz_scratch.hpp"
#include "fuzz_targets.hpp"

#include "registry/registry.hpp"

#include <filesystem>
#include <stdexcept>

namespace mosaic::fuzz {

namespace fs = std::filesystem;

void registry(const uint8_t* data, size_t size) {
    RegistryFile file;
    try {
        file = read_registry(write_scratch("registry/plugins.json", {reinterpret_cast<const char*>(data), size}));
    } catch (const std::runtime_error&) {
        return;  // a file that is not a registry at all, refused naming it
    }
    for (const auto& entry : file.entries) {
        const fs::path device_file = (fs::path("devices") / (entry.device + ".json")).lexically_normal();
        if (device_file.parent_path() != "devices")
            report_finding("registry", "entry " + entry.source + " was kept, and its device file is read from " +
                                           device_file.string() + ", outside devices/");
        if (!entry.properties.is_object())
            report_finding("registry", "entry " + entry.source + " was kept with properties that are not an object");
    }
}

}  // namespace mosaic::fuzz
