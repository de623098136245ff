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
#include <random>

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

// CPU (or `device`) against REFERENCE: every element within `steps` quantization steps `step` of
// the output, and at most `max_off_fraction` of them off at all.
void expect_within_one_step(const std::shared_ptr<Model>& model, const Inputs& inputs, float step,
                            double max_off_fraction = 0.02, int steps = 1, const std::string& device = "CPU") {
    const RunResult ref = run_on(model, "REFERENCE", inputs);
    const RunResult cpu = run_on(model, device, inputs);
    ASSERT_EQ(ref.outputs.size(), cpu.outputs.size());
    for (size_t o = 0; o < ref.outputs.size(); ++o) {
        expect_near_all(ref.outputs[o], cpu.outputs[o], step * steps * 1.01, 0, "output " + std::to_string(o));
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

// OpenVINO IR as NNCF's nncf.quantize writes it (fake_quantize_rewrite.hpp): FakeQuantize with 256
// levels on activations, a range tuned so that zero is a level (signed: zero point 128, or from 0),
// i8 filters dequantized per output channel by Convert and Multiply; a convolution between two
// FakeQuantizes, a residual Add and a Relu. REFERENCE computes FakeQuantize's formula in double, the
// CPU rounds the integer kernels' accumulators to the same grid: ties land a step apart more often
// than between two QDQ runtimes (4% of the outputs, not 2%).
struct NncfBlock {
    ModelBuilder b{"nncf_block"};

    Output fake_quantize(Output x, float low, float high, int64_t levels = 256, float out_high = 0) {
        return b.op("FakeQuantize",
                    {x, b.constant<float>({}, {low}), b.constant<float>({}, {high}), b.constant<float>({}, {low}),
                     b.constant<float>({}, {out_high ? out_high : high})},
                    {{"levels", std::to_string(levels)}, {"auto_broadcast", "numpy"}});
    }
    Output conv(Output x, int64_t in, int64_t out, int64_t k, uint32_t seed) {
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> dist(-127, 127);
        std::vector<int8_t> q(static_cast<size_t>(out * in * k * k));
        for (int8_t& v : q) v = static_cast<int8_t>(dist(rng));
        std::vector<float> scale(static_cast<size_t>(out));
        for (size_t i = 0; i < scale.size(); ++i) scale[i] = 0.002f * static_cast<float>(1 + i % 5);
        const Output w = b.op("Multiply", {b.op("Convert", {b.constant<int8_t>({out, in, k, k}, q)}, {{"destination_type", "f32"}}),
                                           b.constant<float>({out, 1, 1, 1}, scale)});
        const std::string pad = std::to_string(k / 2);
        return b.op("Convolution", {x, w},
                    {{"strides", "1,1"}, {"pads_begin", pad + "," + pad}, {"pads_end", pad + "," + pad}, {"dilations", "1,1"},
                     {"auto_pad", "explicit"}});
    }
};

std::shared_ptr<Model> nncf_block(int64_t first_levels = 256, float first_out_high = 0) {
    NncfBlock n;
    const Output x = n.b.parameter("x", ElementType::f32, {1, 8, 10, 10});
    // Signed: [-1.28, 1.27] is 256 levels of 0.01 with 0 the 129th (zero point 128).
    const Output a = n.fake_quantize(x, -1.28f, 1.27f, first_levels, first_out_high);
    const Output c1 = n.fake_quantize(n.b.op("Relu", {n.conv(a, 8, 16, 3, 1)}), 0.0f, 2.55f);
    const Output c2 = n.fake_quantize(n.conv(c1, 16, 16, 1, 2), -2.56f, 2.54f);
    const Output sum = n.b.op("Relu", {n.b.op("Add", {c2, c1})});
    n.b.result(n.fake_quantize(sum, 0.0f, 3.06f), "y");
    return n.b.build();
}

// Before a depthwise convolution NNCF quantizes each channel with its own range ([1, C, 1, 1]
// bounds, zero point 0): one quantization and one dequantization pass, as a QDQ model's per-axis
// parameters, not FakeQuantize's formula element by element on the reference kernel.
std::shared_ptr<Model> per_channel_fake_quantize(std::vector<float>& high) {
    ModelBuilder b("per_channel_fake_quantize");
    const Output x = b.parameter("x", ElementType::f32, {1, 8, 10, 10});
    high.resize(8);
    for (size_t c = 0; c < high.size(); ++c) high[c] = 0.5f + 0.25f * static_cast<float>(c);
    const Output low = b.constant<float>({1, 8, 1, 1}, std::vector<float>(8, 0.0f));
    const Output up = b.constant<float>({1, 8, 1, 1}, high);
    b.result(b.op("Relu", {b.op("FakeQuantize", {x, low, up, low, up}, {{"levels", "256"}, {"auto_broadcast", "numpy"}})}), "y");
    return b.build();
}

TEST(QuantizedCpu, NncfPerChannelFakeQuantizeIsOneQuantization) {
    std::vector<float> high;
    const std::shared_ptr<Model> model = per_channel_fake_quantize(high);
    const std::vector<nlohmann::json> executors = executors_of(model);
    EXPECT_EQ(count_type(executors, "FakeQuantize"), 0u) << listing(executors);
    EXPECT_EQ(count_type(executors, "Quantize"), 1u) << listing(executors);
    expect_within_one_step(model, {{"x", random_tensor({1, 8, 10, 10}, 11)}}, high.back() / 255);
}

TEST(QuantizedCpu, NncfFakeQuantizeRunsOnIntegerKernels) {
    const std::shared_ptr<Model> model = nncf_block();
    const std::vector<nlohmann::json> executors = executors_of(model);
    EXPECT_EQ(count_type(executors, "Convolution", "_I8"), 2u) << listing(executors);
    EXPECT_EQ(count_type(executors, "FakeQuantize"), 0u) << listing(executors);
    expect_within_one_step(model, {{"x", random_tensor({1, 8, 10, 10}, 9)}}, 3.06f / 255, 0.04);
}

// The GPU has no FakeQuantize kernel: it runs those the rewrite takes as their quantize-dequantize
// ops (u8 and i8), and its query says so; HETERO:GPU,CPU then keeps the whole block on the GPU.
// Its convolutions sum in f32 in another order than REFERENCE's: a tie of the first quantization
// rounded apart can move the output by two steps, as in the test below.
TEST(QuantizedCpu, NncfFakeQuantizeRunsOnTheGpuAsItsOps) {
    std::vector<float> high;
    const std::shared_ptr<Model> per_channel = per_channel_fake_quantize(high);
    const Inputs inputs{{"x", random_tensor({1, 8, 10, 10}, 12)}};
    for (const std::string device : {"GPU", "HETERO:GPU,CPU"}) {
        expect_within_one_step(nncf_block(), inputs, 3.06f / 255, 0.05, 2, device);
        expect_within_one_step(per_channel, inputs, high.back() / 255, 0.02, 1, device);
    }
    const QueryResult query = shared_core().query_model_details(nncf_block(), "GPU");
    EXPECT_TRUE(query.unsupported.empty()) << (query.unsupported.empty() ? "" : query.unsupported.begin()->first);
    // One that is no integer grid (255 levels) has no GPU kernel, and the query names it.
    const QueryResult off_grid = shared_core().query_model_details(nncf_block(255), "GPU");
    ASSERT_EQ(off_grid.unsupported.size(), 1u);
    const auto& [name, reasons] = *off_grid.unsupported.begin();
    EXPECT_NE(reasons.at("GPU").find("FakeQuantize"), std::string::npos) << name << ": " << reasons.at("GPU");
}

// A FakeQuantize no integer kernel or quantization pass takes (a scalar) runs as its ops one by
// one, Round-5 among them; one of a constant (a weight) folds by FakeQuantize's own formula.
TEST(QuantizedCpu, FakeQuantizeOfAScalarRunsAndOfAConstantFolds) {
    ModelBuilder b("scalar_and_constant_fake_quantize");
    const Output x = b.parameter("x", ElementType::f32, {});
    const auto fq = [&](Output v) {
        const Output low = b.constant<float>({}, {-1.28f}), high = b.constant<float>({}, {1.27f});
        return b.op("FakeQuantize", {v, low, high, low, high}, {{"levels", "256"}, {"auto_broadcast", "numpy"}});
    };
    const Output weight = fq(b.constant<float>({}, {0.333f}));
    b.result(b.op("Add", {fq(b.op("Multiply", {x, b.constant<float>({}, {2.0f})})), weight}), "y");
    const std::shared_ptr<Model> model = b.build();
    const std::vector<nlohmann::json> executors = executors_of(model);
    EXPECT_EQ(count_type(executors, "Round"), 1u) << listing(executors);  // the scalar's, not the weight's
    expect_within_one_step(model, {{"x", Tensor::from_vector({}, ElementType::f32, std::vector<float>{0.4567f})}}, 0.01f);
}

// FakeQuantizes that are no plain integer grid stay as they are (the reference kernel), and the
// model still computes them: 255 levels, or a range that differs in and out. The first convolution
// then runs in f32 on oneDNN, whose sums round apart from REFERENCE's: a step of the next
// quantization, which the second convolution and the Add can make two of the output's.
TEST(QuantizedCpu, FakeQuantizeOffTheIntegerGridStaysAsWritten) {
    for (const auto& model : {nncf_block(255), nncf_block(256, 2.0f)}) {
        const std::vector<nlohmann::json> executors = executors_of(model);
        EXPECT_EQ(count_type(executors, "FakeQuantize"), 1u) << listing(executors);
        expect_within_one_step(model, {{"x", random_tensor({1, 8, 10, 10}, 10)}}, 3.06f / 255, 0.05, 2);
    }
}

}  // namespace
}  // namespace mosaic::test
