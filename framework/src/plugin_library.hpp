// Loading a plugin library with Boost.DLL and negotiating the ABI with it. A library is loaded once
// per process however many registry entries and Cores use it, and unloaded when the last device
// created from it is gone.
#pragma once

#include <mosaic/plugin_abi.h>

#include <boost/dll/shared_library.hpp>

#include <memory>
#include <string>

namespace mosaic {

class PluginLibrary {
public:
    // Loads (or finds already loaded) the library at `path`. Throws std::runtime_error saying
    // what is wrong: missing file, not loadable, no entry symbol, refused, ABI major mismatch.
    static std::shared_ptr<PluginLibrary> load(const std::string& path);

    const std::string& path() const { return path_; }
    const mosaic_plugin_api& api() const { return *api_; }
    bool has_start_async() const { return api_->start_async != nullptr; }
    bool has_export() const { return api_->export_model != nullptr; }
    bool has_import() const { return api_->import_model != nullptr; }
    bool has_device_ids() const { return api_->device_ids != nullptr; }
    bool has_estimate_cost() const {
        return MOSAIC_HAS_MEMBER(mosaic_plugin_api, api_, estimate_cost) && api_->estimate_cost != nullptr;
    }

    ~PluginLibrary();

private:
    PluginLibrary() = default;
    std::string path_;
    boost::dll::shared_library library_;
    const mosaic_plugin_api* api_ = nullptr;
};

// Process-wide host services handed to a plugin's entry point (logging and statuses; the
// orchestration members answer that they need a device's own host table).
const mosaic_host_api* process_host_api();

// A status allocated by the host for a plugin to return or for the host's own use.
mosaic_status* host_status(mosaic_status_code code, const std::string& message);

// The `make_status` member of every host table handed to plugins.
mosaic_status* make_status_for_plugin(void* host_context, mosaic_status_code code, const char* message);

}  // namespace mosaic
