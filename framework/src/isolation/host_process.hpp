// One mosaic-plugin-host child process serving an isolated plugin, seen from the application: it
// is started with a socket pair, asked one call at a time per connection, and watched. Whatever happens to it (a
// crash, an abort, an allocation past its memory cap, no answer before the deadline) becomes an
// sdk::Error(MOSAIC_ERROR_DEVICE) naming the device, the call and what happened; the process is
// then killed and reaped, and every later call answers the same error without touching it.
#pragma once

#include "isolation/protocol.hpp"
#include "registry/registry.hpp"

#include <nlohmann/json.hpp>

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace mosaic {


// The mosaic-plugin-host executable: $MOSAIC_PLUGIN_HOST, else <libmosaic's dir>/../bin/.
// Throws std::runtime_error saying where it looked when it is missing.
std::string plugin_host_executable();

// One connection to the host process: the main one (device, model and request management) or a
// request's own (its inferences and profiling), so that requests on several threads run at once in
// the host, each on a thread there. The descriptor closes with the object; calls on one connection
// take turns.
class HostChannel {
public:
    explicit HostChannel(int fd) : fd_(fd) {}
    ~HostChannel();
    HostChannel(const HostChannel&) = delete;
    HostChannel& operator=(const HostChannel&) = delete;

private:
    friend class PluginHostProcess;
    int fd_;
    std::mutex mutex_;  // one call at a time on this connection
};

class PluginHostProcess {
public:
    // Starts the host on `library` and waits (timeout_ms) for its hello. Throws sdk::Error naming
    // the device when it cannot start or the library does not load there.
    PluginHostProcess(const std::string& library, const std::string& device, const IsolationSettings& settings);
    ~PluginHostProcess();
    PluginHostProcess(const PluginHostProcess&) = delete;
    PluginHostProcess& operator=(const PluginHostProcess&) = delete;

    // The host's hello: plugin_name, plugin_version, abi_major, abi_minor, export_model, import_model.
    const nlohmann::json& hello() const { return hello_; }
    const IsolationSettings& settings() const { return settings_; }

    // Sends `call` with its `arguments` (and `fds`, not closed) on the main connection and returns
    // the reply's "ok" member. A plugin error is rethrown with the plugin's status code.
    // Descriptors in the reply are closed, unless `reply_fds` takes them (the caller then owns them).
    nlohmann::json call(host_protocol::Call call, nlohmann::json arguments, const std::vector<int>& fds,
                        long timeout_ms, std::vector<int>* reply_fds = nullptr) {
        return call_on(*main_, call, std::move(arguments), fds, timeout_ms, reply_fds);
    }
    // The same on another connection (a request's). A death seen on any connection is the
    // process's: every later call on any of them answers it.
    nlohmann::json call_on(HostChannel& channel, host_protocol::Call call, nlohmann::json arguments,
                           const std::vector<int>& fds, long timeout_ms, std::vector<int>* reply_fds = nullptr);
    // A new connection: the application's end, and the host's end to send it in a call (the caller
    // closes that descriptor after the call).
    std::pair<std::shared_ptr<HostChannel>, int> open_channel();
    // For release_*: a host that is gone has nothing left to release, so this never throws.
    void release(host_protocol::Call call, nlohmann::json arguments) noexcept;

    bool dead() const;

private:
    // The error of a death seen on a connection (`how`), recorded once for the process: the first
    // connection to see it learns how the process ended (killing it after a timeout).
    std::string record_death(const std::string& call, host_protocol::Received how, long timeout_ms,
                             const std::string& detail);
    void kill_and_reap_locked();

    std::string library_, device_;
    IsolationSettings settings_;
    nlohmann::json hello_;
    std::shared_ptr<HostChannel> main_;
    mutable std::mutex mutex_;  // pid_ and death_; taken inside a channel's mutex, never around one
    pid_t pid_ = -1;
    std::string death_;  // non-empty once the process is gone: what every later call answers
};

}  // namespace mosaic
