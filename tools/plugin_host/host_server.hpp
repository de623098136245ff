// mosaic-plugin-host's side of the conversation (framework/src/plugin_host_protocol.hpp): the real
// plugin library loaded in this process, the objects it created, named by ids the application's
// proxy holds, and one handler per call. Single-threaded: the proxy sends one call at a time.
#pragma once

#include "plugin_host_protocol.hpp"
#include "plugin_library.hpp"
#include "shared_memory.hpp"
#include "wire_graph.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

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
    };

    nlohmann::json handle(const host_protocol::Message& message);
    nlohmann::json query(const nlohmann::json& call, int constants_fd);
    nlohmann::json compile(const nlohmann::json& call, int constants_fd);
    nlohmann::json infer(const nlohmann::json& call, int arena_fd);
    nlohmann::json profiling(const nlohmann::json& call);
    mosaic_device* device(const nlohmann::json& call) const;

    std::shared_ptr<PluginLibrary> library_;
    std::string device_name_;
    mosaic_host_api host_table_;
    uint64_t next_id_ = 1;
    std::map<uint64_t, mosaic_device*> devices_;
    std::map<uint64_t, Compiled> compiled_;
    std::map<uint64_t, Request> requests_;
};

}  // namespace mosaic
