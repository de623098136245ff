// Transformers exported by Hugging Face optimum (tools/models/make_optimum_models.py): a Llama decoder
// (grouped-query attention, rotary positions) and a GPT-2 decoder, each with past_key_values, and a
// BERT encoder; and the two decoders as optimum-intel's stateful OpenVINO IR (below). Each is read as it comes (every dimension but the cache's heads and width dynamic),
// compiled once, and run on every device:
//
// - a decoder as a generation: the prompt for two rows (the second left-padded, an empty past), then
//   three steps of one token each, whose past is the presents this request returned the step
//   before (the KV cache as an application feeds it back), every output equal to ONNX Runtime's,
//   and the greedy next token of each row the one ONNX Runtime chose;
// - the encoder at two shapes (one row of 7 tokens; two rows of 12, the second padded).
#include <mosaic/mosaic.hpp>
#include <mosaic/onnx.hpp>

#include <gtest/gtest.h>

#include "exporter_models.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace mosaic::test {
namespace {

namespace fs = std::filesystem;

// Within this much of the output's range of ONNX Runtime's values (f32 everywhere).
constexpr double kOfRange = 1e-4;

fs::path model_folder(const std::string& name) {
    return generated_model("optimum_models", "optimum_" + name, "make_optimum_models.py", "--only " + name,
                           torch_exporter_python());
}

bool is_decoder(const std::string& name) { return name != "bert"; }

// Row r's greedy token: the argmax of the last position's logits [batch, length, vocab].
int64_t greedy_token(const Tensor& logits, size_t row) {
    const Shape& s = logits.get_shape();
    const size_t length = static_cast<size_t>(s[1]), vocab = static_cast<size_t>(s[2]);
    const float* last = logits.data<float>() + (row * length + length - 1) * vocab;
    return static_cast<int64_t>(std::max_element(last, last + vocab) - last);
}

class OptimumModel : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(OptimumModel, ReadWithoutShapesEqualsOnnxRuntime) {
    const auto& [name, device] = GetParam();
    const fs::path folder = model_folder(name);
    if (folder.empty())
        GTEST_SKIP() << "torch, transformers and optimum are needed to export optimum_" << name
                     << " (bash scripts/install_model_exporters.sh; see build/optimum_models/optimum_" << name << ".log)";
    Core core;
    auto model = core.read_model((folder / "model.onnx").string());
    EXPECT_LT(model->input("input_ids").get_partial_shape()[1], 0) << "the sequence length is dynamic as exported";
    CompiledModel compiled = core.compile_model(model, device);
    InferRequest request = compiled.create_infer_request();
    size_t steps = 0;
    std::ifstream(folder / "steps.txt") >> steps;
    ASSERT_GE(steps, 2u);

