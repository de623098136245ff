// PaddleOCR-shaped models exported by paddle2onnx (tools/models/make_paddle_models.py): a
// text-direction classifier with squeeze-and-excitation blocks (conv biases as separate Adds), a
// detector with a [?,3,?,?] input whose FPN upsamples by Resize to sizes taken from Shape, a
// recognizer with a BiLSTM over a dynamic width. Each is read as it comes (no shapes), compiled
// once, and run at its two data sets' shapes, equal to PaddlePaddle's own outputs, on every device.
#include <mosaic/mosaic.hpp>
#include <mosaic/onnx.hpp>

#include <gtest/gtest.h>

#include "exporter_models.hpp"

#include <cmath>
#include <cstdlib>
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
    Core core;
    auto model = core.read_model((folder / "model.onnx").string());
    EXPECT_LT(model->input().get_partial_shape()[0], 0) << "the batch is dynamic as exported";
    if (name == "rec" && device == "GPU") {
        // The GPU has no LSTM kernel: alone it refuses the model naming the op (HETERO places it),
        // when the first inference brings the shapes to compile for.
        try {
            InferRequest request = core.compile_model(model, device).create_infer_request();
            request.set_input_tensor(0, onnx::read_tensor_file((folder / "test_data_set_0" / "input_0.pb").string()));
            request.infer();
            ADD_FAILURE() << "ran on the GPU alone";
        } catch (const std::exception& e) {
            EXPECT_NE(std::string(e.what()).find("LSTMSequence"), std::string::npos) << e.what();
        }
        return;
    }
    InferRequest request = core.compile_model(model, device).create_infer_request();
    for (int k = 0; k < 2; ++k) {
        const fs::path data = folder / ("test_data_set_" + std::to_string(k));
        const Tensor x = onnx::read_tensor_file((data / "input_0.pb").string());
        request.set_input_tensor(0, x);
        request.infer();
        const std::string what = "paddle_" + name + " on " + device + " at " + to_string(x.get_shape());
        const double error = expect_within_range(request.get_output_tensor(0),
                                                 onnx::read_tensor_file((data / "output_0.pb").string()), what, kOfRange);
        std::printf("%s: largest difference %.3g of the range\n", what.c_str(), error);
    }
}

INSTANTIATE_TEST_SUITE_P(Exported, PaddleModel,
                         ::testing::Combine(::testing::Values("cls", "det", "rec"),
                                            ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU")),
                         [](const auto& info) { return model_device_name(info); });

}  // namespace
}  // namespace mosaic::test
