// Ops fused into a convolution or MatMul: the result equals REFERENCE running every op on its own,
// and profiling shows one record for the whole chain, named after its last op.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test {
namespace {

// x -> conv_a + bias -> relu_a = r;  r -> conv_b + bias -> Add(r) -> relu_out: ResNet's basic block.
std::shared_ptr<Model> residual_block(bool add_before_relu = true) {
    ModelBuilder b("residual_block");
    Output x = b.parameter("x", ElementType::f32, {1, 8, 12, 12});
    Output r = b.op("Relu", {conv_bias(b, x, 8, 16, 10, "conv_a")}, {}, "relu_a");
    Output y = conv_bias(b, r, 16, 16, 20, "conv_b");
    if (add_before_relu) {
        y = b.op("Relu", {b.op("Add", {y, r}, {}, "residual")}, {}, "relu_out");
    } else {
        y = b.op("Add", {b.op("Relu", {y}, {}, "relu_b"), r}, {}, "residual");
    }
    b.result(y, "y");
    return b.build();
}

TEST(CpuFusion, ConvBiasReluResidualAddIsOneExecutor) {
    const RunResult r = expect_matches_reference(residual_block(), {{"x", random_tensor({1, 8, 12, 12}, 1)}});
    ASSERT_EQ(r.profile.size(), 2u) << contents(r.profile);
    const ProfilingInfo* a = record_named(r.profile, "relu_a");
    const ProfilingInfo* b = record_named(r.profile, "relu_out");
    ASSERT_NE(a, nullptr) << contents(r.profile);
    ASSERT_NE(b, nullptr) << contents(r.profile);
    EXPECT_EQ(b->node_type, "Convolution");
    EXPECT_NE(b->exec_type, "ref");
    EXPECT_EQ(b->status, ProfilingInfo::Status::executed);
}

TEST(CpuFusion, ActivationBeforeTheResidualAddFusesToo) {
    const RunResult r = expect_matches_reference(residual_block(false), {{"x", random_tensor({1, 8, 12, 12}, 2)}});
    ASSERT_EQ(r.profile.size(), 2u) << contents(r.profile);
    ASSERT_NE(record_named(r.profile, "residual"), nullptr) << contents(r.profile);
}

// The residual is still read after the Add: accumulating into it would lose it, so the Add runs alone.
TEST(CpuFusion, ResidualThatLivesOnIsNotAccumulatedInto) {
    ModelBuilder b("residual_lives_on");
    Output x = b.parameter("x", ElementType::f32, {1, 4, 8, 8});
    Output r = b.op("Relu", {conv_bias(b, x, 4, 4, 30, "conv_a")}, {}, "relu_a");
    Output sum = b.op("Add", {conv_bias(b, r, 4, 4, 40, "conv_b"), r}, {}, "residual");
    b.result(b.op("Multiply", {sum, r}, {}, "reuse"), "y");
    const RunResult result = expect_matches_reference(b.build(), {{"x", random_tensor({1, 4, 8, 8}, 3)}});
    ASSERT_NE(record_named(result.profile, "residual"), nullptr) << contents(result.profile);
    EXPECT_EQ(record_named(result.profile, "residual")->node_type, "Add");
    ASSERT_NE(record_named(result.profile, "conv_b_bias"), nullptr) << contents(result.profile);
}

// A tensor the caller reads (a model output) is never fused away.
TEST(CpuFusion, IntermediateModelOutputStopsTheChain) {
    ModelBuilder b("output_in_chain");
    Output x = b.parameter("x", ElementType::f32, {1, 3, 8, 8});
    Output biased = conv_bias(b, x, 3, 6, 50, "conv");
    b.result(biased, "biased");
    b.result(b.op("Relu", {biased}, {}, "relu"), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 3, 8, 8}, 4)}});
    ASSERT_EQ(r.profile.size(), 2u) << contents(r.profile);
    EXPECT_NE(record_named(r.profile, "conv_bias"), nullptr) << contents(r.profile);
    ASSERT_NE(record_named(r.profile, "relu"), nullptr) << contents(r.profile);
    EXPECT_EQ(record_named(r.profile, "relu")->node_type, "Relu");
}

