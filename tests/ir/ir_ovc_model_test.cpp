// OpenVINO IR as OpenVINO's converter writes it (tools/models/make_ovc_models.py): a ViT, a ConvNeXt
// with a [?,3,?,?] input, a BERT encoder and a Conv1d + LSTM keyword spotter, each converted twice
// (and a CNN pooling with ceil_mode, MaxPool-14 and AvgPool-14 with ceil_torch, converted once; a
// token mixer whose VariadicSplit takes lengths computed from a dynamic shape, once; small Swin,
// PoolFormer, CvT and ResNet image classifiers of transformers, twice; MobileViT's fold, whose Col2Im
// takes an output size computed when the model runs, once):
// from the torch module by `openvino.convert_model` with f32 constants, and from its ONNX export by
// the `ovc` command with its default FP16 compression (f16 constants, each decompressed by a
// Convert). Each is read as it comes, compiled once and run at its two data sets' shapes, every
// output equal to OpenVINO's CPU plugin (f32 inference) on the same IR, on every device.
#include "onnx/exported_data_sets.hpp"

#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include "tools/mosaic/npy.hpp"

#include <filesystem>
#include <map>

namespace mosaic::test {
namespace {

namespace fs = std::filesystem;

// Within this much of the output's range of OpenVINO's values.
constexpr double kOfRange = 1e-4;

fs::path model_folder(const std::string& name) {
    return generated_model("ovc_models", "ovc_" + name, "make_ovc_models.py", "--only " + name, torch_exporter_python(),
                           "model.xml");
}

class OvcModel : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(OvcModel, EqualsOpenVinoAtBothShapes) {
    const auto& [name, device] = GetParam();
    const fs::path folder = model_folder(name);
    if (folder.empty())
        GTEST_SKIP() << "torch, transformers and openvino are needed to convert ovc_" << name
                     << " (bash scripts/install_model_exporters.sh; see ovc_models/ovc_" << name << ".log)";
    const DataSetReader read = [&](int set, bool output, size_t i) {
        return npy::read((folder / ("case_" + std::to_string(set)) / ((output ? "output_" : "input_") + std::to_string(i) + ".npy"))
                             .string());
    };
    Core core;
    auto model = core.read_model((folder / "model.xml").string());
    EXPECT_LT(model->input(0).get_partial_shape()[0], 0) << "the batch is dynamic as converted";
    // The op each model has that the GPU has no kernel for (a 1-D convolution's LSTM, CvT's Einsum, fold's Col2Im):
    // the GPU alone refuses the model naming it; HETERO:GPU,CPU runs it.
    static const std::map<std::string, std::string> gpu_lacks = {
        {"conv_lstm_f32", "LSTMSequence"}, {"conv_lstm_fp16", "LSTMSequence"}, {"cvt_f32", "Einsum"}, {"cvt_fp16", "Einsum"},
        {"fold_mixer_f32", "Col2Im"}};
    if (const auto it = gpu_lacks.find(name); it != gpu_lacks.end() && device == "GPU")
        return expect_refused(core, model, device, read, it->second);
    CompiledModel compiled = core.compile_model(model, device);
    expect_data_sets(compiled, "ovc_" + name + " on " + device, 2, read, kOfRange);
}

INSTANTIATE_TEST_SUITE_P(Converted, OvcModel,
                         ::testing::Combine(::testing::Values("vit_f32", "vit_fp16", "convnext_f32", "convnext_fp16",
                                                              "bert_f32", "bert_fp16", "conv_lstm_f32", "conv_lstm_fp16",
                                                              "pool_cnn_f32", "token_split_f32", "swin_f32", "swin_fp16",
                                                              "poolformer_f32", "poolformer_fp16", "cvt_f32", "cvt_fp16",
                                                              "hf_resnet_f32", "hf_resnet_fp16", "fold_mixer_f32"),
                                            ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU")),
                         [](const auto& info) { return model_device_name(info); });

}  // namespace
}  // namespace mosaic::test
