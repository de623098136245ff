// Core: the entry point of an application. Owns the plugin registry and the loaded devices.
// Thread-safe: every member may be called from several threads.
#pragma once

#include <mosaic/export.hpp>

#include <mosaic/compiled_model.hpp>
#include <mosaic/remote_context.hpp>
#include <mosaic/model.hpp>
#include <mosaic/properties.hpp>

#include <istream>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace mosaic {

// A registry entry that cannot be used, and why. Other devices keep working.
struct RegistryProblem {
    std::string device;   // may be empty when the entry has no device name
    std::string source;   // the registry file, or "register_plugin"
    std::string message;  // what is wrong and what to do
};

// Op friendly name -> device (OpenVINO's ov::SupportedOpsMap).
using SupportedOpsMap = std::map<std::string, std::string>;

// query_model_details: the affinity map with Mosaic's explanations.
struct QueryResult {
    std::map<std::string, std::string> affinity;  // op friendly name -> device
    // Ops no device supports, with each device's reason: name -> (device -> reason).
    std::map<std::string, std::map<std::string, std::string>> unsupported;
    // From an orchestrator (HETERO): per op, why it went where it did, e.g. which higher-priority
    // devices were passed over and their reasons. Empty for plain devices.
    std::map<std::string, std::string> explanation;
    // From an orchestrator: its plan of the model as a whole, without compiling it (HETERO: per
    // device the ops, the bytes of weights, state, activations and crossings against its memory,
    // the predicted time; per crossing the bytes; docs/hetero.md). Null for plain devices;
    // {"error": why} where the orchestrator cannot make one (what compile would refuse).
    PropertyValue plan;
};

// What a device's plugin library declares through the plugin ABI (the counterpart of OpenVINO's
// Core::get_versions): for `mosaic verify-plugin` and for diagnostics.
struct PluginInfo {
    std::string library;                 // the resolved library path
    std::string name, version;           // the table's plugin_name and plugin_version
    unsigned abi_major = 0, abi_minor = 0;
    size_t table_size = 0;               // the table's struct_size
    // The optional members the table fills: device_ids, export_model, import_model, start_async,
    // estimate_cost, and of ABI 1.3 memory_info, compiled_memory, buffers (allocate_buffer with
    // release_buffer, can_copy and copy) (a filled member may still decline at run time with
    // NOT_SUPPORTED).
    std::vector<std::string> optional_members;
};

class MOSAIC_API Core {
public:
    // Reads the registry named by $MOSAIC_PLUGINS, else the installed one beside libmosaic
    // (<libdir>/mosaic/plugins.json). A registry that is not valid JSON throws, naming the file.
    Core();
    explicit Core(const std::string& registry_path);
    ~Core();
    Core(const Core&) = delete;
    Core& operator=(const Core&) = delete;

    const std::string& registry_path() const;

    // Devices that load, with ids ("GPU.0", "GPU.1") when a plugin reports several instances.
    // Loads every registered plugin; broken entries are left out and listed by problems().
    std::vector<std::string> get_available_devices();
    std::vector<RegistryProblem> problems() const;

    // Adds a device backed by a plugin library (absolute, or relative to the working directory).
    // The plugin is loaded at once so a bad library is reported here.
    void register_plugin(const std::string& library_path, const std::string& device_name,
                         const AnyMap& properties = {});
    // Forgets the device; the library is unloaded once no compiled model uses it.
    void unload_plugin(const std::string& device_name);

    // Checked when set: a key the device does not know, or a value it refuses, throws naming both.
    void set_property(const std::string& device, const AnyMap& properties);
    template <typename... Props>
    void set_property(const std::string& device, Props&&... properties) {
        set_property(device, make_properties(std::forward<Props>(properties)...));
    }
    // DEVICE_MEMORY, for a device with memory of its own (ABI 1.3), is answered by the host for the
    // instance named ("GPU.1"): {"buffers": whether it hands out buffers, and where the plugin
    // reports them "total_bytes", "available_bytes", "used_bytes", "shares_host_memory"}; a device whose tensors are host
    // memory (CPU) throws saying so.
    PropertyValue get_property(const std::string& device, const std::string& key);
    // The memory of a device ("GPU", "GPU.1"; remote_context.hpp), loading its plugin if needed.
    RemoteContext get_default_context(const std::string& device);
    // Loads the device's plugin if needed; throws as compile_model does when it cannot be loaded.
    PluginInfo get_plugin_info(const std::string& device);
    template <typename T>
    T get_property(const std::string& device, const Property<T>& key) {
        return get_property(device, std::string(key)).template get<T>();
    }

    // IR (.xml with its .bin) or, by content, another supported format.
    std::shared_ptr<Model> read_model(const std::string& path, const std::string& weights_path = "") const;

    // Which device runs each op, from the devices' capabilities: affinities set on the model's ops
    // are not consulted (as OpenVINO documents), so the result can seed them. Ops no device
    // supports are left out.
    SupportedOpsMap query_model(const std::shared_ptr<const Model>& model, const std::string& device,
                                const AnyMap& properties = {});
    template <typename... Props>
    SupportedOpsMap query_model(const std::shared_ptr<const Model>& model, const std::string& device,
                                Props&&... properties) {
        return query_model(model, device, make_properties(std::forward<Props>(properties)...));
    }
    // The same query with each device's reasons for the ops it refuses and, from HETERO, why each
    // op went where it did.
    QueryResult query_model_details(const std::shared_ptr<const Model>& model, const std::string& device,
                                    const AnyMap& properties = {});

    CompiledModel compile_model(const std::shared_ptr<const Model>& model, const std::string& device,
                                const AnyMap& properties = {});
    CompiledModel compile_model(const std::string& model_path, const std::string& device,
                                const AnyMap& properties = {});
    // compile_model(model, "HETERO", device::priorities("GPU", "CPU"), enable_profiling(true), ...)
    // (The first property is deduced so that a braced list, {{"KEY", value}, ...}, stays an AnyMap.)
    template <typename M, typename First, typename... Props,
              typename = std::enable_if_t<std::is_convertible_v<First, Property_pair>>>
    CompiledModel compile_model(const M& model, const std::string& device, First&& first, Props&&... rest) {
        return compile_model(model, device, make_properties(std::forward<First>(first), std::forward<Props>(rest)...));
    }
    CompiledModel import_model(std::istream& blob, const std::string& device, const AnyMap& properties = {});

    class MOSAIC_INTERNAL Impl;

private:
    // query_model_details; `with_plan` false skips the orchestrator's plan (query_model, bodies).
    MOSAIC_INTERNAL QueryResult query(const std::shared_ptr<const Model>& model, const std::string& device,
                                      const AnyMap& properties, bool with_plan);

    std::shared_ptr<Impl> impl_;
};

}  // namespace mosaic
