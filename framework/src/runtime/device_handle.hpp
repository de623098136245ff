// A device instance created by a plugin for one registry entry of one Core, and the C++ face of
// the plugin ABI calls on it. Compiled models hold a shared_ptr to it, so the device and its
// library outlive unload_plugin() until their last compiled model is gone.
#pragma once

#include "registry/plugin_library.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace mosaic {

struct HostContext;

struct PluginSender;

class DeviceHandle {
public:
    // Creates the device; throws std::runtime_error naming the device when the plugin refuses.
    // `host` holds the host table given to the device; it is kept alive as long as the device.
    DeviceHandle(std::shared_ptr<PluginLibrary> library, std::shared_ptr<const HostContext> host,
                 const std::string& name, const nlohmann::json& properties);
    ~DeviceHandle();
    DeviceHandle(const DeviceHandle&) = delete;
    DeviceHandle& operator=(const DeviceHandle&) = delete;

    const std::string& name() const { return name_; }
    const PluginLibrary& library() const { return *library_; }
    const mosaic_plugin_api& api() const { return library_->api(); }
    mosaic_device* raw() const { return device_; }

    // The plugin and device, for errors about what the plugin sent.
    PluginSender sender() const;

    std::vector<std::string> ids() const;
    void set_properties(const nlohmann::json& properties);
    // The value the plugin sends, checked (registry/plugin_json_checks.hpp); SUPPORTED_PROPERTIES is canonical:
    // an array of {"name", "mutable"} objects.
    nlohmann::json get_property(const std::string& key) const;

    // Per node of the view: supported, or the reason.
    struct Support {
        bool supported = false;
        std::string reason;
    };
    std::vector<Support> query(mosaic_graph_view graph, size_t node_count, const nlohmann::json& properties) const;
    // The device's plan of the model (ABI 1.4 query_plan), a JSON object; null where the device
    // has none (a single device, an older plugin). Its errors (a model that does not fit) throw,
    // whatever their code.
    nlohmann::json query_plan(mosaic_graph_view graph, const nlohmann::json& properties) const;
    mosaic_compiled_model* compile(mosaic_graph_view graph, const nlohmann::json& properties) const;

    // Device memory (ABI 1.3) of instance `id` ("" for the default one). memory_info is false where
    // the plugin has no figure. has_buffers: the table has the buffer members and the plugin says
    // they reach host memory (can_copy(NULL), which a C++-layer plugin without buffers declines);
    // when not, the device's tensors are host memory, allocate_buffer throws sdk::Error
    // NOT_SUPPORTED and can_copy is false.
    bool memory_info(const std::string& id, mosaic_memory_info& out) const;
    bool has_buffers(const std::string& id) const;
    void* allocate_buffer(const std::string& id, size_t bytes) const;
    void release_buffer(const std::string& id, void* buffer) const;
    bool can_copy(const std::string& id, const char* other_memory_device) const;
    void copy(const std::string& id, const mosaic_tensor& src, const mosaic_tensor& dst) const;

    // Throws sdk::Error (a std::runtime_error) with the status's code and the message
    // "<context> on device '<name>': <status message>" for an error status.
    void check(mosaic_status* status, const std::string& context) const;

private:
    std::shared_ptr<PluginLibrary> library_;
    std::shared_ptr<const HostContext> host_;
    std::string name_;
    mosaic_device* device_ = nullptr;
};

}  // namespace mosaic
