#include "isolation/host_server.hpp"

#include <mosaic/sdk/status.hpp>

#include <unistd.h>

#include <cstring>
#include <vector>

namespace mosaic {

namespace {

using Json = nlohmann::json;

mosaic_status* refuse_orchestration() {
    return host_status(MOSAIC_ERROR_NOT_SUPPORTED,
                       "a plugin isolated in its own process (\"isolation\": \"process\") cannot reach other devices "
                       "through the host; run orchestrators such as HETERO in process");
}

// The services a plugin gets here: logging (to this process's stderr, which is the application's)
// and statuses work as in process; reaching other devices does not, as they live in the application.
mosaic_host_api isolated_host_table() {
    mosaic_host_api h = *process_host_api();
    h.query_device = [](void*, const char*, mosaic_graph_view, const char*, mosaic_query_sink) {
        return refuse_orchestration();
    };
    h.compile_on_device = [](void*, const char*, mosaic_graph_view, const char*, mosaic_host_compiled**) {
        return refuse_orchestration();
    };
    h.device_properties = [](void*, const char*, mosaic_sink) { return refuse_orchestration(); };
    h.estimate_cost = [](void*, const char*, mosaic_graph_view, size_t, mosaic_op_cost*) {
        return refuse_orchestration();
    };
    h.import_on_device = [](void*, const char*, const void*, size_t, const char*, mosaic_host_compiled**) {
        return refuse_orchestration();
    };
    return h;
}

template <typename Map>
auto& find_object(Map& map, const Json& call, const char* key) {
    auto it = map.find(call.at(key).get<uint64_t>());
    if (it == map.end()) throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, std::string("no such ") + key + " in the plugin host");
    return it->second;
}

// The received descriptor at `index`, or -1.
int fd_at(const host_protocol::Message& m, size_t index) { return index < m.fds.size() ? m.fds[index] : -1; }

SharedMemory adopt(int fd, size_t size, const std::string& purpose) {
    if (fd < 0) throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, purpose + " came without its shared memory");
    return SharedMemory::adopt(fd, size, purpose);
}

// `dims` is reserved for every tensor of the call beforehand, so the pointers into it stay valid.
std::vector<mosaic_tensor> tensors(const Json& list, const SharedMemory& arena, std::vector<std::vector<int64_t>>& dims) {
    std::vector<mosaic_tensor> out;
    for (const auto& j : list) {
        dims.push_back(j.at("dims").get<std::vector<int64_t>>());
        const size_t offset = j.at("offset").get<size_t>(), bytes = j.at("byte_size").get<size_t>();
        if (offset + bytes > arena.size())
            throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "a tensor lies outside the request's shared memory");
        mosaic_tensor t{};
        t.struct_size = sizeof(t);
        t.element_type = static_cast<mosaic_element_type>(j.at("type").get<int>());
        t.rank = static_cast<uint32_t>(dims.back().size());
        t.dims = dims.back().data();
        t.data = arena.data() + offset;
        t.byte_size = bytes;
        t.memory_kind = MOSAIC_MEMORY_HOST;
        out.push_back(t);
    }
    return out;
}

}  // namespace

HostServer::HostServer(std::shared_ptr<PluginLibrary> library, std::string device)
    : library_(std::move(library)), device_name_(std::move(device)), host_table_(isolated_host_table()) {}

HostServer::~HostServer() {
    const mosaic_plugin_api& api = library_->api();
    // Only reached when serving failed: the process ends, so threads still serving are left to it.
    for (auto& [id, r] : requests_)
        if (r.server.joinable()) r.server.detach();
    for (auto& [id, r] : requests_) api.release_request(r.request);
    for (auto& [id, c] : compiled_) api.release_compiled_model(c.model);
    for (auto& [id, d] : devices_) api.release_device(d);
}

void HostServer::serve(int socket) { serve_calls(socket, nullptr); }

void HostServer::serve_calls(int socket, Request* request) {
    for (;;) {
        host_protocol::Message message;
        std::string error;
        if (host_protocol::receive_message(socket, -1, message, error) != host_protocol::Received::message) return;
        Json reply;
        std::vector<int> reply_fds;
        try {
            reply = {{"ok", dispatch(message, reply_fds, request)}};
        } catch (const sdk::Error& e) {
            reply = {{"error", e.what()}, {"code", static_cast<int>(e.code())}};
        } catch (const std::exception& e) {
            reply = {{"error", e.what()}, {"code", static_cast<int>(MOSAIC_ERROR_GENERAL)}};
        }
        // Descriptors were adopted by the handler (shared memory) or are not wanted; extra ones close here.
        for (size_t i = 1; i < message.fds.size(); ++i) close(message.fds[i]);
        if (!host_protocol::send_message(socket, reply, reply_fds).empty()) return;
    }
}

