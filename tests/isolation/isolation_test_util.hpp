// Helpers of the isolation tests: registries whose entries run plugins in a mosaic-plugin-host
// process ("isolation": "process"), with timeouts short enough that a hang costs a second.
#pragma once

#include "plugins/test_plugins.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace mosaic::test::isolation {

inline fs::path crashing_plugin() { return test_plugin_dir() / "libmosaic_test_crashing_plugin.so"; }
inline fs::path hetero_plugin() { return build_dir() / "lib" / "mosaic" / "plugins" / "libmosaic_hetero_plugin.so"; }
inline fs::path cpu_plugin() { return build_dir() / "lib" / "mosaic" / "plugins" / "libmosaic_cpu_plugin.so"; }

// Long enough for a leaking plugin to fill its memory cap on a loaded machine (with 1.5 s, LEAK in
// query timed out instead under ctest -j2 on 2 cores); each HANG case waits its whole timeout.
constexpr int kTimeoutMs = 5000;
constexpr int kInferTimeoutMs = 4000;
constexpr int kMemoryLimitMb = 1024;

// The mosaic-plugin-host of the build, for libmosaic to start (it looks beside itself otherwise,
// which is the same folder in a build tree; set explicitly so a stale install cannot be picked).
inline void use_build_plugin_host() {
    setenv("MOSAIC_PLUGIN_HOST", (build_dir() / "bin" / "mosaic-plugin-host").c_str(), 1);
}

// An entry for `device` on `library`, isolated with the tests' short timeouts and memory cap.
inline nlohmann::json isolated_entry(TempRegistry& registry, const std::string& device, const fs::path& library) {
    return {{"device", device},
            {"library", fs::relative(library, registry.dir()).string()},
            {"isolation", "process"},
            {"timeout_ms", kTimeoutMs},
            {"infer_timeout_ms", kInferTimeoutMs},
            {"memory_limit_mb", kMemoryLimitMb}};
}

// Sanitizers reserve terabytes of address space, so the memory cap is not applied under them
// (framework/src/isolation/host_process.cpp) and a leaking plugin would take the machine's memory instead.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

}  // namespace mosaic::test::isolation
