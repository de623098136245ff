// The host services a Core hands to each device it creates: logging, and for orchestrators such as
// HETERO, querying and compiling (sub)graphs on the Core's other devices and running them.
#include "runtime/core_impl.hpp"
#include "common/logging.hpp"
#include "runtime/host_memory.hpp"
#include "registry/plugin_json_checks.hpp"
#include "runtime/sync_only_request.hpp"

#include <mosaic/sdk/cost_model.hpp>
#include <mosaic/sdk/status.hpp>

namespace mosaic {

// A model compiled on another device for an orchestrator. Shared by the orchestrator's handle and
// the requests created from it, so requests stay valid whatever order they are released in.
struct HostCompiledModel {
    std::shared_ptr<DeviceHandle> device;
    mosaic_compiled_model* compiled = nullptr;
    ~HostCompiledModel() {
        if (compiled) device->api().release_compiled_model(compiled);
    }
};

struct mosaic_host_compiled_impl {
    std::shared_ptr<HostCompiledModel> model;
};

struct mosaic_host_request_impl {
    std::shared_ptr<HostCompiledModel> model;  // declared first: released last
    std::shared_ptr<DeviceHandle> device;
    mosaic_infer_request* request = nullptr;
    std::unique_ptr<SyncOnlyRequest> fallback;  // async for plugins without start_async
    ~mosaic_host_request_impl() {
        fallback.reset();  // joins its worker before the request goes
        if (request) device->api().release_request(request);
    }
};

// A device kept alive by a compiled model may outlive the Core behind its host table.
std::shared_ptr<Core::Impl> core_of(void* ctx) {
    std::shared_ptr<Core::Impl> c = static_cast<HostContext*>(ctx)->core.lock();
    if (!c)
        throw sdk::Error(MOSAIC_ERROR_GENERAL, "the Core that created this device has been destroyed; keep the Core "
                                               "alive while its devices query or compile on others");
    return c;
}

namespace {

std::shared_ptr<Core::Impl> core(void* ctx) { return core_of(ctx); }
mosaic_host_compiled_impl* compiled(mosaic_host_compiled* c) { return reinterpret_cast<mosaic_host_compiled_impl*>(c); }
mosaic_host_request_impl* request(mosaic_host_request* r) { return reinterpret_cast<mosaic_host_request_impl*>(r); }

// Resolves "GPU.1" / "NAME:LIST" as Core::compile_model does and merges what the device string
// implies (DEVICE_ID, MULTI_DEVICE_PRIORITIES) into the orchestrator's properties.
std::shared_ptr<DeviceHandle> resolve(void* ctx, const char* function, const char* device, const char* properties,
                                      nlohmann::json& merged) {
    std::shared_ptr<Core::Impl> c = core(ctx);
    const DeviceSpec spec = parse_device_spec(device ? device : "");
    merged = plugin_properties_argument(function, properties);
    const nlohmann::json implied = c->call_properties(spec, {});
    for (const auto& [key, value] : implied.items()) merged[key] = value;
    return c->device(spec.name);
}

}  // namespace

mosaic_host_api make_core_host_api(HostContext* context) {
    mosaic_host_api h{};
    h.struct_size = sizeof(mosaic_host_api);
    h.version = (MOSAIC_ABI_VERSION_MAJOR << 16) | MOSAIC_ABI_VERSION_MINOR;
    h.host_context = context;
    h.log = log_from_plugin;
    h.query_device = [](void* ctx, const char* device, mosaic_graph_view graph, const char* props,
                        mosaic_query_sink sink) {
        return sdk::guard([&] {
            nlohmann::json merged;
            auto handle = resolve(ctx, "query_device", device, props, merged);
            sdk::check(handle->api().query(handle->raw(), graph, merged.dump().c_str(), sink),
                       std::string("querying device '") + device + "'");
        });
    };
    h.compile_on_device = [](void* ctx, const char* device, mosaic_graph_view graph, const char* props,
                             mosaic_host_compiled** out) {
        return sdk::guard([&] {
            nlohmann::json merged;
            auto model = std::make_shared<HostCompiledModel>();
            model->device = resolve(ctx, "compile_on_device", device, props, merged);
            model->compiled = model->device->compile(graph, merged);
            *out = reinterpret_cast<mosaic_host_compiled*>(new mosaic_host_compiled_impl{std::move(model)});
        });
    };
    h.release_compiled = [](void*, mosaic_host_compiled* c) { delete compiled(c); };
    h.compiled_property = [](void*, mosaic_host_compiled* c, const char* key, mosaic_sink sink) {
        const HostCompiledModel& m = *compiled(c)->model;
        return m.device->api().compiled_property(m.compiled, key, sink);
    };
    h.create_request = [](void*, mosaic_host_compiled* c, mosaic_host_request** out) {
        return sdk::guard([&] {
            auto result = std::make_unique<mosaic_host_request_impl>();
            result->model = compiled(c)->model;
            result->device = result->model->device;
            result->device->check(result->device->api().create_request(result->model->compiled, &result->request),
                                  "creating an infer request");
            *out = reinterpret_cast<mosaic_host_request*>(result.release());
        });
    };
    h.release_request = [](void*, mosaic_host_request* r) { delete request(r); };
    h.infer = [](void*, mosaic_host_request* r, const mosaic_tensor* in, size_t n_in, const mosaic_tensor* out,
                 size_t n_out) {
        if (mosaic_status* refused = check_request_memory(*request(r)->device, in, n_in, out, n_out)) return refused;
        return request(r)->device->api().infer(request(r)->request, in, n_in, out, n_out);
    };
    h.start_async = [](void*, mosaic_host_request* r, const mosaic_tensor* in, size_t n_in, const mosaic_tensor* out,
                       size_t n_out, mosaic_completion_fn done, void* user_data) -> mosaic_status* {
        auto* req = request(r);
        const auto& device = *req->device;
        if (mosaic_status* refused = check_request_memory(device, in, n_in, out, n_out)) return refused;
        if (device.library().has_start_async())
            return device.api().start_async(req->request, in, n_in, out, n_out, done, user_data);
        // No asynchronous path in that plugin: a worker thread runs its infer(), as the ABI promises.
        mosaic_status* failed = sdk::guard([&] {
            if (!req->fallback) req->fallback = std::make_unique<SyncOnlyRequest>(device.api(), req->request);
        });
        return failed ? failed : req->fallback->start(in, n_in, out, n_out, done, user_data);
    };
    h.request_profiling = [](void*, mosaic_host_request* r, mosaic_profiling_sink sink) {
        return request(r)->device->api().profiling(request(r)->request, sink);
    };
    h.device_properties = [](void* ctx, const char* device, mosaic_sink sink) {
        return sdk::guard([&] {
            auto handle = core(ctx)->device(device);
            nlohmann::json all = nlohmann::json::object();
            for (const auto& entry : handle->get_property("SUPPORTED_PROPERTIES")) {
                const std::string key = entry["name"];  // canonical: DeviceHandle checked the shape
                all[key] = handle->get_property(key);
            }
            sdk::write_to(sink, all.dump());
        });
    };
    h.make_status = make_status_for_plugin;
    h.estimate_cost = [](void* ctx, const char* device, mosaic_graph_view graph, size_t node, mosaic_op_cost* out) {
        return sdk::guard([&] {
            if (!out) throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "estimate_cost: no output given");
            auto handle = core(ctx)->device(parse_device_spec(device ? device : "").name);
            if (handle->library().has_estimate_cost()) {
                mosaic_op_cost cost{};
                cost.struct_size = sizeof(cost);
                mosaic_status* status = handle->api().estimate_cost(handle->raw(), graph, node, &cost);
                if (!status && cost.compute_us >= 0 && cost.bytes_per_us > 0) {
                    out->compute_us = cost.compute_us;
                    out->bytes_per_us = cost.bytes_per_us;
                    return;
                }
                if (status && status->code != MOSAIC_ERROR_NOT_SUPPORTED)
                    handle->check(status, "estimating the cost of a node");
                if (status) status->release(status);
            }
            // The device has no estimate: the documented default model.
            const sdk::OpCost cost = sdk::default_op_cost(sdk::GraphView(graph), node);
            out->compute_us = cost.compute_us;
            out->bytes_per_us = cost.bytes_per_us;
        });
    };
    h.export_compiled = [](void*, mosaic_host_compiled* c, mosaic_sink sink) -> mosaic_status* {
        const HostCompiledModel& m = *compiled(c)->model;
        if (!m.device->library().has_export())
            return host_status(MOSAIC_ERROR_NOT_SUPPORTED, "device '" + m.device->name() + "' cannot export");
        return m.device->api().export_model(m.compiled, sink);
    };
    h.import_on_device = [](void* ctx, const char* device, const void* blob, size_t size, const char* props,
                            mosaic_host_compiled** out) {
        return sdk::guard([&] {
            nlohmann::json merged;
            auto model = std::make_shared<HostCompiledModel>();
            model->device = resolve(ctx, "import_on_device", device, props, merged);
            if (!model->device->library().has_import())
                throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "device '" + model->device->name() + "' cannot import");
            model->device->check(model->device->api().import_model(model->device->raw(), blob, size,
                                                                   merged.dump().c_str(), &model->compiled),
                                 "importing a compiled model");
            *out = reinterpret_cast<mosaic_host_compiled*>(new mosaic_host_compiled_impl{std::move(model)});
        });
    };
    h.compiled_memory = [](void*, mosaic_host_compiled* c, mosaic_compiled_memory* out) -> mosaic_status* {
        const HostCompiledModel& m = *compiled(c)->model;
        if (!m.device->library().has_compiled_memory())
            return host_status(MOSAIC_ERROR_NOT_SUPPORTED, "device '" + m.device->name() + "' reports no memory figures");
        return m.device->api().compiled_memory(m.compiled, out);
    };
    add_memory_services(h);
    return h;
}

}  // namespace mosaic
