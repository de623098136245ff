// Loading a plugin library with Boost.DLL and negotiating the ABI with it. A library is loaded once
// per process however many registry entries and Cores use it, and unloaded when the last device
// created from it is gone. An isolated entry's library is loaded in a mosaic-plugin-host process
// instead, and this object holds the table that forwards to it (isolation/proxy.hpp).
#pragma once

#include <mosaic/plugin_abi.h>

#include <boost/dll/shared_library.hpp>

#include <memory>
#include <string>

namespace mosaic {

// A plugin whose table is not a loaded library's own: an isolated entry's proxy, which forwards
// each call to the process that loaded the library (isolation/proxy.hpp).
class ForwardingPlugin {
public:
    virtual ~ForwardingPlugin() = default;
    // The table: every member but create_device, which goes through create_device below.
    virtual const mosaic_plugin_api& table() const = 0;
    virtual mosaic_status* create_device(const char* name, const char* properties_json, mosaic_device** out) = 0;
};

class PluginLibrary {
public:
    // Loads (or finds already loaded) the library at `path`. Throws std::runtime_error saying
    // what is wrong: missing file, not loadable, no entry symbol, refused, ABI major mismatch.
    static std::shared_ptr<PluginLibrary> load(const std::string& path);
    // The library at `path` reached through `plugin` (an isolated entry's, made afresh per entry).
    static std::shared_ptr<PluginLibrary> forwarding(const std::string& path, std::unique_ptr<ForwardingPlugin> plugin);
    // Throws std::runtime_error "plugin library '<path>' <why>".
    [[noreturn]] static void refuse(const std::string& path, const std::string& why);

    // Creates a device through the plugin's table, or through the forwarding plugin.
    mosaic_status* create_device(const mosaic_host_api* host, const std::string& name,
                                 const std::string& properties_json, mosaic_device** out) const;
    bool isolated() const { return forwarding_ != nullptr; }

    const std::string& path() const { return path_; }
    const mosaic_plugin_api& api() const { return *api_; }
    bool has_start_async() const { return api_->start_async != nullptr; }
    bool has_export() const { return api_->export_model != nullptr; }
    bool has_import() const { return api_->import_model != nullptr; }
    bool has_device_ids() const { return api_->device_ids != nullptr; }
    bool has_estimate_cost() const {
        return MOSAIC_HAS_MEMBER(mosaic_plugin_api, api_, estimate_cost) && api_->estimate_cost != nullptr;
    }
    // ABI 1.3. Buffers need all four members (allocate, release, can_copy, copy); a plugin may
    // still decline them at run time (DeviceHandle::has_buffers asks).
    bool has_memory_info() const {
        return MOSAIC_HAS_MEMBER(mosaic_plugin_api, api_, memory_info) && api_->memory_info != nullptr;
    }
    bool has_compiled_memory() const {
        return MOSAIC_HAS_MEMBER(mosaic_plugin_api, api_, compiled_memory) && api_->compiled_memory != nullptr;
    }
    bool has_buffers() const {
        return MOSAIC_HAS_MEMBER(mosaic_plugin_api, api_, copy) && api_->allocate_buffer && api_->release_buffer &&
               api_->can_copy && api_->copy;
    }

    // ABI 1.4: an orchestrator's plan of a model.
    bool has_query_plan() const {
        return MOSAIC_HAS_MEMBER(mosaic_plugin_api, api_, query_plan) && api_->query_plan != nullptr;
    }

    ~PluginLibrary();

private:
    PluginLibrary() = default;
    std::string path_;
    boost::dll::shared_library library_;
    const mosaic_plugin_api* api_ = nullptr;
    std::unique_ptr<ForwardingPlugin> forwarding_;  // isolated: api_ points at its table
};

// Process-wide host services handed to a plugin's entry point (logging and statuses; the
// orchestration members answer that they need a device's own host table).
const mosaic_host_api* process_host_api();

// A status allocated by the host for a plugin to return or for the host's own use.
mosaic_status* host_status(mosaic_status_code code, const std::string& message);

// The `make_status` member of every host table handed to plugins.
mosaic_status* make_status_for_plugin(void* host_context, mosaic_status_code code, const char* message);

}  // namespace mosaic
