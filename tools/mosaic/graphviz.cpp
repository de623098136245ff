#include "graphviz.hpp"

#include "common.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

extern char** environ;

namespace mosaic::cli {

namespace {

constexpr const char* kMissingHint = "install graphviz (e.g. 'apt-get install graphviz') and run again";
// dot ran but failed: a broken installation, or (if it names a line) a bad .dot text from the plugin.
constexpr const char* kFailedHint =
    "check the graphviz installation (reinstall with 'apt-get install graphviz'); if dot names a line, the .dot "
    "text the device wrote is at fault";

// Reads what the child writes to the pipe until it closes it.
std::string drain(int fd) {
    std::string text;
    char buf[4096];
    while (true) {
        const ssize_t n = read(fd, buf, sizeof(buf));
        if (n > 0) {
            text.append(buf, static_cast<size_t>(n));
        } else if (n == 0 || errno != EINTR) {
            return text;
        }
    }
}

std::string first_line(const std::string& text) {
    const size_t start = text.find_first_not_of(" \t\r\n");
    if (start == std::string::npos) return "";
    return text.substr(start, text.find_first_of("\r\n", start) - start);
}

[[noreturn]] void fail(const std::string& dot_path, const std::string& svg_path, const std::string& why,
                       const char* hint = kMissingHint) {
    std::error_code ec;
    std::filesystem::remove(svg_path, ec);  // dot may have created an empty or truncated file
    throw UsageError("cannot render '" + dot_path + "' to SVG: " + why + "; " + hint +
                     " (the .dot file itself is written; any Graphviz viewer opens it)");
}

}  // namespace

void render_svg(const std::string& dot_path, const std::string& svg_path) {
    int err_pipe[2];
    if (pipe2(err_pipe, O_CLOEXEC) != 0) fail(dot_path, svg_path, std::string("pipe failed: ") + std::strerror(errno));

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
    std::vector<std::string> args{"dot", "-Tsvg", dot_path, "-o", svg_path};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, "dot", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(err_pipe[1]);
    if (rc != 0) {
        close(err_pipe[0]);
        fail(dot_path, svg_path,
             rc == ENOENT ? "the Graphviz program 'dot' is not on PATH"
                          : std::string("cannot start the Graphviz program 'dot': ") + std::strerror(rc));
    }
    const std::string errors = drain(err_pipe[0]);
    close(err_pipe[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) fail(dot_path, svg_path, "the Graphviz program 'dot' is not on PATH");
    std::string why = WIFEXITED(status) ? "'dot -Tsvg' failed with exit code " + std::to_string(WEXITSTATUS(status))
                                        : "'dot -Tsvg' was ended by signal " + std::to_string(WTERMSIG(status));
    if (const std::string line = first_line(errors); !line.empty()) why += " (" + line + ")";
    fail(dot_path, svg_path, why, kFailedHint);
}

}  // namespace mosaic::cli
