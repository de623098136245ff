// The messages between the application's proxy of an isolated plugin (proxy.cpp) and the
// mosaic-plugin-host process that runs the plugin (tools/plugin_host). Over one connected Unix
// stream socket, each message is a 4-byte length and a JSON object of that many bytes; file
// descriptors (memfd shared memory) ride along on the message's first bytes with SCM_RIGHTS.
//
// The proxy sends a request {"call": "<name>", ...} (one of the calls listed below) and reads one reply: {"ok": ...} or
// {"error": message, "code": mosaic_status_code}. The host speaks first, once, after loading the
// library: {"hello": {"plugin_name", "plugin_version", "abi_major", "abi_minor", "export_model",
// "import_model"}} (the last two: whether the plugin's table has them) or an error.
// Graphs travel as described in wire_graph.hpp; tensors as {"offset", "byte_size", "type", "dims"}
// into the request's shared arena; a model's export blob, both ways, in its own shared memory whose
// descriptor rides with the call (import_model) or the reply (export_model), its size in "size".
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mosaic::host_protocol {

// Every call of the conversation, listed once: its name; the connection it travels on (main: the
// devices, models and requests the host holds; request: one request's own, for its inferences);
// and whether a descriptor rides with it (shared memory or a request's connection). The proxy
// sends calls by these names (message()); the server expands the list into its dispatch, one
// handler per call (host_server.hpp), so a call cannot exist on one side only.
#define MOSAIC_ISOLATION_CALLS(X)                       \
    X(create_device, main, no_descriptor)               \
    X(release_device, main, no_descriptor)              \
    X(device_ids, main, no_descriptor)                  \
    X(set_properties, main, no_descriptor)              \
    X(get_property, main, no_descriptor)                \
    X(query, main, descriptor)                          \
    X(compile, main, descriptor)                        \
    X(release_compiled_model, main, no_descriptor)      \
    X(compiled_property, main, no_descriptor)           \
    X(export_model, main, no_descriptor)                \
    X(import_model, main, descriptor)                   \
    X(create_request, main, descriptor)                 \
    X(release_request, main, no_descriptor)             \
    X(infer, request, descriptor)                       \
    X(profiling, request, no_descriptor)

enum class Call {
#define MOSAIC_ISOLATION_CALL_ENUM(name, connection, descriptor) name,
    MOSAIC_ISOLATION_CALLS(MOSAIC_ISOLATION_CALL_ENUM)
#undef MOSAIC_ISOLATION_CALL_ENUM
};
enum class Connection { main, request };

struct CallInfo {
    const char* name;
    Connection connection;
    bool takes_descriptor;  // the call's first received descriptor is the handler's to adopt
};
const CallInfo& info(Call call);
// The call a request names; throws sdk::Error (MOSAIC_ERROR_NOT_SUPPORTED) for a name not listed.
Call call_of(const nlohmann::json& request);
// The request for `call`: {"call": name} and the arguments.
nlohmann::json message(Call call, nlohmann::json arguments);

// The socket's descriptor in the host process (the proxy dup2's its end there before exec).
constexpr int kHostSocketFd = 3;
// The host's exit status when an allocation failed (its new_handler): the proxy reports the plugin
// ran out of memory instead of an anonymous exit code.
constexpr int kOutOfMemoryExit = 86;
// The host's exit status when its arguments or its socket are unusable.
constexpr int kUsageExit = 64;

struct Message {
    nlohmann::json body;
    std::vector<int> fds;  // received descriptors, owned by the receiver
};

enum class Received { message, closed, timed_out, failed };

// Sends `body` with `fds` (not closed). Returns "" or what failed (the peer is gone: EPIPE).
std::string send_message(int socket, const nlohmann::json& body, const std::vector<int>& fds = {});

// Waits up to `timeout_ms` (negative: for ever) for one whole message. `error` says what failed
// for Received::failed (a malformed frame, a read error).
Received receive_message(int socket, long timeout_ms, Message& out, std::string& error);

}  // namespace mosaic::host_protocol
