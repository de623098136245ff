// The application's side of an isolated plugin ("isolation": "process" in the registry): a
// mosaic_plugin_api table whose every call is forwarded to a mosaic-plugin-host process
// (host_process.hpp) that has the real library loaded. The framework and HETERO call it
// exactly as an in-process table; only a crash or a hang differs, becoming a MOSAIC_ERROR_DEVICE
// status that names the device and what happened.
//
// Lifetimes: a device holds its current host process; each compiled model and request holds the
// process it was made in, so a model compiled before a crash keeps answering that crash's error,
// and the device's next call (the next compile) starts a fresh process, re-creating the device
// there with its registry properties and every property set since.
//
// Threads: each infer request has its own connection to the host, served there by a thread of its
// own, so requests on several threads run at once as in process; the other calls share the main
// connection and are served in turn. Asynchronous inference is left to the framework's own
// worker thread (start_async is NULL), which runs the synchronous round trip. Export and import
// are forwarded when the plugin has them, the blob in shared memory.
#pragma once

#include "isolation/host_process.hpp"
#include "registry/plugin_library.hpp"

#include <mosaic/plugin_abi.h>

#include <memory>
#include <string>

namespace mosaic {

class ProxyPlugin final : public ForwardingPlugin {
public:
    // Starts a first host for `library` to learn the plugin's name and ABI (it stays for the first
    // device). Throws std::runtime_error when the host cannot start or the library does not load.
    ProxyPlugin(std::string library, std::string device, IsolationSettings settings);

    const std::string& plugin_name() const { return plugin_name_; }
    const std::string& plugin_version() const { return plugin_version_; }
    uint16_t abi_minor() const { return abi_minor_; }
    bool has_export() const { return has_export_; }
    bool has_import() const { return has_import_; }

    // The create_device of the proxy table, which needs to know which library and settings.
    mosaic_status* create_device(const char* name, const char* properties_json, mosaic_device** out) override;

    // The forwarding table, every member but create_device (PluginLibrary routes that here).
    // Optional members the proxy does not forward are NULL: start_async (the framework runs infer
    // on a thread) and estimate_cost (the host's size-based estimate: asking the plugin would send
    // the whole graph across once per node); export/import are NULL when the plugin lacks them.
    const mosaic_plugin_api& table() const override { return table_; }

    // A live host process: the one started at load if still unused, else a fresh one.
    std::shared_ptr<PluginHostProcess> start_host();

private:
    std::string library_, device_;
    IsolationSettings settings_;
    std::string plugin_name_, plugin_version_;
    uint16_t abi_minor_ = 0;
    bool has_export_ = false, has_import_ = false;
    std::mutex mutex_;
    std::shared_ptr<PluginHostProcess> first_;  // started at load; taken by the first device
    mosaic_plugin_api table_{};
};

// The library at `path` run in its own process for the registry entry of `device`; each call
// loads it afresh (a host process per entry). Throws std::runtime_error as PluginLibrary::load does.
std::shared_ptr<PluginLibrary> load_isolated(const std::string& path, const std::string& device,
                                             const IsolationSettings& settings);

}  // namespace mosaic
