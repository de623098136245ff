// QDQ models on the CPU device's integer kernels (plugins/cpu/integer_operands.hpp,
// quantize_executor.hpp): convolutions and MatMuls over dequantized operands run on u8/i8 with the
// quantization after them fused, residual Adds of two quantized tensors run on the integers, the
// remaining quantizations and dequantizations as one pass each; against REFERENCE, which runs the
// graph as the reader writes it (f32 ops, ONNX's arithmetic exactly). The two round the same
// reals at different points (the scales applied to an integer accumulator, or to f32 products),
// so a quantized value may differ by one step; every comparison allows that, no more.
#include "cpu/cpu_test_util.hpp"
#include "quantized/quantized_test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace mosaic::test {
namespace {

std::vector<nlohmann::json> executors_of(const std::shared_ptr<Model>& model) {
    std::vector<nlohmann::json> out;
    for (const auto& e : shared_core().compile_model(model, "CPU").get_property("CPU_EXECUTORS")) out.push_back(e);
    return out;
}

std::string listing(const std::vector<nlohmann::json>& executors) {
    std::string s;
    for (const auto& e : executors) s += "\n  " + e.at("type").get<std::string>() + " " + e.at("exec_type").get<std::string>();
    return s;
}

size_t count_type(const std::vector<nlohmann::json>& executors, const std::string& type, const std::string& exec_suffix = "") {
    return static_cast<size_t>(std::count_if(executors.begin(), executors.end(), [&](const nlohmann::json& e) {
        const std::string exec = e.at("exec_type");
        return e.at("type") == type &&
               (exec_suffix.empty() || (exec.size() >= exec_suffix.size() && exec.compare(exec.size() - exec_suffix.size(), exec_suffix.size(), exec_suffix) == 0));
    }));
}

// CPU against REFERENCE: every element within one quantization step `step` of the output, and
// at most `max_off_fraction` of them off by that step.
void expect_within_one_step(const std::shared_ptr<Model>& model, const Inputs& inputs, float step,
                            double max_off_fraction = 0.02) {
    const RunResult ref = run_on(model, "REFERENCE", inputs);
    const RunResult cpu = run_on(model, "CPU", inputs);
    ASSERT_EQ(ref.outputs.size(), cpu.outputs.size());
    for (size_t o = 0; o < ref.outputs.size(); ++o) {
        expect_near_all(ref.outputs[o], cpu.outputs[o], step * 1.01, 0, "output " + std::to_string(o));
        size_t off = 0;  // by a step: f32 ops after the last dequantization differ in ulps only
        for (size_t i = 0; i < ref.outputs[o].size(); ++i) off += std::fabs(ref.outputs[o][i] - cpu.outputs[o][i]) > 1e-3f;
        EXPECT_LE(static_cast<double>(off), max_off_fraction * static_cast<double>(ref.outputs[o].size()))
            << off << " of " << ref.outputs[o].size() << " elements differ by a step";
    }
}

// A ResNet bottleneck as ONNX Runtime's quantize_static writes it: the input quantized, two
// convolutions (per-channel then per-tensor weights, with biases) each quantized after, and the
// residual Add of the second's output and the first's, then Relu, quantized and dequantized.
std::shared_ptr<Model> residual_block(bool signed_activations = false) {
    QdqModel q;
    q.input("x", {1, 8, 10, 10});
    const std::string x = q.qdq("x", 0.02f, signed_activations ? 3 : 128, signed_activations);
    const std::string c1 = q.conv(x, q.weights({16, 8, 3, 3}, 1, 0), q.bias(16, 0.02f * 0.004f, 2), 3);
    const std::string a = q.qdq(c1, 0.05f, 0);  // after a removed Relu: zero point 0
    const std::string c2 = q.conv(a, q.weights({16, 16, 1, 1}, 3, -1), q.bias(16, 0.05f * 0.004f, 4), 1);
    const std::string b = q.qdq(c2, 0.04f, 120);
    const std::string sum = q.op("Relu", {q.op("Add", {b, a})});
    q.qdq(sum, 0.06f, 0);
    return q.finish("y", {1, 16, 10, 10}, "residual_block");
}

TEST(QuantizedCpu, ResidualBlockRunsOnIntegerKernels) {
    const std::shared_ptr<Model> model = residual_block();
    const std::vector<nlohmann::json> executors = executors_of(model);
    EXPECT_EQ(count_type(executors, "Convolution", "_I8"), 2u) << listing(executors);
    EXPECT_EQ(count_type(executors, "Quantize"), 1u) << listing(executors);    // the graph input
    EXPECT_EQ(count_type(executors, "Dequantize"), 1u) << listing(executors);  // the graph output
    // Nothing else: the second convolution rounds to its quantization's grid and adds the first's
    // integers as a sum post-op, then Relu and the final quantization; no Add, no f32
    // convolution, no Convert, Round, Clamp or Divide of a Q/DQ left running.
    EXPECT_EQ(executors.size(), 4u) << listing(executors);
    expect_within_one_step(model, {{"x", random_tensor({1, 8, 10, 10}, 7)}}, 0.06f);
}

// An Add of two quantized tensors that no convolution produced (here the graph's inputs, each
// quantized): Mosaic's integer kernel, with the Relu and the quantization after it.
TEST(QuantizedCpu, AddOfTwoQuantizedTensorsRunsOnTheIntegers) {
    QdqModel q;
    q.input("a", {1, 6, 5, 7});
    q.input("b", {1, 6, 5, 7});
    const std::string sum = q.op("Relu", {q.op("Add", {q.qdq("a", 0.01f, 128), q.qdq("b", 0.02f, 3, true)})});
    q.qdq(sum, 0.015f, 0);
    const std::shared_ptr<Model> model = q.finish("y", {1, 6, 5, 7}, "quantized_add");
    const std::vector<nlohmann::json> executors = executors_of(model);
    EXPECT_EQ(count_type(executors, "Add", "quantized_add"), 1u) << listing(executors);
    EXPECT_EQ(executors.size(), 4u) << listing(executors);  // two Quantize, the Add, one Dequantize
    expect_within_one_step(model, {{"a", random_tensor({1, 6, 5, 7}, 17)}, {"b", random_tensor({1, 6, 5, 7}, 18)}},
                           0.015f);
}

TEST(QuantizedCpu, SignedActivations) {
    const std::shared_ptr<Model> model = residual_block(true);
    EXPECT_EQ(count_type(executors_of(model), "Convolution", "_I8"), 2u) << listing(executors_of(model));
    expect_within_one_step(model, {{"x", random_tensor({1, 8, 10, 10}, 8)}}, 0.06f);
}

// Depthwise convolution (grouped, per-channel filters), global pooling in f32 between a
// dequantization and a quantization, and a Gemm with per-row weights (transB) on the integers.
TEST(QuantizedCpu, DepthwiseConvolutionPoolingAndGemm) {
    QdqModel q;
    q.input("x", {1, 12, 9, 9});
    const std::string x = q.qdq("x", 0.02f, 128);
    const std::string dw = q.conv(x, q.weights({12, 1, 3, 3}, 5, 0), q.bias(12, 0.02f * 0.004f, 6), 3, 12);
    const std::string pooled = q.qdq(q.op("GlobalAveragePool", {q.qdq(dw, 0.03f, 100)}), 0.01f, 110);
    const std::string flat = q.op("Flatten", {pooled});
    auto* gemm = add_node(q.proto(), "Gemm", {flat, q.weights({10, 12}, 7, 0), q.bias(10, 0.01f * 0.004f, 8)}, {"logits"}, "fc");
    set_int(gemm, "transB", 1);
    q.qdq("logits", 0.05f, 128);
    const std::shared_ptr<Model> model = q.finish("y", {1, 10}, "depthwise_gemm");
    const std::vector<nlohmann::json> executors = executors_of(model);
    EXPECT_EQ(count_type(executors, "GroupConvolution", "_I8"), 1u) << listing(executors);
    EXPECT_EQ(count_type(executors, "MatMul", "_I8"), 1u) << listing(executors);
    expect_within_one_step(model, {{"x", random_tensor({1, 12, 9, 9}, 9)}}, 0.05f);
}

// A MatMul over a 3-D activation (an encoder's [batch, tokens, hidden]) with weights quantized per
// output column, its result dequantized for an f32 op.
TEST(QuantizedCpu, MatMulWithPerColumnWeights) {
    QdqModel q;
    q.input("x", {1, 7, 16});
    const std::string x = q.qdq("x", 0.02f, 128);
    const std::string mm = q.op("MatMul", {x, q.weights({16, 24}, 11, 1)});
    q.op("Tanh", {q.qdq(q.op("Add", {mm, q.bias(24, 0.02f * 0.004f, 12)}), 0.03f, 128)});
    const std::shared_ptr<Model> model = q.finish("y", {1, 7, 24}, "matmul_columns");
    EXPECT_EQ(count_type(executors_of(model), "MatMul", "_I8"), 1u) << listing(executors_of(model));
    expect_within_one_step(model, {{"x", random_tensor({1, 7, 16}, 13)}}, 0.03f);
}

// Weights an integer kernel cannot take (u8 with a zero point, as quantize_static writes with
// weight_type=QUInt8) stay on the f32 path: dequantized at compile time, still the right answer.
TEST(QuantizedCpu, UnsignedWeightsRunInF32) {
    QdqModel q;
    q.input("x", {1, 4, 6, 6});
    const std::string x = q.qdq("x", 0.02f, 128);
    std::vector<uint8_t> w(4 * 4 * 9);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<uint8_t>((i * 37) % 256);
    add_raw_initializer<uint8_t>(q.proto(), "wq", ::onnx::TensorProto::UINT8, {4, 4, 3, 3}, w);
    add_initializer(q.proto(), "ws", {}, {0.003f});
    add_raw_initializer<uint8_t>(q.proto(), "wz", ::onnx::TensorProto::UINT8, {}, {128});
    add_node(q.proto(), "DequantizeLinear", {"wq", "ws", "wz"}, {"w"}, "w_dq");
    q.qdq(q.conv(x, "w", "", 3), 0.05f, 128);
    const std::shared_ptr<Model> model = q.finish("y", {1, 4, 6, 6}, "u8_weights");
    const std::vector<nlohmann::json> executors = executors_of(model);
    EXPECT_EQ(count_type(executors, "Convolution", "_I8"), 0u) << listing(executors);
    EXPECT_EQ(count_type(executors, "Convolution"), 1u) << listing(executors);
    expect_within_one_step(model, {{"x", random_tensor({1, 4, 6, 6}, 14)}}, 0.05f);
}

// An integer convolution with nothing fused after it (no bias, no quantization): an f32 result.
TEST(QuantizedCpu, BareIntegerConvolutionWritesReals) {
    QdqModel q;
    q.input("x", {1, 4, 6, 6});
    q.conv(q.qdq("x", 0.02f, 128), q.weights({6, 4, 3, 3}, 51, 0), "", 3);
    const std::shared_ptr<Model> model = q.finish("y", {1, 6, 6, 6}, "bare_conv");
    EXPECT_EQ(count_type(executors_of(model), "Convolution", "_I8"), 1u) << listing(executors_of(model));
    expect_matches_reference(model, {{"x", random_tensor({1, 4, 6, 6}, 52)}}, {}, 1e-4, 1e-4);
}

// A dequantized tensor read by an integer convolution and by an f32 op too: the dequantization
// still runs for the f32 reader.
TEST(QuantizedCpu, DequantizedTensorWithAnF32ReaderStillRuns) {
    QdqModel q;
    q.input("x", {1, 4, 6, 6});
    const std::string x = q.qdq("x", 0.02f, 128);
    const std::string conv = q.qdq(q.conv(x, q.weights({4, 4, 3, 3}, 15, 0), "", 3), 0.05f, 128);
    q.op("Sigmoid", {x});
    q.name_last("s");
    q.op("Add", {conv, "s"});
    const std::shared_ptr<Model> model = q.finish("y", {1, 4, 6, 6}, "shared_dequantize");
    const std::vector<nlohmann::json> executors = executors_of(model);
    EXPECT_EQ(count_type(executors, "Convolution", "_I8"), 1u) << listing(executors);
    EXPECT_EQ(count_type(executors, "Dequantize"), 2u) << listing(executors);
    expect_within_one_step(model, {{"x", random_tensor({1, 4, 6, 6}, 16)}}, 0.05f);
}

// The residual's quantization (u8) is not the sum's (i8): the convolution cannot add the
// shortcut's bytes as its own type, so it writes its u8 result and the Add runs on its own.
TEST(QuantizedCpu, ResidualOfAnotherTypeThanTheSum) {
    QdqModel q;
    q.input("x", {1, 8, 6, 6});
    const std::string a = q.qdq("x", 0.02f, 128);
    const std::string b = q.qdq(q.conv(a, q.weights({8, 8, 1, 1}, 31, 0), q.bias(8, 0.02f * 0.004f, 32), 1), 0.04f, 120);
    q.qdq(q.op("Add", {b, a}), 0.05f, -3, true);
    const std::shared_ptr<Model> model = q.finish("y", {1, 8, 6, 6}, "mixed_residual");
    const std::vector<nlohmann::json> executors = executors_of(model);
    EXPECT_EQ(count_type(executors, "Convolution", "_I8"), 1u) << listing(executors);
    EXPECT_EQ(count_type(executors, "Add"), 1u) << listing(executors);
    expect_within_one_step(model, {{"x", random_tensor({1, 8, 6, 6}, 33)}}, 0.05f);
}

// A bias of one value per row ([M, 1]) on a square product has as many values as columns: it must
// not be taken as per-column (the integer kernel divides each by its column's scale).
TEST(QuantizedCpu, RowBiasOfASquareMatMulIsNotPerColumn) {
    QdqModel q;
    q.input("x", {4, 8});
    const std::string mm = q.op("MatMul", {q.qdq("x", 0.02f, 128), q.weights({8, 4}, 41, 1)});
    add_initializer(q.proto(), "row_bias", {4, 1}, {0.5f, -1.0f, 2.0f, 0.25f});
    q.qdq(q.op("Add", {mm, "row_bias"}), 0.03f, 128);
    const std::shared_ptr<Model> model = q.finish("y", {4, 4}, "row_bias");
    expect_within_one_step(model, {{"x", random_tensor({4, 8}, 42)}}, 0.03f);
}

// An integer tensor converted to f32 and multiplied by per-channel gains that broadcast it to more
// channels (a grey image made RGB) is no dequantization: computed as written.
TEST(QuantizedCpu, BroadcastingGainsAreNoDequantization) {
    ModelBuilder b("gains");
    Output grey = b.parameter("x", ElementType::u8, {1, 1, 4, 5});
    Output f = b.op("Convert", {grey}, {{"destination_type", "f32"}});
    Output rgb = b.op("Multiply", {f, b.constant<float>({1, 3, 1, 1}, {0.5f, 1.0f, 2.0f})});
    b.result(b.op("Relu", {rgb}), "y");
    const std::shared_ptr<Model> model = b.build();
    std::vector<uint8_t> pixels(20);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 13);
    const Inputs inputs{{"x", Tensor::from_vector(Shape{1, 1, 4, 5}, ElementType::u8, pixels)}};
    const RunResult ref = run_on(model, "REFERENCE", inputs);
    const RunResult cpu = run_on(model, "CPU", inputs);
    expect_near_all(ref.outputs[0], cpu.outputs[0], 0, 0, "y");
}

}  // namespace
}  // namespace mosaic::test
