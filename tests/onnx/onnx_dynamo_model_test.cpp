// torch models exported by torch.onnx's dynamo exporter (tools/models/make_dynamo_models.py): a ViT,
// a ConvNeXt with a [?,3,?,?] input, a BERT encoder with a dynamic batch and length, and a
// Conv1d + LSTM keyword spotter, and a CNN pooling with ceil_mode (ONNX Runtime drops a last window
// that starts in the end padding, as torch does), a token mixer split by sizes read from a shape, and
// small Swin, PoolFormer, CvT and ResNet image classifiers of transformers, and MobileViT's fold.
// Each is read as it comes (no shapes), compiled once and run at its
// two data sets' shapes, every output equal to torch's own on every device.
#include "exported_data_sets.hpp"

#include <filesystem>

namespace mosaic::test {
namespace {

namespace fs = std::filesystem;

// Within this much of the output's range of torch's values (f32 everywhere).
constexpr double kOfRange = 1e-4;

fs::path model_folder(const std::string& name) {
    return generated_model("dynamo_models", "dynamo_" + name, "make_dynamo_models.py", "--only " + name,
                           torch_exporter_python());
}

class DynamoModel : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(DynamoModel, ReadWithoutShapesEqualsTorchAtBothShapes) {
    const auto& [name, device] = GetParam();
    const fs::path folder = model_folder(name);
    if (folder.empty())
        GTEST_SKIP() << "torch, transformers and onnxscript are needed to export dynamo_" << name
                     << " (bash scripts/install_model_exporters.sh; see dynamo_models/dynamo_" << name << ".log)";
    const DataSetReader read = backend_test_reader(folder);
    Core core;
    auto model = core.read_model((folder / "model.onnx").string());
    EXPECT_LT(model->input(0).get_partial_shape()[0], 0) << "the batch is dynamic as exported";
    // No GPU kernel for a 1-D convolution's LSTM, CvT's Einsum or fold's Col2Im: the GPU alone refuses them by name.
    if (name == "conv_lstm" && device == "GPU") return expect_refused(core, model, device, read, "LSTMSequence");
    if (name == "cvt" && device == "GPU") return expect_refused(core, model, device, read, "Einsum");
    if (name == "fold_mixer" && device == "GPU") return expect_refused(core, model, device, read, "Col2Im");
    CompiledModel compiled = core.compile_model(model, device);
    expect_data_sets(compiled, "dynamo_" + name + " on " + device, 2, read, kOfRange);
}

INSTANTIATE_TEST_SUITE_P(Exported, DynamoModel,
                         ::testing::Combine(::testing::Values("vit", "convnext", "bert", "conv_lstm", "pool_cnn", "token_split", "swin",
                                                              "poolformer", "cvt", "hf_resnet", "fold_mixer"),
                                            ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU")),
                         [](const auto& info) { return model_device_name(info); });

}  // namespace
}  // namespace mosaic::test
