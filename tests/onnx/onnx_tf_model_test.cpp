// Keras models exported by tf2onnx (tools/models/make_tf_models.py): keras.applications' ResNet50,
// MobileNetV3Small (hard-swish, squeeze-and-excitation, Rescaling inside) and EfficientNetB0
// (Rescaling and Normalization inside, swish, squeeze-and-excitation) over NHWC images, and a text
// model (Embedding, a bidirectional LSTM, MultiHeadAttention, LayerNormalization, two heads) over
// int32 token ids of dynamic batch and length. Each is read as it comes (no shapes), compiled once,
// and run at its two data sets' shapes, every output equal to TensorFlow's own, on every device (the
// GPU alone refuses the text model's LSTM, naming it, as it does paddle_rec's).
#include "exported_data_sets.hpp"

#include <filesystem>
#include <string>

namespace mosaic::test {
namespace {

namespace fs = std::filesystem;

// Within this much of each output's range of TensorFlow's values (f32 everywhere).
constexpr double kOfRange = 1e-4;

fs::path model_folder(const std::string& name) {
    return generated_model("tf_models", "tf_" + name, "make_tf_models.py", "--only " + name, tf_exporter_python());
}

class TfModel : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(TfModel, ReadWithoutShapesEqualsTensorFlowAtBothShapes) {
    const auto& [name, device] = GetParam();
    const fs::path folder = model_folder(name);
    if (folder.empty())
        GTEST_SKIP() << "TensorFlow and tf2onnx are needed to export tf_" << name
                     << " (bash scripts/install_model_exporters.sh; see "
                     << (generated_models_root() / "tf_models" / ("tf_" + name + ".log")).string() << ")";
    const DataSetReader read = backend_test_reader(folder);
    Core core;
    auto model = core.read_model((folder / "model.onnx").string());
    EXPECT_LT(model->input().get_partial_shape()[0], 0) << "the batch is dynamic as exported";
    // The GPU has no LSTM kernel: alone it refuses the model naming the op (HETERO places it).
    if (name == "text" && device == "GPU") return expect_refused(core, model, device, read, "LSTMSequence");
    CompiledModel compiled = core.compile_model(model, device);
    expect_data_sets(compiled, "tf_" + name + " on " + device, 2, read, kOfRange);
}

INSTANTIATE_TEST_SUITE_P(Exported, TfModel,
                         ::testing::Combine(::testing::Values("resnet50", "mobilenetv3", "efficientnet", "text"),
                                            ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU")),
                         [](const auto& info) { return model_device_name(info); });

}  // namespace
}  // namespace mosaic::test
