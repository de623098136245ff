#include "isolation/proxy.hpp"

#include "isolation/shared_memory.hpp"
#include "isolation/wire_graph.hpp"

#include <mosaic/sdk/status.hpp>

#include <cstring>
#include <filesystem>
#include <string_view>
#include <unistd.h>

// The proxy's objects are what the framework holds as mosaic_device / mosaic_compiled_model /
// mosaic_infer_request; the ids name the real objects inside the host process.
struct mosaic_device {
    mosaic::ProxyPlugin* plugin;
    std::string name;
    nlohmann::json properties;  // registry + device file + every set_properties: replayed on a fresh host
    std::mutex mutex;
    std::shared_ptr<mosaic::PluginHostProcess> host;
    uint64_t remote = 0;
};

struct mosaic_compiled_model {
    std::shared_ptr<mosaic::PluginHostProcess> host;
    uint64_t remote = 0;
    std::string device;
};

struct mosaic_infer_request {
    std::shared_ptr<mosaic::PluginHostProcess> host;
    std::shared_ptr<mosaic::HostChannel> channel;  // the request's own connection: requests run at once
    uint64_t remote = 0;
    std::string device;
    mosaic::SharedMemory arena;  // inputs then outputs; sent to the host once, when (re)made
    bool arena_sent = false;
};

namespace mosaic {

namespace {

using Json = nlohmann::json;
using host_protocol::Call;

// The host process of `device` and the device's id in it, starting a fresh one (and re-creating the
// device there) when there is none or the last one died.
std::pair<std::shared_ptr<PluginHostProcess>, uint64_t> live(mosaic_device* d) {
    std::lock_guard<std::mutex> lock(d->mutex);
    if (!d->host || d->host->dead()) {
        auto host = d->plugin->start_host();
        const Json reply = host->call(Call::create_device, {{"name", d->name}, {"properties", d->properties}}, {},
                                      host->settings().timeout_ms);
        d->host = std::move(host);
        d->remote = reply.at("device").get<uint64_t>();
    }
    return {d->host, d->remote};
}

long timeout(const std::shared_ptr<PluginHostProcess>& host) { return host->settings().timeout_ms; }

// A device-level call: {"device": id, ...extra}, returning the reply.
Json device_call(mosaic_device* d, Call call, Json extra, const std::vector<int>& fds = {}) {
    auto [host, remote] = live(d);
    extra["device"] = remote;
    return host->call(call, std::move(extra), fds, timeout(host));
}

Json properties_argument(const char* properties_json) {
    return properties_json && *properties_json ? Json::parse(properties_json) : Json::object();
}

size_t aligned(size_t n) { return (n + 63) / 64 * 64; }

// Lays `count` tensors out in the arena from `offset` on; returns their descriptions.
Json describe(const mosaic_tensor* tensors, size_t count, size_t& offset) {
    Json out = Json::array();
    for (size_t i = 0; i < count; ++i) {
        const mosaic_tensor& t = tensors[i];
        if (t.memory_kind != MOSAIC_MEMORY_HOST)
            throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED,
                             "a tensor in device memory cannot cross to a plugin isolated in its own process; give it "
                             "host memory");
        out.push_back({{"type", static_cast<int>(t.element_type)},
                       {"dims", std::vector<int64_t>(t.dims, t.dims + t.rank)},
                       {"offset", offset},
                       {"byte_size", t.byte_size}});
        offset += aligned(t.byte_size);
    }
    return out;
}

mosaic_status* proxy_infer(mosaic_infer_request* r, const mosaic_tensor* inputs, size_t input_count,
                           const mosaic_tensor* outputs, size_t output_count) {
    return sdk::guard([&] {
        size_t bytes = 0;
        Json in = describe(inputs, input_count, bytes);
        Json out = describe(outputs, output_count, bytes);
        if (!r->arena.data() || r->arena.size() < bytes) {
            r->arena = SharedMemory::create(bytes, "the tensors of a request on device '" + r->device + "'");
            r->arena_sent = false;
        }
        for (size_t i = 0; i < input_count; ++i)
            if (inputs[i].byte_size)
                std::memcpy(r->arena.data() + in[i]["offset"].get<size_t>(), inputs[i].data, inputs[i].byte_size);
        Json request = {{"request", r->remote}, {"inputs", std::move(in)}, {"outputs", out}};
        std::vector<int> fds;
        if (!r->arena_sent) {
            request["arena_size"] = r->arena.size();
            fds.push_back(r->arena.fd());
        }
        r->host->call_on(*r->channel, Call::infer, std::move(request), fds, r->host->settings().infer_timeout_ms);
        r->arena_sent = true;
        for (size_t o = 0; o < output_count; ++o)
            if (outputs[o].byte_size)
                std::memcpy(outputs[o].data, r->arena.data() + out[o]["offset"].get<size_t>(), outputs[o].byte_size);
    });
}

void write_text(mosaic_sink sink, const Json& reply) { sdk::write_to(sink, reply.at("text").get<std::string>()); }

mosaic_status* proxy_export(mosaic_compiled_model* m, mosaic_sink sink) {
    return sdk::guard([&] {
        std::vector<int> fds;
        const Json reply = m->host->call(Call::export_model, {{"model", m->remote}}, {}, timeout(m->host), &fds);
        for (size_t i = 1; i < fds.size(); ++i) close(fds[i]);
        if (fds.empty())
            throw sdk::Error(MOSAIC_ERROR_DEVICE, "device '" + m->device + "': the plugin host sent an export without its blob");
        const SharedMemory blob = SharedMemory::adopt(fds[0], reply.at("size").get<size_t>(), "a model exported on device '" + m->device + "'");
        sdk::write_to(sink, std::string_view(reinterpret_cast<const char*>(blob.data()), blob.size()));
    });
}

mosaic_status* proxy_import(mosaic_device* d, const void* data, size_t size, const char* properties_json,
                            mosaic_compiled_model** out) {
    return sdk::guard([&] {
        SharedMemory blob = SharedMemory::create(size, "a model to import on device '" + d->name + "'");
        if (size) std::memcpy(blob.data(), data, size);
        auto [host, remote] = live(d);
        const Json reply = host->call(Call::import_model,
                                      {{"device", remote},
                                       {"size", size},
                                       {"properties", properties_argument(properties_json)}},
                                      {blob.fd()}, timeout(host));
        *out = new mosaic_compiled_model{host, reply.at("model").get<uint64_t>(), d->name};
    });
}

// Defined below, with the calls it forwards.
mosaic_plugin_api forwarding_table(const ProxyPlugin& plugin);

}  // namespace

