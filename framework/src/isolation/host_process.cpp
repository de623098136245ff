#include "isolation/host_process.hpp"

#include <mosaic/sdk/status.hpp>

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

namespace mosaic {

namespace fs = std::filesystem;
using host_protocol::Received;

namespace {

// An address-space cap cannot work under AddressSanitizer or ThreadSanitizer: their shadow memory
// reserves terabytes of address space at start-up, so a capped host could not even start.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

uint64_t memory_cap_bytes(const IsolationSettings& s) {
    if (kSanitized) return 0;
    if (s.memory_limit_mb) return s.memory_limit_mb << 20;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2 : 0;
}

std::string signal_name(int sig) {
    const char* abbrev = sigabbrev_np(sig);
    const char* text = strsignal(sig);
    return (abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig)) + (text ? " (" + std::string(text) + ")" : "");
}

// What a wait status says happened to the host, in words.
std::string fate(int status, uint64_t cap_bytes) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        if (sig == SIGKILL) return "was killed by SIGKILL (the kernel's out-of-memory killer does this)";
        if (sig == SIGABRT) return "aborted (" + signal_name(sig) + ")";
        return "crashed with " + signal_name(sig);
    }
    if (WIFEXITED(status)) {
        const int code = WEXITSTATUS(status);
        if (code == host_protocol::kOutOfMemoryExit)
            return cap_bytes ? "ran out of memory: its address space is capped at " + std::to_string(cap_bytes >> 20) +
                                   " MiB (raise the registry entry's \"memory_limit_mb\" if the plugin needs more)"
                             : std::string("ran out of memory");
        return "exited with status " + std::to_string(code);
    }
    return "ended with wait status " + std::to_string(status);
}

// Waits up to `patience` for `pid` to end by itself, then kills it; returns its wait status.
int reap(pid_t pid, std::chrono::milliseconds patience) {
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + patience;
    for (;;) {
        const pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) return status;
        if (std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

}  // namespace

std::string plugin_host_executable() {
    if (const char* env = std::getenv("MOSAIC_PLUGIN_HOST"); env && *env) {
        if (!fs::exists(env))
            throw std::runtime_error(std::string("MOSAIC_PLUGIN_HOST names '") + env + "', which does not exist");
        return env;
    }
    Dl_info info{};
    fs::path candidate = "mosaic-plugin-host";
    if (dladdr(reinterpret_cast<void*>(&plugin_host_executable), &info) && info.dli_fname)
        candidate = fs::path(info.dli_fname).parent_path().parent_path() / "bin" / "mosaic-plugin-host";
    if (!fs::exists(candidate))
        throw std::runtime_error("the plugin host '" + candidate.string() +
                                 "' does not exist; install mosaic-plugin-host beside mosaic, or set MOSAIC_PLUGIN_HOST "
                                 "to its path");
    return candidate.string();
}

PluginHostProcess::PluginHostProcess(const std::string& library, const std::string& device,
                                     const IsolationSettings& settings)
    : library_(library), device_(device), settings_(settings) {
    const std::string exe = plugin_host_executable();
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        throw sdk::Error(MOSAIC_ERROR_DEVICE, "device '" + device + "': cannot create the plugin host's socket: " +
                                                  std::strerror(errno));
    std::vector<std::string> args = {exe, "--library", library, "--device", device};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const uint64_t cap = memory_cap_bytes(settings);
    pid_ = fork();
    if (pid_ == 0) {
        // The child of a possibly multi-threaded application: only async-signal-safe calls until exec.
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        if (sv[1] == host_protocol::kHostSocketFd)
            fcntl(sv[1], F_SETFD, 0);
        else
            dup2(sv[1], host_protocol::kHostSocketFd);  // dup2 clears close-on-exec on the copy
        // Descriptors the application opened without close-on-exec must not leak into the host.
        close_range(host_protocol::kHostSocketFd + 1, ~0U, 0);
        if (cap) {
            rlimit limit{cap, cap};
            setrlimit(RLIMIT_AS, &limit);
        }
        execv(exe.c_str(), argv.data());
        _exit(127);
    }
    const int fork_errno = errno;
    close(sv[1]);
    main_ = std::make_shared<HostChannel>(sv[0]);
    if (pid_ < 0)
        throw sdk::Error(MOSAIC_ERROR_DEVICE, "device '" + device + "': cannot start the plugin host: fork failed: " +
                                                  std::strerror(fork_errno));
    host_protocol::Message hello;
    std::string error;
    const Received r = host_protocol::receive_message(main_->fd_, settings_.timeout_ms, hello, error);
    if (r != Received::message)
        throw sdk::Error(MOSAIC_ERROR_DEVICE, record_death("start-up", r, settings_.timeout_ms, error));
    if (hello.body.contains("error")) {
        const std::string message = hello.body["error"].get<std::string>();
        std::lock_guard<std::mutex> lock(mutex_);
        kill_and_reap_locked();
        death_ = "device '" + device + "': " + message;
        throw sdk::Error(MOSAIC_ERROR_GENERAL, message);
    }
    hello_ = hello.body.value("hello", nlohmann::json::object());
}

PluginHostProcess::~PluginHostProcess() {
    // Every request's connection closed with its request, which held this process; closing the
    // main one, the host reads end-of-file and exits.
    main_.reset();
    std::lock_guard<std::mutex> lock(mutex_);
    if (pid_ > 0) reap(pid_, std::chrono::milliseconds(2000));
    pid_ = -1;
}

HostChannel::~HostChannel() {
    if (fd_ >= 0) close(fd_);
}

bool PluginHostProcess::dead() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !death_.empty();
}

