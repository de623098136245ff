// INFERENCE_PRECISION_HINT bf16: convolutions and MatMuls with constant weights compute in bf16
// (oneDNN's bf16 kernels), activations between them are stored in bf16, graph outputs stay f32.
// Offered only where the CPU computes bf16 natively; elsewhere the hint is refused, naming it.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace mosaic::test {
namespace {

std::shared_ptr<Model> cnn() {
    ModelBuilder b("cnn_bf16");
    Output x = b.parameter("x", ElementType::f32, {1, 16, 10, 10});
    Output y = b.op("Relu", {conv_bias(b, x, 16, 32, 41, "conv1")}, {}, "relu1");
    y = b.op("Add", {conv_bias(b, y, 32, 32, 43, "conv2"), y}, {}, "residual");
    b.result(b.op("Sigmoid", {conv_bias(b, y, 32, 16, 47, "conv3")}, {}, "sigmoid"), "y");
    return b.build();
}

std::shared_ptr<Model> mlp() {
    ModelBuilder b("mlp_bf16");
    Output x = b.parameter("x", ElementType::f32, {4, 64});
    Output h = b.op("MatMul", {x, random_constant(b, {64, 96}, 51, "w1")}, {{"transpose_a", "false"}, {"transpose_b", "false"}}, "fc1");
    h = b.op("Relu", {b.op("Add", {h, random_constant(b, {96}, 53, "b1")}, {}, "bias1")}, {}, "relu");
    b.result(b.op("MatMul", {h, random_constant(b, {96, 32}, 57, "w2")}, {{"transpose_a", "false"}, {"transpose_b", "false"}}, "fc2"), "y");
    return b.build();
}

// FULL_DEVICE_NAME names the instruction set oneDNN uses ("..., avx512_core_bf16)").
bool offers_bf16() {
    const std::string isa = shared_core().get_property("CPU", "FULL_DEVICE_NAME").get<std::string>();
    return contains(isa, "bf16") || contains(isa, "amx");
}

// bf16 keeps 8 bits of mantissa: each product is off by up to 2^-8 relative, sums by less.
constexpr double kAtol = 5e-2, kRtol = 3e-2;

TEST(CpuBf16, ConvolutionsComputeInBf16AndStayClose) {
    if (!offers_bf16()) GTEST_SKIP() << "this CPU has no native bf16 (AVX512-BF16 or AMX)";
    const Inputs in{{"x", random_tensor({1, 16, 10, 10}, 7)}};
    const RunResult r = expect_matches_reference(cnn(), in, {{"PERF_COUNT", true}, {"INFERENCE_PRECISION_HINT", "bf16"}},
                                                 kAtol, kRtol);
    const RunResult f32 = run_on(cnn(), "CPU", in);
    EXPECT_NE(r.outputs, f32.outputs) << "bf16 gave bit-identical results: it did not compute in bf16";
    for (const auto& p : op_records(r.profile))
        if (p.node_type == "Convolution") {
            EXPECT_NE(p.exec_type.find("bf16"), std::string::npos) << contents(r.profile);
        }
}

TEST(CpuBf16, MatMulsWithConstantWeightsComputeInBf16) {
    if (!offers_bf16()) GTEST_SKIP() << "this CPU has no native bf16 (AVX512-BF16 or AMX)";
    const Inputs in{{"x", random_tensor({4, 64}, 9)}};
    const RunResult r = expect_matches_reference(mlp(), in, {{"PERF_COUNT", true}, {"INFERENCE_PRECISION_HINT", "bf16"}},
                                                 kAtol, kRtol);
    EXPECT_NE(r.outputs, run_on(mlp(), "CPU", in).outputs);
    EXPECT_EQ(shared_core().compile_model(mlp(), "CPU", {{"INFERENCE_PRECISION_HINT", "bf16"}})
                  .get_property("INFERENCE_PRECISION_HINT"),
              "bf16");
}

TEST(CpuBf16, BlockedBf16BranchesConcatenateWithoutReorders) {
    if (!offers_bf16()) GTEST_SKIP() << "this CPU has no native bf16 (AVX512-BF16 or AMX)";
    ModelBuilder b("fire_bf16");
    Output x = b.parameter("x", ElementType::f32, {1, 16, 9, 9});
    Output e1 = b.op("Relu", {conv_bias(b, x, 16, 16, 61, "expand1", 1)}, {}, "relu_1");
    Output e3 = b.op("Relu", {conv_bias(b, x, 16, 16, 67, "expand3", 3)}, {}, "relu_3");
    Output joined = b.op("Concat", {e1, e3}, {{"axis", "1"}}, "concat");
    b.result(conv_bias(b, joined, 32, 16, 71, "next", 1), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 16, 9, 9}, 11)}},
                                                 {{"PERF_COUNT", true}, {"INFERENCE_PRECISION_HINT", "bf16"}}, kAtol, kRtol);
    EXPECT_EQ(reorder_count(r.profile), 0u) << contents(r.profile);
}

TEST(CpuBf16, OfferedExactlyWhenTheCpuHasIt) {
    const std::string error =
        error_of([] { shared_core().compile_model(cnn(), "CPU", {{"INFERENCE_PRECISION_HINT", "bf16"}}); });
    if (offers_bf16()) {
        EXPECT_EQ(error, "(no error)");
    } else {
        EXPECT_TRUE(contains(error, "INFERENCE_PRECISION_HINT")) << error;
        EXPECT_TRUE(contains(error, "f32")) << error;
    }
}

}  // namespace
}  // namespace mosaic::test
