// PaddleOCR-shaped models exported by paddle2onnx (tools/models/make_paddle_models.py): a
// text-direction classifier with squeeze-and-excitation blocks (conv biases as separate Adds), a
// detector with a [?,3,?,?] input whose FPN upsamples by Resize to sizes taken from Shape, a
// recognizer with a BiLSTM over a dynamic width. Each is read as it comes (no shapes), compiled
// once, and run at its two data sets' shapes, equal to PaddlePaddle's own outputs, on every device.
#include "exported_data_sets.hpp"

#include <filesystem>

namespace mosaic::test {
namespace {

namespace fs = std::filesystem;

// Within this much of the output's range of PaddlePaddle's values (f32 everywhere).
constexpr double kOfRange = 1e-4;

fs::path model_folder(const std::string& name) {
    return generated_model("paddle_models", "paddle_" + name, "make_paddle_models.py", "--only " + name);
}

class PaddleModel : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(PaddleModel, ReadWithoutShapesEqualsPaddleAtBothShapes) {
    const auto& [name, device] = GetParam();
    const fs::path folder = model_folder(name);
    if (folder.empty())
        GTEST_SKIP() << "PaddlePaddle and paddle2onnx are needed to export paddle_" << name
                     << " (bash scripts/install_model_exporters.sh; see build/paddle_models/" << name << ".log)";
    const DataSetReader read = backend_test_reader(folder);
    Core core;
    auto model = core.read_model((folder / "model.onnx").string());
    EXPECT_LT(model->input().get_partial_shape()[0], 0) << "the batch is dynamic as exported";
    // The GPU has no LSTM kernel: alone it refuses the model naming the op (HETERO places it).
    if (name == "rec" && device == "GPU") return expect_refused(core, model, device, read, "LSTMSequence");
    CompiledModel compiled = core.compile_model(model, device);
    expect_data_sets(compiled, "paddle_" + name + " on " + device, 2, read, kOfRange);
}

INSTANTIATE_TEST_SUITE_P(Exported, PaddleModel,
                         ::testing::Combine(::testing::Values("cls", "det", "rec"),
                                            ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU")),
                         [](const auto& info) { return model_device_name(info); });

}  // namespace
}  // namespace mosaic::test
