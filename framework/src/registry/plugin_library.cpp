#include "registry/plugin_library.hpp"

#include "common/logging.hpp"

#include <mosaic/sdk/status.hpp>

#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>

namespace mosaic {

namespace {

std::string version_text(uint32_t major, uint32_t minor) { return std::to_string(major) + "." + std::to_string(minor); }


void check_table(const std::string& path, const mosaic_plugin_api* api) {
    if (!api) PluginLibrary::refuse(path, "returned no function table from mosaic_plugin_entry");
    if (api->struct_size < offsetof(mosaic_plugin_api, abi_minor) + sizeof(api->abi_minor))
        PluginLibrary::refuse(path, "returned a function table of " + std::to_string(api->struct_size) + " bytes, too small to hold a version");
    if (api->abi_major != MOSAIC_ABI_VERSION_MAJOR)
        PluginLibrary::refuse(path, "was built for plugin ABI " + version_text(api->abi_major, api->abi_minor) + " but this Mosaic has ABI " +
                         version_text(MOSAIC_ABI_VERSION_MAJOR, MOSAIC_ABI_VERSION_MINOR) +
                         "; the ABI major version must match: rebuild the plugin against this Mosaic's plugin_sdk");
    if (api->struct_size < MOSAIC_PLUGIN_API_SIZE_1_0)
        PluginLibrary::refuse(path, "returned a function table of " + std::to_string(api->struct_size) + " bytes; ABI " +
                         version_text(api->abi_major, api->abi_minor) + " needs at least " +
                         std::to_string(MOSAIC_PLUGIN_API_SIZE_1_0));
    const struct { const void* fn; const char* name; } required[] = {
        {reinterpret_cast<const void*>(api->create_device), "create_device"},
        {reinterpret_cast<const void*>(api->release_device), "release_device"},
        {reinterpret_cast<const void*>(api->set_properties), "set_properties"},
        {reinterpret_cast<const void*>(api->get_property), "get_property"},
        {reinterpret_cast<const void*>(api->query), "query"},
        {reinterpret_cast<const void*>(api->compile), "compile"},
        {reinterpret_cast<const void*>(api->release_compiled_model), "release_compiled_model"},
        {reinterpret_cast<const void*>(api->compiled_property), "compiled_property"},
        {reinterpret_cast<const void*>(api->create_request), "create_request"},
        {reinterpret_cast<const void*>(api->release_request), "release_request"},
        {reinterpret_cast<const void*>(api->infer), "infer"},
        {reinterpret_cast<const void*>(api->profiling), "profiling"},
    };
    for (const auto& r : required)
        if (!r.fn) PluginLibrary::refuse(path, std::string("leaves the required function '") + r.name + "' empty");
}

std::mutex& cache_mutex() {
    static std::mutex m;
    return m;
}

std::map<std::string, std::weak_ptr<PluginLibrary>>& cache() {
    static std::map<std::string, std::weak_ptr<PluginLibrary>> c;
    return c;
}

}  // namespace

mosaic_status* host_status(mosaic_status_code code, const std::string& message) {
    return sdk::make_status(code, message);
}

mosaic_status* make_status_for_plugin(void*, mosaic_status_code code, const char* message) {
    return host_status(code, message ? message : "");
}

namespace {
mosaic_status* no_core() {
    return host_status(MOSAIC_ERROR_NOT_SUPPORTED,
                       "orchestration services need the host table given to create_device, not the entry point's");
}
}  // namespace

const mosaic_host_api* process_host_api() {
    static const mosaic_host_api api = [] {
        mosaic_host_api h{};
        h.struct_size = sizeof(mosaic_host_api);
        h.version = (MOSAIC_ABI_VERSION_MAJOR << 16) | MOSAIC_ABI_VERSION_MINOR;
        h.host_context = nullptr;
        h.log = log_from_plugin;
        h.query_device = [](void*, const char*, mosaic_graph_view, const char*, mosaic_query_sink) { return no_core(); };
        h.compile_on_device = [](void*, const char*, mosaic_graph_view, const char*, mosaic_host_compiled**) {
            return no_core();
        };
        h.make_status = make_status_for_plugin;
        // The remaining orchestration members decline: they need a Core's table.
        h.release_compiled = [](void*, mosaic_host_compiled*) {};
        h.release_request = [](void*, mosaic_host_request*) {};
        h.compiled_property = [](void*, mosaic_host_compiled*, const char*, mosaic_sink) { return no_core(); };
        h.create_request = [](void*, mosaic_host_compiled*, mosaic_host_request**) { return no_core(); };
        h.infer = [](void*, mosaic_host_request*, const mosaic_tensor*, size_t, const mosaic_tensor*, size_t) {
            return no_core();
        };
        h.start_async = [](void*, mosaic_host_request*, const mosaic_tensor*, size_t, const mosaic_tensor*, size_t,
                           mosaic_completion_fn, void*) { return no_core(); };
        h.request_profiling = [](void*, mosaic_host_request*, mosaic_profiling_sink) { return no_core(); };
        h.device_properties = [](void*, const char*, mosaic_sink) { return no_core(); };
        h.estimate_cost = [](void*, const char*, mosaic_graph_view, size_t, mosaic_op_cost*) { return no_core(); };
        h.export_compiled = [](void*, mosaic_host_compiled*, mosaic_sink) { return no_core(); };
        h.import_on_device = [](void*, const char*, const void*, size_t, const char*, mosaic_host_compiled**) {
            return no_core();
        };
        h.memory_info = [](void*, const char*, mosaic_memory_info*) { return no_core(); };
        h.compiled_memory = [](void*, mosaic_host_compiled*, mosaic_compiled_memory*) { return no_core(); };
        h.allocate_buffer = [](void*, const char*, size_t, void**) { return no_core(); };
        h.release_buffer = [](void*, const char*, void*) {};
        h.copy_path = [](void*, const char*, const char*) { return MOSAIC_COPY_HOST_STAGED; };
        h.copy = [](void*, const mosaic_tensor*, const mosaic_tensor*, mosaic_completion_fn, void*) { return no_core(); };
        return h;
    }();
    return &api;
}

std::shared_ptr<PluginLibrary> PluginLibrary::load(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        PluginLibrary::refuse(path, "does not exist; check the \"library\" path (relative paths are resolved against the registry file)");
    const std::string key = std::filesystem::weakly_canonical(path, ec).string();

    std::lock_guard<std::mutex> lock(cache_mutex());
    if (auto existing = cache()[key].lock()) return existing;

    std::shared_ptr<PluginLibrary> lib(new PluginLibrary());
    lib->path_ = path;
    try {
        lib->library_.load(path, boost::dll::load_mode::rtld_lazy | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
        PluginLibrary::refuse(path, std::string("cannot be loaded as a shared library: ") + e.what());
    }
    if (!lib->library_.has(MOSAIC_PLUGIN_ENTRY_SYMBOL))
        PluginLibrary::refuse(path, "does not export the entry symbol " MOSAIC_PLUGIN_ENTRY_SYMBOL
                     "; is it a Mosaic plugin? Define it with MOSAIC_DEFINE_PLUGIN or export it as extern \"C\"");
    auto entry = lib->library_.get<std::remove_pointer_t<mosaic_plugin_entry_fn>>(MOSAIC_PLUGIN_ENTRY_SYMBOL);
    const mosaic_plugin_api* api = nullptr;
    if (mosaic_status* status = entry(process_host_api(), &api)) {
        std::string message = status->message ? status->message : "(no message)";
        status->release(status);
        PluginLibrary::refuse(path, "refused to load: " + message);
    }
    check_table(path, api);
    lib->api_ = api;
    cache()[key] = lib;
    return lib;
}

std::shared_ptr<PluginLibrary> PluginLibrary::forwarding(const std::string& path, std::unique_ptr<ForwardingPlugin> plugin) {
    std::shared_ptr<PluginLibrary> lib(new PluginLibrary());
    lib->path_ = path;
    lib->forwarding_ = std::move(plugin);
    lib->api_ = &lib->forwarding_->table();
    return lib;
}

mosaic_status* PluginLibrary::create_device(const mosaic_host_api* host, const std::string& name,
                                            const std::string& properties_json, mosaic_device** out) const {
    if (forwarding_) return forwarding_->create_device(name.c_str(), properties_json.c_str(), out);
    return api_->create_device(host, name.c_str(), properties_json.c_str(), out);
}

void PluginLibrary::refuse(const std::string& path, const std::string& why) {
    throw std::runtime_error("plugin library '" + path + "' " + why);
}

PluginLibrary::~PluginLibrary() = default;

}  // namespace mosaic
