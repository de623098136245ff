// mosaic-plugin-host's side of the conversation (framework/src/plugin_host_protocol.hpp): the real
// plugin library loaded in this process, the objects it created, named by ids the application's
// proxy holds, and one handler per call. The main connection is served on the main thread, one
// call at a time; each infer request's own connection on a thread of its own, so that requests run
// at once (the plugin contract allows different requests on different threads).
#pragma once

#include "plugin_host_protocol.hpp"
#include "plugin_library.hpp"
#include "shared_memory.hpp"
#include "wire_graph.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
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
    using Handler = std::function<nlohmann::json(const host_protocol::Message&, std::vector<int>& reply_fds)>;

    // Answers each call on `socket` with `handle` until the other end closes it.
    static void serve_calls(int socket, const Handler& handle);

    // The reply to a call on the main connection; descriptors to send with it (an exported blob) go
    // to `reply_fds`.
    nlohmann::json handle(const host_protocol::Message& message, std::vector<int>& reply_fds);
    // The reply to a call on request `r`'s connection.
    nlohmann::json handle_request(Request& r, const host_protocol::Message& message);
    nlohmann::json create_request(const nlohmann::json& call, int channel_fd);
    nlohmann::json query(const nlohmann::json& call, int constants_fd);
    nlohmann::json compile(const nlohmann::json& call, int constants_fd);
    nlohmann::json infer(Request& r, const nlohmann::json& call, int arena_fd);
    nlohmann::json profiling(Request& r);
    nlohmann::json import_model(const nlohmann::json& call, int blob_fd);
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
