// A streaming model as they come (tools/models/make_streaming_model.py, in the shape of the Silero
// VAD family): an If on the sample rate, an input, decided when the model runs, and the LSTM state
// as inputs and outputs that the caller feeds back. 20 chunks in a row at 16 kHz, then at 8 kHz on
// the same compiled model, equal to torch; then the same with the state kept by the request
// (make_stateful, through IR: ReadValue / Assign) and reset_state between the two rates. The same
// for the older family's shape (--reflect), on HETERO lists too.
#include "onnx/exporter_models.hpp"

#include <mosaic/mosaic.hpp>
#include <mosaic/onnx.hpp>
#include <mosaic/serialize.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace mosaic::test {
namespace {

namespace fs = std::filesystem;

constexpr int kChunks = 20;

// Generated with torch on first use (never committed), one generation at a time. "reflect": the
// older family's shape (reflect-padded convolutions in the branches, dynamic batch and length).
fs::path model_folder(const std::string& variant) {
    const fs::path dir = mosaic::test::generated_models_root() / "onnx_models_streaming";
    const bool reflect = variant == "reflect";
    const fs::path folder = dir / (reflect ? "streaming_vad_reflect" : "streaming_vad");
    if (fs::exists(folder / "model.onnx")) return folder;
    fs::create_directories(dir);
    const std::string command = "flock " + (dir / ".lock").string() + " /usr/bin/python3 " +
                                std::string(MOSAIC_SOURCE_DIR) + "/tools/models/make_streaming_model.py " + dir.string() +
                                (reflect ? " --reflect" : "") + " >/dev/null 2>&1";
    if (std::system(command.c_str()) != 0 || !fs::exists(folder / "model.onnx")) return {};
    return folder;
}

Tensor load(const fs::path& file) { return onnx::read_tensor_file(file.string()); }

float max_difference(const Tensor& a, const Tensor& b) {
    float worst = 0;
    for (size_t i = 0; i < b.get_size(); ++i) worst = std::max(worst, std::fabs(a.data<float>()[i] - b.data<float>()[i]));
    return worst;
}

Tensor rate_tensor(int64_t rate) { return Tensor::from_vector<int64_t>({}, ElementType::i64, {rate}); }

class StreamingModel : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
protected:
    const std::string& variant() const { return std::get<0>(GetParam()); }
    const std::string& device() const { return std::get<1>(GetParam()); }
};

TEST_P(StreamingModel, TwentyChunksFeedingTheStateBackEqualTorchAtBothRates) {
    const fs::path folder = model_folder(variant());
    if (folder.empty()) GTEST_SKIP() << "torch is needed to export the streaming model (/usr/bin/python3 with python3-torch)";
    Core core;
    CompiledModel compiled = core.compile_model(core.read_model((folder / "model.onnx").string()), device());
    InferRequest r = compiled.create_infer_request();
    for (const int64_t rate : {16000, 8000}) {
        const fs::path data = folder / std::to_string(rate);
        Tensor h(ElementType::f32, {1, 1, 64}), c(ElementType::f32, {1, 1, 64});
        float worst = 0;
        for (int k = 0; k < kChunks; ++k) {
            r.set_tensor("input", load(data / ("chunk_" + std::to_string(k) + ".pb")));
            r.set_tensor("sr", rate_tensor(rate));
            r.set_tensor("h", h);
            r.set_tensor("c", c);
            r.infer();
            worst = std::max(worst, max_difference(r.get_tensor("prob"), load(data / ("prob_" + std::to_string(k) + ".pb"))));
            h = r.get_tensor("hn").clone();
            c = r.get_tensor("cn").clone();
        }
        EXPECT_LT(worst, 1e-5f) << device() << " at " << rate << " Hz";
        std::printf("%s at %lld Hz: largest |prob - torch| over %d chunks: %.3g\n", device().c_str(),
                    static_cast<long long>(rate), kChunks, static_cast<double>(worst));
        EXPECT_LT(max_difference(h, load(data / ("h_" + std::to_string(kChunks) + ".pb"))), 1e-5f) << rate;
        EXPECT_LT(max_difference(c, load(data / ("c_" + std::to_string(kChunks) + ".pb"))), 1e-5f) << rate;
    }
}

TEST_P(StreamingModel, TheStateKeptByTheRequestThroughIrWithResetState) {
    const fs::path folder = model_folder(variant());
    if (folder.empty()) GTEST_SKIP() << "torch is needed to export the streaming model";
    Core core;
    auto model = core.read_model((folder / "model.onnx").string());
    // A variable needs a static shape (the older family declares its batch dynamic).
    model->reshape({{"input", PartialShape(Shape{1, 512})}, {"h", PartialShape(Shape{1, 1, 64})}, {"c", PartialShape(Shape{1, 1, 64})}});
    model->make_stateful({{"h", "hn"}, {"c", "cn"}});
    const fs::path ir = fs::temp_directory_path() / ("mosaic_streaming_" + std::to_string(::getpid()));
    fs::create_directories(ir);
    serialize(*model, (ir / "vad.xml").string());
    auto stateful = core.read_model((ir / "vad.xml").string());
    fs::remove_all(ir);
    ASSERT_EQ(stateful->inputs().size(), 2u);  // input and sr: the state is the request's
    InferRequest r = core.compile_model(stateful, device()).create_infer_request();
    ASSERT_EQ(r.query_state().size(), 2u);
    for (const int64_t rate : {16000, 8000}) {
        r.reset_state();
        const fs::path data = folder / std::to_string(rate);
        float worst = 0;
        for (int k = 0; k < kChunks; ++k) {
            r.set_tensor("input", load(data / ("chunk_" + std::to_string(k) + ".pb")));
            r.set_tensor("sr", rate_tensor(rate));
            r.infer();
            worst = std::max(worst, max_difference(r.get_tensor("prob"), load(data / ("prob_" + std::to_string(k) + ".pb"))));
        }
        EXPECT_LT(worst, 1e-5f) << device() << " at " << rate << " Hz";
        for (VariableState& s : r.query_state()) {
            const std::string expected = s.get_name() == "h" ? "h_" : "c_";
            EXPECT_LT(max_difference(s.get_state(), load(data / (expected + std::to_string(kChunks) + ".pb"))), 1e-5f)
                << s.get_name();
        }
    }
}

std::string test_name(const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
    std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param);
    for (auto& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Devices, StreamingModel,
                         ::testing::Combine(::testing::Values("plain"), ::testing::Values("REFERENCE", "CPU", "HETERO:GPU,CPU")),
                         test_name);
// The older family on every HETERO list the issue tried (a bare "map::at" before: HETERO folded a
// ShapeOf of a computed tensor from its value), equal to torch as CPU alone is.
INSTANTIATE_TEST_SUITE_P(Older, StreamingModel,
                         ::testing::Combine(::testing::Values("reflect"),
                                            ::testing::Values("CPU", "HETERO:GPU,CPU", "HETERO:CPU,REFERENCE")),
                         test_name);

}  // namespace
}  // namespace mosaic::test
