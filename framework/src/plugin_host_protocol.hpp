// The messages between the application's proxy of an isolated plugin (plugin_proxy.cpp) and the
// mosaic-plugin-host process that runs the plugin (tools/plugin_host). Over one connected Unix
// stream socket, each message is a 4-byte length and a JSON object of that many bytes; file
// descriptors (memfd shared memory) ride along on the message's first bytes with SCM_RIGHTS.
//
// The proxy sends a request {"call": "<name>", ...} and reads one reply: {"ok": ...} or
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