Json HostServer::dispatch(const host_protocol::Message& message, std::vector<int>& reply_fds, Request* request) {
    using Handler = Json (HostServer::*)(CallContext&);
    static constexpr Handler kHandlers[] = {
#define MOSAIC_ISOLATION_HANDLER_ADDRESS(name, connection, descriptor) &HostServer::on_##name,
        MOSAIC_ISOLATION_CALLS(MOSAIC_ISOLATION_HANDLER_ADDRESS)
#undef MOSAIC_ISOLATION_HANDLER_ADDRESS
    };
    int fd = fd_at(message, 0);
    host_protocol::Call call{};
    try {
        call = host_protocol::call_of(message.body);
    } catch (...) {
        if (fd >= 0) close(fd);
        throw;
    }
    const host_protocol::CallInfo& info = host_protocol::info(call);
    const host_protocol::Connection on = request ? host_protocol::Connection::request : host_protocol::Connection::main;
    if (info.connection != on || !info.takes_descriptor) {
        if (fd >= 0) close(fd);
        fd = -1;
    }
    if (info.connection != on)
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, std::string(request ? "a request's connection" : "the main connection") +
                                                         " to the plugin host does not take '" + info.name + "'");
    if (!request) exported_ = SharedMemory();  // the last call's reply, which carried it, is sent
    CallContext context{message.body, fd, reply_fds, request};
    return (this->*kHandlers[static_cast<size_t>(call)])(context);
}

mosaic_device* HostServer::device(const Json& call) const {
    auto it = devices_.find(call.at("device").get<uint64_t>());
    if (it == devices_.end()) throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "no such device in the plugin host");
    return it->second;
}

Json HostServer::on_create_device(CallContext& c) {
    mosaic_device* d = nullptr;
    sdk::check(library_->api().create_device(&host_table_, c.call.at("name").get<std::string>().c_str(),
                                              c.call.at("properties").dump().c_str(), &d));
    devices_[next_id_] = d;
    return {{"device", next_id_++}};
}

Json HostServer::on_release_device(CallContext& c) {
    library_->api().release_device(device(c.call));
    devices_.erase(c.call.at("device").get<uint64_t>());
    return Json::object();
}

Json HostServer::on_device_ids(CallContext& c) {
    std::string text;
    if (library_->has_device_ids()) sdk::check(library_->api().device_ids(device(c.call), sdk::string_sink(text)));
    return {{"text", text.empty() ? "[]" : text}};
}

Json HostServer::on_set_properties(CallContext& c) {
    sdk::check(library_->api().set_properties(device(c.call), c.call.at("properties").dump().c_str()));
    return Json::object();
}

Json HostServer::on_get_property(CallContext& c) {
    std::string text;
    sdk::check(library_->api().get_property(device(c.call), c.call.at("key").get<std::string>().c_str(),
                                            sdk::string_sink(text)));
    return {{"text", text}};
}

Json HostServer::on_release_compiled_model(CallContext& c) {
    library_->api().release_compiled_model(find_object(compiled_, c.call, "model").model);
    compiled_.erase(c.call.at("model").get<uint64_t>());
    return Json::object();
}

Json HostServer::on_compiled_property(CallContext& c) {
    std::string text;
    sdk::check(library_->api().compiled_property(find_object(compiled_, c.call, "model").model,
                                                 c.call.at("key").get<std::string>().c_str(), sdk::string_sink(text)));
    return {{"text", text}};
}

Json HostServer::on_release_request(CallContext& c) {
    Request& r = find_object(requests_, c.call, "request");
    // The proxy closed the request's connection first: its thread has ended or is ending.
    if (r.server.joinable()) r.server.join();
    library_->api().release_request(r.request);
    requests_.erase(c.call.at("request").get<uint64_t>());
    return Json::object();
}

Json HostServer::on_export_model(CallContext& c) {
    // The blob goes back in shared memory: a compiled model's weights are too big for the socket.
    std::string text;
    sdk::check(library_->api().export_model(find_object(compiled_, c.call, "model").model, sdk::string_sink(text)));
    exported_ = SharedMemory::create(text.size(), "an exported model");
    std::memcpy(exported_.data(), text.data(), text.size());
    c.reply_fds.push_back(exported_.fd());
    return {{"size", text.size()}};
}

