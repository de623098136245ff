#include "isolation/protocol.hpp"

#include <mosaic/sdk/status.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iterator>

namespace mosaic::host_protocol {

namespace {

constexpr bool no_descriptor = false, descriptor = true;
constexpr CallInfo kCalls[] = {
#define MOSAIC_ISOLATION_CALL_INFO(name, connection, takes) {#name, Connection::connection, takes},
    MOSAIC_ISOLATION_CALLS(MOSAIC_ISOLATION_CALL_INFO)
#undef MOSAIC_ISOLATION_CALL_INFO
};

constexpr uint32_t kMaxMessage = 1u << 30;  // a graph's structure, never its weights
constexpr size_t kMaxFds = 8;

using Clock = std::chrono::steady_clock;

// Milliseconds left before `deadline`, for poll(); -1 waits for ever.
int remaining_ms(bool forever, Clock::time_point deadline) {
    if (forever) return -1;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left > 0 ? static_cast<int>(left) : 0;
}

// Waits until the socket is readable or the deadline passes.
Received wait_readable(int socket, bool forever, Clock::time_point deadline, std::string& error) {
    for (;;) {
        pollfd p{socket, POLLIN, 0};
        const int n = poll(&p, 1, remaining_ms(forever, deadline));
        if (n > 0) return Received::message;
        if (n == 0) return Received::timed_out;
        if (errno == EINTR) continue;
        error = std::string("poll failed: ") + std::strerror(errno);
        return Received::failed;
    }
}

void take_fds(msghdr& header, std::vector<int>& fds) {
    for (cmsghdr* c = CMSG_FIRSTHDR(&header); c; c = CMSG_NXTHDR(&header, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; ++i) {
            int fd;
            std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            fds.push_back(fd);
        }
    }
}

// Reads exactly `size` bytes into `buffer`, collecting any descriptors that arrive with them.
Received read_exactly(int socket, char* buffer, size_t size, bool forever, Clock::time_point deadline,
                      std::vector<int>& fds, std::string& error) {
    size_t done = 0;
    while (done < size) {
        if (Received r = wait_readable(socket, forever, deadline, error); r != Received::message) return r;
        iovec io{buffer + done, size - done};
        alignas(cmsghdr) char control[CMSG_SPACE(kMaxFds * sizeof(int))];
        msghdr header{};
        header.msg_iov = &io;
        header.msg_iovlen = 1;
        header.msg_control = control;
        header.msg_controllen = sizeof(control);
        const ssize_t n = recvmsg(socket, &header, MSG_CMSG_CLOEXEC);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            if (errno == ECONNRESET) return Received::closed;
            error = std::string("recvmsg failed: ") + std::strerror(errno);
            return Received::failed;
        }
        take_fds(header, fds);
        if (n == 0) return Received::closed;
        done += static_cast<size_t>(n);
    }
    return Received::message;
}

}  // namespace

const CallInfo& info(Call call) { return kCalls[static_cast<size_t>(call)]; }

Call call_of(const nlohmann::json& request) {
    const auto it = request.find("call");
    const std::string name = it != request.end() && it->is_string() ? it->get<std::string>() : "";
    for (size_t i = 0; i < std::size(kCalls); ++i)
        if (name == kCalls[i].name) return static_cast<Call>(i);
    throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "the plugin host does not know the call '" + name + "'");
}

nlohmann::json message(Call call, nlohmann::json arguments) {
    arguments["call"] = info(call).name;
    return arguments;
}

std::string send_message(int socket, const nlohmann::json& body, const std::vector<int>& fds) {
    const std::string text = body.dump();
    const uint32_t length = static_cast<uint32_t>(text.size());
    if (text.size() >= kMaxMessage) return "message of " + std::to_string(text.size()) + " bytes is too large";
    std::string frame(reinterpret_cast<const char*>(&length), sizeof(length));
    frame += text;
    size_t sent = 0;
    while (sent < frame.size()) {
        iovec io{frame.data() + sent, frame.size() - sent};
        msghdr header{};
        header.msg_iov = &io;
        header.msg_iovlen = 1;
        alignas(cmsghdr) char control[CMSG_SPACE(kMaxFds * sizeof(int))];
        if (sent == 0 && !fds.empty()) {  // the descriptors go with the first byte
            if (fds.size() > kMaxFds) return "too many descriptors in one message";
            header.msg_control = control;
            header.msg_controllen = CMSG_SPACE(fds.size() * sizeof(int));
            cmsghdr* c = CMSG_FIRSTHDR(&header);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
            std::memcpy(CMSG_DATA(c), fds.data(), fds.size() * sizeof(int));
        }
        // MSG_NOSIGNAL: a host that died must give EPIPE here, not a SIGPIPE that kills the application.
        const ssize_t n = sendmsg(socket, &header, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return std::string("sendmsg failed: ") + std::strerror(errno);
        }
        sent += static_cast<size_t>(n);
    }
    return "";
}

namespace {
Received receive_whole(int socket, long timeout_ms, Message& out, std::string& error);
}  // namespace

Received receive_message(int socket, long timeout_ms, Message& out, std::string& error) {
    const Received r = receive_whole(socket, timeout_ms, out, error);
    if (r != Received::message) {
        // Descriptors of a message that did not arrive whole belong to no one: close them here.
        for (int fd : out.fds) close(fd);
        out.fds.clear();
    }
    return r;
}

namespace {
Received receive_whole(int socket, long timeout_ms, Message& out, std::string& error) {
    const bool forever = timeout_ms < 0;
    const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(forever ? 0 : timeout_ms);
    out = Message{};
    uint32_t length = 0;
    Received r = read_exactly(socket, reinterpret_cast<char*>(&length), sizeof(length), forever, deadline, out.fds, error);
    if (r != Received::message) return r;
    if (length >= kMaxMessage) {
        error = "a message announces " + std::to_string(length) + " bytes, more than a message may hold";
        return Received::failed;
    }
    std::string text(length, '\0');
    r = read_exactly(socket, text.data(), length, forever, deadline, out.fds, error);
    if (r != Received::message) return r;
    try {
        out.body = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        error = std::string("a message is not valid JSON: ") + e.what();
        return Received::failed;
    }
    return Received::message;
}
}  // namespace

}  // namespace mosaic::host_protocol