ProxyPlugin::ProxyPlugin(std::string library, std::string device, IsolationSettings settings)
    : library_(std::move(library)), device_(std::move(device)), settings_(settings) {
    first_ = std::make_shared<PluginHostProcess>(library_, device_, settings_);
    const Json& hello = first_->hello();
    plugin_name_ = hello.value("plugin_name", "");
    plugin_version_ = hello.value("plugin_version", "");
    abi_minor_ = hello.value("abi_minor", static_cast<uint16_t>(0));
    has_export_ = hello.value("export_model", false);
    has_import_ = hello.value("import_model", false);
    table_ = forwarding_table(*this);
}

std::shared_ptr<PluginHostProcess> ProxyPlugin::start_host() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (first_) {
            auto host = std::move(first_);
            first_.reset();
            if (!host->dead()) return host;
        }
    }
    return std::make_shared<PluginHostProcess>(library_, device_, settings_);
}

mosaic_status* ProxyPlugin::create_device(const char* name, const char* properties_json, mosaic_device** out) {
    return sdk::guard([&] {
        auto device = std::make_unique<mosaic_device>();
        device->plugin = this;
        device->name = name ? name : "";
        device->properties = properties_argument(properties_json);
        live(device.get());  // the plugin's own create_device runs now, as in process, and may refuse
        *out = device.release();
    });
}