    std::vector<Tensor> previous;  // the last step's outputs, by output index
    size_t input_ids = 0;
    double worst = 0;
    for (size_t k = 0; k < steps; ++k) {
        const fs::path data = folder / ("test_data_set_" + std::to_string(k));
        for (size_t i = 0; i < compiled.inputs().size(); ++i) {
            const std::string input = compiled.inputs()[i].get_any_name();
            Tensor value = onnx::read_tensor_file((data / ("input_" + std::to_string(i) + ".pb")).string());
            if (k > 0 && input.rfind("past_key_values.", 0) == 0) {
                // This request's own presents of the step before, not ONNX Runtime's.
                const std::string present = "present." + input.substr(std::strlen("past_key_values."));
                bool found = false;
                for (size_t o = 0; o < compiled.outputs().size(); ++o)
                    if (compiled.outputs()[o].get_any_name() == present) {
                        value = previous.at(o);
                        found = true;
                    }
                ASSERT_TRUE(found) << "no output " << present;
            }
            if (input == "input_ids") input_ids = i;
            request.set_input_tensor(i, value);
        }
        request.infer();
        previous.clear();
        for (size_t o = 0; o < compiled.outputs().size(); ++o) {
            const std::string what = "optimum_" + name + " on " + device + ", step " + std::to_string(k) + ", " +
                                     compiled.outputs()[o].get_any_name();
            const Tensor got = request.get_output_tensor(o);
            const Tensor want = onnx::read_tensor_file((data / ("output_" + std::to_string(o) + ".pb")).string());
            worst = std::max(worst, expect_within_range(got, want, what, kOfRange));
            previous.push_back(got.clone());  // the next step reads it while this request writes anew
        }
        if (is_decoder(name) && k + 1 < steps) {
            // The next step's input_ids are ONNX Runtime's greedy choices; this device's must agree.
            const fs::path next_data = folder / ("test_data_set_" + std::to_string(k + 1));
            const Tensor next = onnx::read_tensor_file((next_data / ("input_" + std::to_string(input_ids) + ".pb")).string());
            for (size_t row = 0; row < 2; ++row)
                EXPECT_EQ(greedy_token(previous.at(0), row), next.data<int64_t>()[row]) << "step " << k << ", row " << row;
        }
    }
    std::printf("optimum_%s on %s: largest difference %.3g of the range over %zu steps\n", name.c_str(), device.c_str(),
                worst, steps);
}

// optimum-intel's OpenVINO IR of the same decoders, stateful: one request keeps the KV cache (a
// variable of dynamic shape per layer's keys and values) from the prompt through three one-token
// steps, every step's last logits of each row equal to OpenVINO's CPU plugin (f32) and the greedy
// tokens the same. The logits of the prompt's padded positions are not compared: no row attends
// there, and each runtime fills them differently.
class OptimumIrModel : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

// Row r's logits at the last position, [vocab].
std::vector<float> last_logits(const Tensor& logits, size_t row) {
    const Shape& s = logits.get_shape();
    const size_t length = static_cast<size_t>(s[1]), vocab = static_cast<size_t>(s[2]);
    const float* last = logits.data<float>() + (row * length + length - 1) * vocab;
    return std::vector<float>(last, last + vocab);
}

TEST_P(OptimumIrModel, AStatefulGenerationEqualsOpenVino) {
    const auto& [name, device] = GetParam();
    const fs::path folder = generated_model("optimum_models", "optimum_" + name + "_ov", "make_optimum_models.py",
                                            "--only " + name + "_ov", torch_exporter_python(), "openvino_model.xml");
    if (folder.empty())
        GTEST_SKIP() << "torch, transformers, optimum-intel and openvino are needed to export optimum_" << name
                     << "_ov (bash scripts/install_model_exporters.sh; see build/optimum_models/optimum_" << name << "_ov.log)";
    Core core;
    auto model = core.read_model((folder / "openvino_model.xml").string());
    CompiledModel compiled = core.compile_model(model, device);
    ASSERT_EQ(compiled.inputs().size(), 4u) << "input_ids, attention_mask, position_ids, beam_idx: the cache is state";
    InferRequest request = compiled.create_infer_request();
    size_t steps = 0;
    std::ifstream(folder / "steps.txt") >> steps;
    ASSERT_GE(steps, 2u);
    double worst = 0;
    for (size_t k = 0; k < steps; ++k) {
        const fs::path data = folder / ("test_data_set_" + std::to_string(k));
        for (size_t i = 0; i < compiled.inputs().size(); ++i)
            request.set_input_tensor(i, onnx::read_tensor_file((data / ("input_" + std::to_string(i) + ".pb")).string()));
        request.infer();
        const Tensor got = request.get_output_tensor(0), want = onnx::read_tensor_file((data / "output_0.pb").string());
        ASSERT_EQ(to_string(got.get_shape()), to_string(want.get_shape())) << "step " << k;
        for (size_t row = 0; row < 2; ++row) {
            const std::vector<float> g = last_logits(got, row), w = last_logits(want, row);
            const Shape vocab{static_cast<int64_t>(g.size())};
            worst = std::max(worst, expect_within_range(Tensor::from_vector(vocab, ElementType::f32, g),
                                                        Tensor::from_vector(vocab, ElementType::f32, w),
                                                        "optimum_" + name + "_ov on " + device + ", step " +
                                                            std::to_string(k) + ", row " + std::to_string(row),
                                                        kOfRange));
            EXPECT_EQ(greedy_token(got, row), greedy_token(want, row)) << "step " << k << ", row " << row;
        }
    }
    std::printf("optimum_%s_ov on %s: largest difference %.3g of the range over %zu steps\n", name.c_str(),
                device.c_str(), worst, steps);
}

INSTANTIATE_TEST_SUITE_P(Exported, OptimumIrModel,
                         ::testing::Combine(::testing::Values("llama", "gpt2"),
                                            ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU")),
                         [](const auto& info) { return model_device_name(info); });

INSTANTIATE_TEST_SUITE_P(Exported, OptimumModel,
                         ::testing::Combine(::testing::Values("llama", "gpt2", "bert"),
                                            ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU")),
                         [](const auto& info) { return model_device_name(info); });

}  // namespace
}  // namespace mosaic::test