Json HostServer::on_query(CallContext& c) {
    const Json& call = c.call;
    WireGraph graph(call.at("graph"), adopt(c.fd, call.at("constants_size").get<size_t>(), "a queried model"));
    Json reports = Json::array();
    mosaic_query_sink sink{&reports, [](void* ctx, size_t node, int supported, const char* detail) {
                               static_cast<Json*>(ctx)->push_back({node, supported, detail ? Json(detail) : Json()});
                           }};
    sdk::check(library_->api().query(device(call), graph.view(), call.at("properties").dump().c_str(), sink));
    return {{"reports", std::move(reports)}};
}

Json HostServer::on_compile(CallContext& c) {
    const Json& call = c.call;
    auto graph = std::make_shared<WireGraph>(
        call.at("graph"), adopt(c.fd, call.at("constants_size").get<size_t>(), "a compiled model"));
    Compiled compiled;
    compiled.graph = graph;
    sdk::check(library_->api().compile(device(call), graph->view(), call.at("properties").dump().c_str(), &compiled.model));
    if (!compiled.model) throw sdk::Error(MOSAIC_ERROR_GENERAL, "the plugin reported success compiling but returned no model");
    compiled_.emplace(next_id_, std::move(compiled));
    return {{"model", next_id_++}};
}

Json HostServer::on_import_model(CallContext& c) {
    const Json& call = c.call;
    const SharedMemory blob = adopt(c.fd, call.at("size").get<size_t>(), "a model to import");
    Compiled compiled;
    sdk::check(library_->api().import_model(device(call), blob.data(), blob.size(), call.at("properties").dump().c_str(),
                                            &compiled.model));
    if (!compiled.model) throw sdk::Error(MOSAIC_ERROR_GENERAL, "the plugin reported success importing but returned no model");
    compiled_.emplace(next_id_, std::move(compiled));
    return {{"model", next_id_++}};
}

Json HostServer::on_create_request(CallContext& c) {
    const Json& call = c.call;
    const int channel_fd = c.fd;
    if (channel_fd < 0) throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "create_request came without its connection");
    Request r;
    try {
        sdk::check(library_->api().create_request(find_object(compiled_, call, "model").model, &r.request));
    } catch (...) {
        close(channel_fd);
        throw;
    }
    // The map's nodes stay where they are while others come and go, so the thread may hold its own.
    Request& stored = requests_.emplace(next_id_, std::move(r)).first->second;
    stored.server = std::thread([this, channel_fd, &stored] {
        serve_calls(channel_fd, &stored);
        close(channel_fd);
    });
    return {{"request", next_id_++}};
}

Json HostServer::on_infer(CallContext& c) {
    Request& r = *c.request;
    const Json& call = c.call;
    const int arena_fd = c.fd;
    if (call.contains("arena_size")) r.arena = adopt(arena_fd, call["arena_size"].get<size_t>(), "a request's tensors");
    else if (arena_fd >= 0) close(arena_fd);
    std::vector<std::vector<int64_t>> dims;
    dims.reserve(call.at("inputs").size() + call.at("outputs").size());
    const std::vector<mosaic_tensor> in = tensors(call.at("inputs"), r.arena, dims);
    const std::vector<mosaic_tensor> out = tensors(call.at("outputs"), r.arena, dims);
    sdk::check(library_->api().infer(r.request, in.data(), in.size(), out.data(), out.size()));
    return Json::object();
}

Json HostServer::on_profiling(CallContext& c) {
    Request& r = *c.request;
    Json records = Json::array();
    mosaic_profiling_sink sink{&records, [](void* ctx, const mosaic_profiling_record* r) {
                                   auto text = [](const char* s) { return std::string(s ? s : ""); };
                                   static_cast<Json*>(ctx)->push_back({{"node_name", text(r->node_name)},
                                                                       {"node_type", text(r->node_type)},
                                                                       {"exec_type", text(r->exec_type)},
                                                                       {"status", static_cast<int>(r->status)},
                                                                       {"real_time_us", r->real_time_us},
                                                                       {"cpu_time_us", r->cpu_time_us}});
                               }};
    sdk::check(library_->api().profiling(r.request, sink));
    return {{"records", std::move(records)}};
}

}  // namespace mosaic
