// Models that tests generate on first use with the exporters' Python (never committed): paddle2onnx
// exports, ONNX Runtime references. One generation at a time, as the tests run in parallel.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace mosaic::test {

// The exporters' venv (scripts/install_model_exporters.sh, which scripts/test.sh runs), or "".
inline std::string exporter_python() {
    if (const char* env = std::getenv("MOSAIC_EXPORTERS_PYTHON"); env && *env) return env;
    const std::filesystem::path venv = std::filesystem::path(MOSAIC_SOURCE_DIR) / "build-exporters-venv" / "bin" / "python";
    return std::filesystem::exists(venv) ? venv.string() : "";
}

// BUILD_DIR/<dir>/<folder>, made by `tools/models/<script> BUILD_DIR/<dir> <arguments>` unless its
// model.onnx exists (the script writes it last); empty when there is no exporters' Python or the
// script fails (its output is in BUILD_DIR/<dir>/<folder>.log).
inline std::filesystem::path generated_model(const std::string& dir, const std::string& folder, const std::string& script,
                                             const std::string& arguments = "") {
    namespace fs = std::filesystem;
    const fs::path root = fs::path(MOSAIC_BUILD_DIR) / dir;
    const fs::path out = root / folder;
    if (fs::exists(out / "model.onnx")) return out;
    const std::string python = exporter_python();
    if (python.empty()) return {};
    fs::create_directories(root);
    const std::string command = "flock " + (root / ".lock").string() + " " + python + " " + MOSAIC_SOURCE_DIR +
                                "/tools/models/" + script + " " + root.string() + " " + arguments + " >" +
                                (root / (folder + ".log")).string() + " 2>&1";
    if (std::system(command.c_str()) != 0 || !fs::exists(out / "model.onnx")) return {};
    return out;
}

}  // namespace mosaic::test
