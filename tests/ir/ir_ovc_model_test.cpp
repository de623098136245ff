// OpenVINO IR as OpenVINO's converter writes it (tools/models/make_ovc_models.py): a ViT, a ConvNeXt
// with a [?,3,?,?] input, a BERT encoder and a Conv1d + LSTM keyword spotter, each converted twice
// (and a CNN pooling with ceil_mode, MaxPool-14 and AvgPool-14 with ceil_torch, converted once):
// from the torch module by `openvino.convert_model` with f32 constants, and from its ONNX export by
// the `ovc` command with its default FP16 compression (f16 constants, each decompressed by a
// Convert). Each is read as it comes, compiled once and run at its two data sets' shapes, every
// output equal to OpenVINO's CPU plugin (f32 inference) on the same IR, on every device.
#include "onnx/exported_data_sets.hpp"

#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include "tools/mosaic/npy.hpp"

#include <filesystem>

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
    // No GPU kernel for a 1-D convolution or an LSTM.
    if (name.rfind("conv_lstm", 0) == 0 && device == "GPU") return expect_refused(core, model, device, read, "LSTMSequence");
    CompiledModel compiled = core.compile_model(model, device);
    expect_data_sets(compiled, "ovc_" + name + " on " + device, 2, read, kOfRange);
}

INSTANTIATE_TEST_SUITE_P(Converted, OvcModel,
                         ::testing::Combine(::testing::Values("vit_f32", "vit_fp16", "convnext_f32", "convnext_fp16",
                                                              "bert_f32", "bert_fp16", "conv_lstm_f32", "conv_lstm_fp16",
                                                              "pool_cnn_f32"),
                                            ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU")),
                         [](const auto& info) { return model_device_name(info); });

}  // namespace
}  // namespace mosaic::test