namespace {

mosaic_plugin_api forwarding_table(const ProxyPlugin& plugin) {
    mosaic_plugin_api api{};
    api.struct_size = sizeof(mosaic_plugin_api);
    api.abi_major = MOSAIC_ABI_VERSION_MAJOR;
    api.abi_minor = plugin.abi_minor();
    api.plugin_name = plugin.plugin_name().c_str();
    api.plugin_version = plugin.plugin_version().c_str();
    api.create_device = [](const mosaic_host_api* host, const char*, const char*, mosaic_device**) {
        return host->make_status(host->host_context, MOSAIC_ERROR_GENERAL,
                                 "an isolated plugin's devices are created through its PluginLibrary");
    };
    api.release_device = [](mosaic_device* d) {
        if (d->host) d->host->release(Call::release_device, {{"device", d->remote}});
        delete d;
    };
    api.device_ids = [](mosaic_device* d, mosaic_sink sink) {
        return sdk::guard([&] { write_text(sink, device_call(d, Call::device_ids, Json::object())); });
    };
    api.set_properties = [](mosaic_device* d, const char* properties_json) {
        return sdk::guard([&] {
            const Json properties = properties_argument(properties_json);
            device_call(d, Call::set_properties, {{"properties", properties}});
            std::lock_guard<std::mutex> lock(d->mutex);
            for (const auto& [k, v] : properties.items()) d->properties[k] = v;
        });
    };
    api.get_property = [](mosaic_device* d, const char* key, mosaic_sink sink) {
        return sdk::guard([&] { write_text(sink, device_call(d, Call::get_property, {{"key", key ? key : ""}})); });
    };
    api.query = [](mosaic_device* d, mosaic_graph_view graph, const char* properties_json, mosaic_query_sink sink) {
        return sdk::guard([&] {
            WireGraphOut wire = write_wire_graph(graph);
            const Json reply = device_call(d, Call::query,
                                           {{"graph", std::move(wire.structure)},
                                            {"constants_size", wire.constants.size()},
                                            {"properties", properties_argument(properties_json)}},
                                           {wire.constants.fd()});
            for (const auto& r : reply.at("reports")) {
                const std::string detail = r.at(2).is_string() ? r.at(2).get<std::string>() : "";
                sink.report(sink.context, r.at(0).get<size_t>(), r.at(1).get<int>(),
                            r.at(2).is_string() ? detail.c_str() : nullptr);
            }
        });
    };
    api.compile = [](mosaic_device* d, mosaic_graph_view graph, const char* properties_json,
                     mosaic_compiled_model** out) {
        return sdk::guard([&] {
            WireGraphOut wire = write_wire_graph(graph);
            auto [host, remote] = live(d);
            const Json reply = host->call(Call::compile,
                                          {{"device", remote},
                                           {"graph", std::move(wire.structure)},
                                           {"constants_size", wire.constants.size()},
                                           {"properties", properties_argument(properties_json)}},
                                          {wire.constants.fd()}, timeout(host));
            *out = new mosaic_compiled_model{host, reply.at("model").get<uint64_t>(), d->name};
        });
    };
    api.release_compiled_model = [](mosaic_compiled_model* m) {
        m->host->release(Call::release_compiled_model, {{"model", m->remote}});
        delete m;
    };
    api.compiled_property = [](mosaic_compiled_model* m, const char* key, mosaic_sink sink) {
        return sdk::guard([&] {
            write_text(sink, m->host->call(Call::compiled_property, {{"model", m->remote}, {"key", key ? key : ""}}, {},
                                           timeout(m->host)));
        });
    };
    if (plugin.has_export()) api.export_model = proxy_export;
    if (plugin.has_import()) api.import_model = proxy_import;
    api.create_request = [](mosaic_compiled_model* m, mosaic_infer_request** out) {
        return sdk::guard([&] {
            auto [channel, host_end] = m->host->open_channel();
            Json reply;
            try {
                reply = m->host->call(Call::create_request, {{"model", m->remote}}, {host_end}, timeout(m->host));
            } catch (...) {
                close(host_end);
                throw;
            }
            close(host_end);  // the host has its copy
            auto* request = new mosaic_infer_request{};
            request->host = m->host;
            request->channel = std::move(channel);
            request->remote = reply.at("request").get<uint64_t>();
            request->device = m->device;
            *out = request;
        });
    };
    api.release_request = [](mosaic_infer_request* r) {
        // Closed first, the request's connection ends the host thread serving it, which the host
        // joins before it releases the request.
        r->channel.reset();
        r->host->release(Call::release_request, {{"request", r->remote}});
        delete r;
    };
    api.infer = proxy_infer;
    api.profiling = [](mosaic_infer_request* r, mosaic_profiling_sink sink) {
        return sdk::guard([&] {
            const Json reply = r->host->call_on(*r->channel, Call::profiling, {{"request", r->remote}}, {}, timeout(r->host));
            for (const auto& j : reply.at("records")) {
                const std::string name = j.at("node_name"), type = j.at("node_type"), exec = j.at("exec_type");
                mosaic_profiling_record record{};
                record.struct_size = sizeof(record);
                record.node_name = name.c_str();
                record.node_type = type.c_str();
                record.exec_type = exec.c_str();
                record.status = static_cast<mosaic_profiling_status>(j.at("status").get<int>());
                record.real_time_us = j.at("real_time_us").get<uint64_t>();
                record.cpu_time_us = j.at("cpu_time_us").get<uint64_t>();
                sink.record(sink.context, &record);
            }
        });
    };
    return api;
}

}  // namespace

std::shared_ptr<PluginLibrary> load_isolated(const std::string& path, const std::string& device,
                                             const IsolationSettings& settings) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        PluginLibrary::refuse(path, "does not exist; check the \"library\" path (relative paths are resolved against "
                                    "the registry file)");
    std::unique_ptr<ProxyPlugin> proxy;
    try {
        proxy = std::make_unique<ProxyPlugin>(path, device, settings);
    } catch (const std::exception& e) {
        // The host's own message already names the library when the library is at fault.
        throw std::runtime_error(std::string("isolated in its own process: ") + e.what());
    }
    return PluginLibrary::forwarding(path, std::move(proxy));
}

}  // namespace mosaic
