// mosaic-plugin-host's side of the conversation (protocol.hpp): the real
// plugin library loaded in this process, the objects it created, named by ids the application's
// proxy holds, and one handler per call. The main connection is served on the main thread, one
// call at a time; each infer request's own connection on a thread of its own, so that requests run
// at once (the plugin contract allows different requests on different threads).
#pragma once

#include "isolation/protocol.hpp"
#include "registry/plugin_library.hpp"
#include "isolation/shared_memory.hpp"
#include "isolation/wire_graph.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace mosaic {

class HostServer {
public:
    HostServer(std::shared_ptr<PluginLibrary> library, std::string device);
    ~HostServer();

    // Serves calls on `socket` until the application closes it.
    void serve(int socket);

private:
    struct Compiled {
        mosaic_compiled_model* model = nullptr;
        std::shared_ptr<WireGraph> graph;  // its constants stay mapped while the model lives
    };
    struct Request {
        mosaic_infer_request* request = nullptr;
        SharedMemory arena;
        std::thread server;  // serves the request's own connection: its inferences and profiling
    };
    // Answers each call on `socket` until the other end closes it; `request` is the request whose
    // own connection it is, null for the main one.
    void serve_calls(int socket, Request* request);

    // What a handler gets: the call's arguments; its descriptor, -1 when the call takes none or
    // none came (the handler adopts or closes it); descriptors to send with the reply (an exported
    // blob); the request whose connection the call came on (request calls only).
    struct CallContext {
        const nlohmann::json& call;
        int fd;
        std::vector<int>& reply_fds;
        Request* request;
    };
    // The reply to one call: the handler protocol.hpp's list names for it, if the call came on its
    // connection.
    nlohmann::json dispatch(const host_protocol::Message& message, std::vector<int>& reply_fds, Request* request);
    // One handler per call of the protocol's list.
#define MOSAIC_ISOLATION_HANDLER(name, connection, descriptor) nlohmann::json on_##name(CallContext& c);
    MOSAIC_ISOLATION_CALLS(MOSAIC_ISOLATION_HANDLER)
#undef MOSAIC_ISOLATION_HANDLER

    mosaic_device* device(const nlohmann::json& call) const;

    std::shared_ptr<PluginLibrary> library_;
    std::string device_name_;
    mosaic_host_api host_table_;
    uint64_t next_id_ = 1;
    std::map<uint64_t, mosaic_device*> devices_;
    std::map<uint64_t, Compiled> compiled_;
    std::map<uint64_t, Request> requests_;
    SharedMemory exported_;  // the last exported blob: its descriptor must stay open until the reply is sent
};

}  // namespace mosaic
