// BatchNorm folded into a convolution: BatchNormInference with constant parameters after a
// convolution (with or without a bias, grouped or not, opset1 or opset5 input order) becomes part
// of its filters and bias at compile time, so the pair is one executor, and the result is that of
// REFERENCE. A BatchNorm that cannot fold still runs, correctly.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test {
namespace {

TEST(CpuBatchNorm, FoldsIntoAConvolutionWithItsBias) {
    for (const std::string version : {"opset5", "opset1"}) {
        ModelBuilder b("conv_bn");
        Output x = b.parameter("x", ElementType::f32, {1, 8, 9, 9});
        Output y = batch_norm(b, conv_bias(b, x, 8, 16, 61, "conv"), 16, 71, version, "bn");
        b.result(b.op("Relu", {y}, {}, "relu"), "y");
        const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 8, 9, 9}, 1)}});
        const std::vector<ProfilingInfo> ops = op_records(r.profile);
        ASSERT_EQ(ops.size(), 1u) << version << contents(r.profile);
        EXPECT_EQ(ops[0].node_name, "relu");
        EXPECT_EQ(ops[0].node_type, "Convolution");
    }
}

TEST(CpuBatchNorm, FoldsIntoAConvolutionWithoutBiasAndADepthwiseOne) {
    ModelBuilder b("dw_bn");
    Output x = b.parameter("x", ElementType::f32, {1, 16, 8, 8});
    Output c = b.op("Convolution", {x, random_constant(b, {16, 16, 1, 1}, 81, "w")}, conv_attrs(0), "conv");
    Output y = batch_norm(b, c, 16, 83, "opset5", "bn1");
    Output dw = b.op("GroupConvolution", {y, random_constant(b, {16, 1, 1, 3, 3}, 87, "dw_w")}, conv_attrs(1), "dw");
    y = batch_norm(b, dw, 16, 89, "opset5", "bn2");
    b.result(b.op("Clamp", {y}, {{"min", "0"}, {"max", "6"}}, "relu6"), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 16, 8, 8}, 2)}});
    EXPECT_EQ(op_records(r.profile).size(), 2u) << contents(r.profile);
}

TEST(CpuBatchNorm, ABatchNormWithARuntimeParameterRunsOnItsOwn) {
    ModelBuilder b("runtime_gamma");
    Output x = b.parameter("x", ElementType::f32, {1, 4, 5, 5});
    Output gamma = b.parameter("gamma", ElementType::f32, {4});
    Output c = b.op("Convolution", {x, random_constant(b, {4, 4, 3, 3}, 91, "w")}, conv_attrs(1), "conv");
    Output y = b.op("BatchNormInference",
                    {c, gamma, random_constant(b, {4}, 93, "beta"), random_constant(b, {4}, 95, "mean"),
                     b.op("Exp", {random_constant(b, {4}, 97, "logvar")}, {}, "var")},
                    {{"epsilon", "0.00001"}}, "bn", "opset5");
    b.result(y, "y");
    const RunResult r =
        expect_matches_reference(b.build(), {{"x", random_tensor({1, 4, 5, 5}, 3)}, {"gamma", random_tensor({4}, 4)}});
    EXPECT_NE(record_named(r.profile, "bn"), nullptr) << contents(r.profile);
}

}  // namespace
}  // namespace mosaic::test