// MobileNet's depthwise block: GroupConvolution with one channel per group, bias, ReLU6.
TEST(CpuFusion, DepthwiseConvolutionWithBiasAndClamp) {
    ModelBuilder b("depthwise");
    Output x = b.parameter("x", ElementType::f32, {1, 32, 14, 14});
    Output w = random_constant(b, {32, 1, 1, 3, 3}, 60, "dw_w");
    Output conv = b.op("GroupConvolution", {x, w}, conv_attrs(1, 2), "dw");
    Output biased = b.op("Add", {conv, random_constant(b, {1, 32, 1, 1}, 61)}, {}, "dw_bias");
    b.result(b.op("Clamp", {biased}, {{"min", "0"}, {"max", "6"}}, "relu6"), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 32, 14, 14}, 5)}});
    ASSERT_EQ(r.profile.size(), 1u) << contents(r.profile);
    EXPECT_EQ(r.profile[0].node_name, "relu6");
    EXPECT_EQ(r.profile[0].node_type, "GroupConvolution");
    EXPECT_NE(r.profile[0].exec_type, "ref");
}

// ONNX's Clip (opset 11 on) arrives as Maximum then Minimum with scalar bounds; both fuse.
TEST(CpuFusion, OnnxClipPairFusesAsClamp) {
    ModelBuilder b("onnx_clip");
    Output x = b.parameter("x", ElementType::f32, {1, 6, 10, 10});
    Output biased = conv_bias(b, x, 6, 12, 65, "conv");
    Output low = b.op("Maximum", {b.constant<float>({}, {-0.2f}), biased}, {}, "clip_max");
    b.result(b.op("Minimum", {low, b.constant<float>({}, {0.3f})}, {}, "clip_min"), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 6, 10, 10}, 12)}});
    ASSERT_EQ(r.profile.size(), 1u) << contents(r.profile);
    EXPECT_EQ(r.profile[0].node_name, "clip_min");
}

// Several activations in a row, each a post-op of the same convolution.
TEST(CpuFusion, SeveralActivationsInOneChain) {
    ModelBuilder b("activations");
    Output x = b.parameter("x", ElementType::f32, {1, 6, 10, 10});
    Output y = b.op("Tanh", {b.op("Relu", {conv_bias(b, x, 6, 12, 66, "conv")}, {}, "relu")}, {}, "tanh");
    b.result(b.op("Clamp", {y}, {{"min", "0.1"}, {"max", "0.4"}}, "clamp"), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 6, 10, 10}, 13)}});
    ASSERT_EQ(r.profile.size(), 1u) << contents(r.profile);
    EXPECT_EQ(r.profile[0].node_name, "clamp");
}

// oneDNN 2.x runs one eltwise injector per algorithm in a fused kernel: a second clamp with other
// bounds further down the chain is not fused (it would silently reuse the first one's bounds).
TEST(CpuFusion, SameActivationTwiceWithOtherParametersStopsTheChain) {
    ModelBuilder b("two_clamps");
    Output x = b.parameter("x", ElementType::f32, {1, 6, 10, 10});
    Output y = b.op("Clamp", {conv_bias(b, x, 6, 12, 67, "conv")}, {{"min", "-0.5"}, {"max", "0.5"}}, "clamp1");
    y = b.op("Tanh", {y}, {}, "tanh");
    b.result(b.op("Clamp", {y}, {{"min", "0.1"}, {"max", "0.2"}}, "clamp2"), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 6, 10, 10}, 14)}});
    const std::vector<ProfilingInfo> ops = op_records(r.profile);
    ASSERT_EQ(ops.size(), 2u) << contents(r.profile);
    EXPECT_EQ(ops[0].node_name, "tanh");
}

