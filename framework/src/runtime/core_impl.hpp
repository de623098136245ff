// Core's state: the registry entries, the devices loaded from them, and the host services those
// devices get. Shared by core.cpp, host_services.cpp and the compiled-model code.
#pragma once

#include <mosaic/core.hpp>

#include "runtime/device_handle.hpp"
#include "graph/graph_view.hpp"
#include "registry/registry.hpp"

#include <mutex>

namespace mosaic {

struct HostContext {
    mosaic_host_api table{};
    std::weak_ptr<Core::Impl> core;
};

// "GPU" / "GPU.1" / "HETERO:GPU,CPU", split.
struct DeviceSpec {
    std::string name;  // registry device name
    std::string id;    // after '.', may be empty
    std::string list;  // after ':', may be empty
};
DeviceSpec parse_device_spec(const std::string& text);

class Core::Impl {
public:
    explicit Impl(std::string registry_path);

    const std::string& registry_path() const { return registry_path_; }

    // The loaded device for a registry name (loading it on first use). Throws with the entry's
    // problem when it is broken, or "not registered" listing the known devices.
    std::shared_ptr<DeviceHandle> device(const std::string& name);

    std::vector<std::string> available_devices();
    std::vector<RegistryProblem> problems() const;
    void register_plugin(const std::string& library, const std::string& name, const nlohmann::json& properties);
    void unload_plugin(const std::string& name);

    // Properties for a call on `spec`: DEVICE_ID and MULTI_DEVICE_PRIORITIES from the device string
    // added to what the caller gave.
    nlohmann::json call_properties(const DeviceSpec& spec, const AnyMap& given);

    // For an orchestrator (a device declaring MULTI_DEVICE_PRIORITIES), which forwards keys it does
    // not know to its devices: refuses, when set, a key none of those devices declares and a
    // DEVICE_PROPERTIES section for a device outside the list or not registered.
    void check_orchestrator_keys(const DeviceSpec& spec, DeviceHandle& orchestrator, const AnyMap& given);

    // The host services handed to this Core's devices. Devices (kept alive by compiled models) may
    // outlive the Core, so the table lives in a shared HostContext that only weakly refers to it.
    const mosaic_host_api* host_api() const { return &host_->table; }
    void bind_host(const std::shared_ptr<Impl>& self);

private:
    struct Entry {
        RegistryEntry registry;
        std::shared_ptr<DeviceHandle> handle;
    };
    Entry* find(const std::string& name);
    void load(Entry& entry);

    std::string registry_path_;
    mutable std::recursive_mutex mutex_;  // recursive: orchestrators call back into Core while loading
    std::vector<Entry> entries_;
    std::vector<RegistryProblem> file_problems_;
    std::shared_ptr<HostContext> host_;
};

// Host services bound to one Core (host_services.cpp); host_context points at `context`.
mosaic_host_api make_core_host_api(HostContext* context);
// The Core behind a host table's context; throws sdk::Error when that Core is gone.
std::shared_ptr<Core::Impl> core_of(void* host_context);

nlohmann::json to_json(const AnyMap& map);

}  // namespace mosaic
