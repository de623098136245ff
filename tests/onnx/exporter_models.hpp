// Models that tests generate on first use with the exporters' Python (never committed): paddle2onnx,
// optimum and tf2onnx exports, their frameworks' or ONNX Runtime's references. One generation at a
// time, as the tests run in parallel.
#pragma once

#include <mosaic/tensor.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace mosaic::test {

// An exporters' venv's python (scripts/install_model_exporters.sh, which scripts/test.sh runs): `env`
// when set, else the venv in the source tree, else "".
inline std::string venv_python(const char* env, const char* venv_folder) {
    if (const char* given = std::getenv(env); given && *given) return given;
    const std::filesystem::path venv = std::filesystem::path(MOSAIC_SOURCE_DIR) / venv_folder / "bin" / "python";
    return std::filesystem::exists(venv) ? venv.string() : "";
}
// PaddlePaddle and paddle2onnx.
inline std::string exporter_python() { return venv_python("MOSAIC_EXPORTERS_PYTHON", "build-exporters-venv"); }
// torch, transformers and optimum.
inline std::string torch_exporter_python() {
    return venv_python("MOSAIC_TORCH_EXPORTERS_PYTHON", "build-torch-exporters-venv");
}
// TensorFlow (Keras) and tf2onnx.
inline std::string tf_exporter_python() { return venv_python("MOSAIC_TF_EXPORTERS_PYTHON", "build-tf-exporters-venv"); }

// Where generated models go: $MOSAIC_GENERATED_MODELS when set, else the build folder. scripts/test.sh
// points it outside the builds, so that the sanitizer builds' suites read the models the release
// suite generated instead of exporting them all again (minutes of torch and paddle per build).
inline std::filesystem::path generated_models_root() {
    if (const char* given = std::getenv("MOSAIC_GENERATED_MODELS"); given && *given) return given;
    return MOSAIC_BUILD_DIR;
}

// ROOT/<dir>/<folder> (ROOT: generated_models_root()), made by `tools/models/<script> ROOT/<dir>
// <arguments>` with `python` unless its `model` file exists (the script writes it last); empty when there is no exporters'
// Python or the script fails (its output is in ROOT/<dir>/<folder>.log).
inline std::filesystem::path generated_model(const std::string& dir, const std::string& folder, const std::string& script,
                                             const std::string& arguments = "", const std::string& python = exporter_python(),
                                             const std::string& model = "model.onnx") {
    namespace fs = std::filesystem;
    const fs::path root = generated_models_root() / dir;
    const fs::path out = root / folder;
    if (fs::exists(out / model)) return out;
    if (python.empty()) return {};
    fs::create_directories(root);
    const std::string command = "flock " + (root / ".lock").string() + " " + python + " " + MOSAIC_SOURCE_DIR +
                                "/tools/models/" + script + " " + root.string() + " " + arguments + " >" +
                                (root / (folder + ".log")).string() + " 2>&1";
    if (std::system(command.c_str()) != 0 || !fs::exists(out / model)) return {};
    return out;
}

// The largest difference of f32 `got` from `want`, as a fraction of want's range (0 when empty);
// fails the test past `of_range`.
inline double expect_within_range(const Tensor& got, const Tensor& want, const std::string& what, double of_range) {
    EXPECT_EQ(to_string(got.get_shape()), to_string(want.get_shape())) << what;
    if (got.get_shape() != want.get_shape() || want.get_size() == 0) return 0;
    float lo = want.data<float>()[0], hi = lo, worst = 0;
    for (size_t i = 0; i < want.get_size(); ++i) {
        lo = std::min(lo, want.data<float>()[i]);
        hi = std::max(hi, want.data<float>()[i]);
        worst = std::max(worst, std::fabs(got.data<float>()[i] - want.data<float>()[i]));
    }
    EXPECT_LE(worst, of_range * (hi - lo)) << what << ": largest difference " << worst << ", range " << hi - lo;
    return hi > lo ? worst / (hi - lo) : worst;
}

// A gtest name for (model, device): every character but letters and digits as '_'.
template <class ParamInfo>
std::string model_device_name(const ParamInfo& info) {
    std::string s = std::get<0>(info.param) + "_" + std::get<1>(info.param);
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return s;
}

}  // namespace mosaic::test