// Gemm as the ONNX reader writes it: MatMul(transpose_b) + bias Add, then an activation.
TEST(CpuFusion, MatMulWithBiasAndGelu) {
    ModelBuilder b("linear");
    Output x = b.parameter("x", ElementType::f32, {2, 5, 16});
    Output w = random_constant(b, {24, 16}, 70, "w");
    Output mm = b.op("MatMul", {x, w}, {{"transpose_a", "false"}, {"transpose_b", "true"}}, "fc");
    Output biased = b.op("Add", {mm, random_constant(b, {24}, 71)}, {}, "fc_bias");
    b.result(b.op("Gelu", {biased}, {{"approximation_mode", "erf"}}, "gelu", "opset7"), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({2, 5, 16}, 6)}});
    ASSERT_EQ(r.profile.size(), 1u) << contents(r.profile);
    EXPECT_EQ(r.profile[0].node_name, "gelu");
    EXPECT_EQ(r.profile[0].node_type, "MatMul");
    EXPECT_NE(r.profile[0].exec_type, "ref");
}

// Attention-style MatMul of two activations, with a residual Add.
TEST(CpuFusion, MatMulOfTwoActivationsWithResidual) {
    ModelBuilder b("activations");
    Output q = b.parameter("q", ElementType::f32, {2, 3, 6, 8});
    Output k = b.parameter("k", ElementType::f32, {2, 3, 6, 8});
    Output scores = b.op("MatMul", {q, k}, {{"transpose_a", "false"}, {"transpose_b", "true"}}, "scores");
    Output base = b.op("Relu", {b.op("MatMul", {q, k}, {{"transpose_a", "false"}, {"transpose_b", "true"}}, "base")},
                       {}, "base_relu");
    b.result(b.op("Add", {base, scores}, {}, "residual"), "y");
    expect_matches_reference(b.build(), {{"q", random_tensor({2, 3, 6, 8}, 7)}, {"k", random_tensor({2, 3, 6, 8}, 8)}});
}

struct ActivationCase {
    const char* type;
    const char* version;
    Attributes attrs;
};

class CpuFusedActivation : public ::testing::TestWithParam<ActivationCase> {};

TEST_P(CpuFusedActivation, MatchesReference) {
    const ActivationCase& c = GetParam();
    ModelBuilder b("activation");
    Output x = b.parameter("x", ElementType::f32, {1, 4, 9, 9});
    Output biased = conv_bias(b, x, 4, 8, 80, "conv");
    std::vector<Output> inputs{biased};
    if (std::string(c.type) == "Swish") inputs.push_back(b.constant<float>({}, {1.5f}, "beta"));
    b.result(b.op(c.type, inputs, c.attrs, "act", c.version), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 4, 9, 9}, 9)}}, {{"PERF_COUNT", true}},
                                                 1e-5, 1e-4);
    ASSERT_EQ(r.profile.size(), 1u) << contents(r.profile);
    EXPECT_EQ(r.profile[0].node_name, "act");
}

INSTANTIATE_TEST_SUITE_P(Activations, CpuFusedActivation,
                         ::testing::Values(ActivationCase{"Relu", "opset1", {}},
                                           ActivationCase{"Clamp", "opset1", {{"min", "-0.25"}, {"max", "0.5"}}},
                                           ActivationCase{"Sigmoid", "opset1", {}},
                                           ActivationCase{"Tanh", "opset1", {}},
                                           ActivationCase{"Swish", "opset4", {}},
                                           ActivationCase{"HSwish", "opset4", {}},
                                           ActivationCase{"Gelu", "opset2", {}},
                                           ActivationCase{"Gelu", "opset7", {{"approximation_mode", "tanh"}}}),
                         [](const ::testing::TestParamInfo<ActivationCase>& info) {
                             return std::string(info.param.type) + "_" + info.param.version;
                         });

}  // namespace
}  // namespace mosaic::test
