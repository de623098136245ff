// The plugin registry file: which device names exist and which library backs each.
//
//   {"version": 1,
//    "plugins": [{"device": "CPU", "library": "plugins/libmosaic_cpu_plugin.so",
//                 "properties": {"INFERENCE_NUM_THREADS": 4}}]}
//
// An entry with "isolation": "process" runs its plugin in a mosaic-plugin-host child process
// (isolation/proxy.hpp); "timeout_ms", "infer_timeout_ms" and "memory_limit_mb" tune that process and
// belong to isolated entries only. "isolation": "in-process" is the default.
//
// Library paths are relative to the registry file. Per-device property files live in
// <registry dir>/devices/<DEVICE>.json. A broken entry becomes a problem of its own and never
// hides the other entries; only a file that cannot be read or parsed at all is an error.
#pragma once

#include <mosaic/core.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mosaic {

// How an isolated registry entry runs (read from the entry here; isolation/ runs them).
struct IsolationSettings {
    bool isolated = false;
    long timeout_ms = 60000;        // every call but infer: query, compile, properties, ...
    long infer_timeout_ms = 30000;  // infer
    uint64_t memory_limit_mb = 0;   // the host's address-space cap (RLIMIT_AS); 0: half the machine's memory
};

struct RegistryEntry {
    std::string device;
    std::string library;           // resolved path
    nlohmann::json properties;     // registry "properties" merged with devices/<DEVICE>.json
    IsolationSettings isolation;   // "isolation" and its settings
    std::string source;            // "<registry path> plugins[i]" for messages
    std::string problem;           // non-empty: the entry cannot be used, and why
};

struct RegistryFile {
    std::vector<RegistryEntry> entries;
    std::vector<RegistryProblem> problems;  // entries without a usable device name
};

// Throws std::runtime_error when the file cannot be read or is not a valid registry document.
RegistryFile read_registry(const std::string& path);

// Device names are plain identifiers: '.', ':' and ',' are reserved for ids ("GPU.1") and
// device lists ("HETERO:GPU,CPU"), and "/" (a path separator) because the name also names
// devices/<name>.json. Returns an empty string or what is wrong with `name`.
std::string device_name_problem(const std::string& name);

// The registry installed beside libmosaic: <dir of libmosaic>/mosaic/plugins.json.
std::string default_registry_path();

}  // namespace mosaic
