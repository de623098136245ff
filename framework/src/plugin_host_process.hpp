// One mosaic-plugin-host child process serving an isolated plugin, seen from the application: it
// is started with a socket pair, asked one call at a time, and watched. Whatever happens to it (a
// crash, an abort, an allocation past its memory cap, no answer before the deadline) becomes an
// sdk::Error(MOSAIC_ERROR_DEVICE) naming the device, the call and what happened; the process is
// then killed and reaped, and every later call answers the same error without touching it.
#pragma once

#include "plugin_host_protocol.hpp"

#include <nlohmann/json.hpp>

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace mosaic {

// How an isolated registry entry runs (registry.hpp reads them from the entry).
struct IsolationSettings {
    bool isolated = false;
    long timeout_ms = 60000;        // every call but infer: query, compile, properties, ...
    long infer_timeout_ms = 30000;  // infer
    uint64_t memory_limit_mb = 0;   // the host's address-space cap (RLIMIT_AS); 0: half the machine's memory
};

// The mosaic-plugin-host executable: $MOSAIC_PLUGIN_HOST, else <libmosaic's dir>/../bin/.
// Throws std::runtime_error saying where it looked when it is missing.
std::string plugin_host_executable();

class PluginHostProcess {
public:
    // Starts the host on `library` and waits (timeout_ms) for its hello. Throws sdk::Error naming
    // the device when it cannot start or the library does not load there.
    PluginHostProcess(const std::string& library, const std::string& device, const IsolationSettings& settings);
    ~PluginHostProcess();
    PluginHostProcess(const PluginHostProcess&) = delete;
    PluginHostProcess& operator=(const PluginHostProcess&) = delete;

    // The host's hello: plugin_name, plugin_version, abi_major, abi_minor.
    const nlohmann::json& hello() const { return hello_; }
    const IsolationSettings& settings() const { return settings_; }

    // Sends `request` (with `fds`, not closed) and returns the reply's "ok" member. `call` names
    // the call in errors ("compile"). A plugin error is rethrown with the plugin's status code.
    nlohmann::json call(const std::string& call, const nlohmann::json& request, const std::vector<int>& fds,
                        long timeout_ms);
    // For release_*: a host that is gone has nothing left to release, so this never throws.
    void release(const nlohmann::json& request) noexcept;

    bool dead() const;

private:
    [[noreturn]] void fail_locked(const std::string& call, const std::string& what);
    std::string death_locked(const std::string& call, host_protocol::Received how, long timeout_ms,
                             const std::string& detail);
    void kill_and_reap_locked();

    std::string library_, device_;
    IsolationSettings settings_;
    nlohmann::json hello_;
    mutable std::mutex mutex_;  // one call at a time on the connection
    int socket_ = -1;
    pid_t pid_ = -1;
    std::string death_;  // non-empty once the process is gone: what every later call answers
};

}  // namespace mosaic
