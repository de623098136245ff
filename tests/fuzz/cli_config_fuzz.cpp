// The --config file parser (benchmark_app's -load_config format) for a plain device and for HETERO,
// which takes the sections of other devices as DEVICE_PROPERTIES.
#include "fuzz_targets.hpp"

#include "tools/mosaic/config_file.hpp"

#include <stdexcept>

namespace mosaic::fuzz {

void cli_config(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (const char* device : {"REFERENCE", "HETERO:ACCEL,REFERENCE"}) {
        try {
            cli::parse_config(text, device, "fuzz.json");
        } catch (const std::runtime_error&) {
            // a usage error naming the file
        }
    }
}

}  // namespace mosaic::fuzz
