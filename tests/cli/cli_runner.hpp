// Running the mosaic binary from tests: its exit status, stdout and stderr; and a scratch folder.
#pragma once

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace mosaic::cli_test {

// $MOSAIC_BUILD_DIR (set by ctest) before the folder this test was built in, so that a build copied
// to another machine (benchmarks/gpu/pack.sh) runs its CLI tests there.
inline std::string build_dir() {
    const char* env = std::getenv("MOSAIC_BUILD_DIR");
    return env && *env ? env : MOSAIC_BUILD_DIR;
}
inline std::string mosaic_binary() { return build_dir() + "/bin/mosaic"; }
inline std::string default_model() { return build_dir() + "/models/mosaic_cnn.xml"; }
inline std::string build_registry() { return build_dir() + "/lib/mosaic/plugins.json"; }

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

// A fresh folder under the system temp folder, removed with everything in it.
class TempDir {
public:
    TempDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "mosaic_cli_test_XXXXXX").string();
        if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::string& path() const { return path_; }
    std::string operator/(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

struct CliResult {
    int exit_code = -1;   // -1 when the process did not exit normally
    int signal = 0;       // the signal that ended it, if any
    std::string out, err;
};

inline std::ostream& operator<<(std::ostream& os, const CliResult& r) {
    return os << "exit " << r.exit_code << (r.signal ? " signal " + std::to_string(r.signal) : "")
              << "\n--- stdout ---\n" << r.out << "--- stderr ---\n" << r.err;
}

// Runs `binary` with `args`; `env` overrides environment variables (MOSAIC_PLUGINS defaults to
// the build tree's registry when the test runner did not set it). stdout and stderr go to files,
// so a large output cannot block the child.
inline CliResult run_program(const std::string& binary, const std::vector<std::string>& args,
                             std::map<std::string, std::string> env = {}) {
    TempDir io;
    const std::string out_path = io / "stdout", err_path = io / "stderr";

    std::map<std::string, std::string> vars;
    for (char** e = environ; *e; ++e) {
        const std::string kv = *e;
        const size_t eq = kv.find('=');
        if (eq != std::string::npos) vars[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    if (!vars.count("MOSAIC_PLUGINS")) vars["MOSAIC_PLUGINS"] = build_registry();
    for (auto& [k, v] : env) vars[k] = v;
    std::vector<std::string> env_strings;
    for (const auto& [k, v] : vars) env_strings.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);

    std::vector<std::string> argv_strings{binary};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    CliResult result;
    if (rc != 0) {
        result.err = "posix_spawn of " + binary + " failed: " + std::to_string(rc);
        return result;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    result.out = read_text(out_path);
    result.err = read_text(err_path);
    return result;
}

// Runs bin/mosaic with `args`, as run_program does.
inline CliResult run_mosaic(const std::vector<std::string>& args, std::map<std::string, std::string> env = {}) {
    return run_program(mosaic_binary(), args, std::move(env));
}

inline bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

inline std::string plugin_dir() { return build_dir() + "/lib/mosaic/plugins"; }
// A plugin of tests/plugins/faulty_plugin.cpp, by its fault's name (wrong_values, ...).
inline std::string faulty_plugin(const std::string& fault) {
    return build_dir() + "/test_plugins/libmosaic_test_faulty_" + fault + ".so";
}

// The report line of verify-plugin's `check`: "PASS  ops ...", or "" when there is none.
inline std::string line_of(const CliResult& r, const std::string& check) {
    for (const auto& line : lines_of(r.out))
        if (line.size() > 6 && line.substr(6, check.size() + 1) == check + " ") return line;
    return "";
}

// A failed command: exit status 1, no crash, and stderr starting with "mosaic: error:" (one line
// unless the message comes from the library, which may explain itself over several).
inline void expect_clean_error(const CliResult& r, bool one_line = true) {
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_EQ(r.signal, 0) << r;
    EXPECT_EQ(r.err.rfind("mosaic: error: ", 0), 0u) << r;
    if (one_line) {
        EXPECT_EQ(lines_of(r.err).size(), 1u) << r;
    }
}

}  // namespace mosaic::cli_test