void PluginHostProcess::kill_and_reap_locked() {
    if (pid_ > 0) {
        kill(pid_, SIGKILL);
        reap(pid_, std::chrono::milliseconds(0));
    }
    pid_ = -1;
}

std::string PluginHostProcess::record_death(const std::string& call, Received how, long timeout_ms,
                                            const std::string& detail) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Killed after a timeout on one connection, the process closes them all: the calls waiting on
    // the others answer the death the first one recorded.
    if (!death_.empty()) return death_;
    const std::string who = "the plugin process for device '" + device_ + "' (mosaic-plugin-host pid " +
                            std::to_string(pid_) + ", library '" + library_ + "') ";
    std::string what;
    if (how == Received::timed_out) {
        const bool infer = call == "infer";
        what = "did not answer " + call + " within " + std::to_string(timeout_ms) + " ms (the registry entry's \"" +
               (infer ? "infer_timeout_ms" : "timeout_ms") + "\"), so it was killed";
        kill_and_reap_locked();
    } else {
        // The host closed the connection or broke the protocol: learn how it ended.
        if (how == Received::failed && pid_ > 0) kill(pid_, SIGKILL);
        const int status = pid_ > 0 ? reap(pid_, std::chrono::milliseconds(2000)) : 0;
        pid_ = -1;
        what = fate(status, memory_cap_bytes(settings_)) + " during " + call;
        if (how == Received::failed) what += " (" + detail + ")";
    }
    death_ = who + what + "; the application and the other devices go on, and the next compile on '" + device_ +
             "' starts a fresh plugin process";
    return death_;
}

std::pair<std::shared_ptr<HostChannel>, int> PluginHostProcess::open_channel() {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        throw sdk::Error(MOSAIC_ERROR_DEVICE, "device '" + device_ + "': cannot open a connection to the plugin host: " +
                                                  std::strerror(errno));
    return {std::make_shared<HostChannel>(sv[0]), sv[1]};
}

nlohmann::json PluginHostProcess::call_on(HostChannel& channel, host_protocol::Call which, nlohmann::json arguments,
                                          const std::vector<int>& fds, long timeout_ms, std::vector<int>* reply_fds) {
    const std::string call = host_protocol::info(which).name;  // in errors: "... during compile"
    const nlohmann::json request = host_protocol::message(which, std::move(arguments));
    std::lock_guard<std::mutex> turn(channel.mutex_);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!death_.empty()) throw sdk::Error(MOSAIC_ERROR_DEVICE, death_);
    }
    if (std::string error = host_protocol::send_message(channel.fd_, request, fds); !error.empty())
        throw sdk::Error(MOSAIC_ERROR_DEVICE, record_death(call, Received::closed, timeout_ms, error));
    host_protocol::Message reply;
    std::string error;
    const Received r = host_protocol::receive_message(channel.fd_, timeout_ms, reply, error);
    // Only a caller that expects descriptors (an exported blob) keeps them; never keep what a broken host sent.
    const bool keep = reply_fds && r == Received::message && !reply.body.contains("error");
    for (int fd : reply.fds)
        if (keep) reply_fds->push_back(fd);
        else close(fd);
    if (r != Received::message) throw sdk::Error(MOSAIC_ERROR_DEVICE, record_death(call, r, timeout_ms, error));
    if (reply.body.contains("error")) {
        const auto code = static_cast<mosaic_status_code>(reply.body.value("code", static_cast<int>(MOSAIC_ERROR_GENERAL)));
        throw sdk::Error(code, reply.body["error"].get<std::string>());
    }
    return reply.body.value("ok", nlohmann::json());
}

void PluginHostProcess::release(host_protocol::Call which, nlohmann::json arguments) noexcept {
    try {
        call(which, std::move(arguments), {}, settings_.timeout_ms);
    } catch (...) {
        // Nothing to release in a host that died; the death was reported by the call that saw it.
    }
}

}  // namespace mosaic
