// BatchNormInference on the GPU: after a convolution (with or without its bias, 3x3, 1x1 or
// depthwise, opset5 or opset1 input order) folded into its filters and bias at compile time, so
// that the convolution, the normalisation and the activation after it are one record; elsewhere
// (after a pooling) one multiply-add kernel with the activation fused. Both against REFERENCE, on
// both GEMMs. Parameters computed at run time are read by a kernel of their own; data of other
// types than f32 is left to the next device.
#include "gpu_test_util.hpp"

namespace mosaic::test::gpu {
namespace {

class GpuBatchNorm : public ::testing::TestWithParam<std::string> {
protected:
    // `model` on GPU (the GEMM under test) against REFERENCE; its records of ops, by name.
    std::vector<ProfilingInfo> run(const std::shared_ptr<Model>& model, const Inputs& inputs) {
        return expect_device_matches_reference(model, "GPU", inputs, 1e-4, 1e-4, {{"GPU_GEMM_KERNEL", GetParam()}}).profile;
    }
};

TEST_P(GpuBatchNorm, FoldsIntoConvolutionsWithAndWithoutBias) {
    for (const std::string version : {"opset5", "opset1"}) {
        SCOPED_TRACE(version);
        ModelBuilder b("conv_bn");
        Output x = b.parameter("x", ElementType::f32, {2, 8, 9, 9});
        Output conv = batch_norm(b, conv_bias(b, x, 8, 16, 61, "conv"), 16, 71, version, "bn");
        Output relu = b.op("Relu", {conv}, {}, "relu");
        Output pointwise = b.op("Convolution", {relu, random_constant(b, {12, 16, 1, 1}, 81, "pw_w")}, conv_attrs(0, 1), "pw");
        Output pw_bn = batch_norm(b, pointwise, 12, 91, version, "pw_bn");
        Output depthwise = b.op("GroupConvolution", {pw_bn, random_constant(b, {12, 1, 1, 3, 3}, 101, "dw_w")}, conv_attrs(1, 1), "dw");
        Output dw_bn = batch_norm(b, depthwise, 12, 111, version, "dw_bn");
        b.result(b.op("Clamp", {dw_bn}, {{"min", "0"}, {"max", "6"}}, "relu6"), "y");
        const std::vector<ProfilingInfo> profile = run(b.build(), {{"x", random_tensor({2, 8, 9, 9}, 1)}});
        // Each convolution's record takes the name of the last op it absorbed; no BatchNorm runs apart.
        for (const ProfilingInfo& p : profile) EXPECT_NE(p.node_type, "BatchNormInference") << p.node_name;
        for (const auto& [name, type] : {std::pair<std::string, std::string>{"relu", "Convolution"}, {"pw_bn", "Convolution"},
                                         {"relu6", "GroupConvolution"}}) {
            const ProfilingInfo* record = record_named(profile, name);
            ASSERT_NE(record, nullptr) << name << ":\n" << contents(profile);
            EXPECT_EQ(record->node_type, type) << name;
        }
    }
}

TEST_P(GpuBatchNorm, AfterAPoolingItIsOneKernelWithTheActivationFused) {
    ModelBuilder b("pool_bn");
    Output x = b.parameter("x", ElementType::f32, {2, 6, 10, 10});
    Output pooled = b.op("MaxPool", {x},
                         {{"strides", "2,2"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"kernel", "2,2"},
                          {"rounding_type", "floor"}, {"auto_pad", "explicit"}},
                         "pool", "opset1");
    b.result(b.op("Relu", {batch_norm(b, pooled, 6, 121, "opset5", "bn")}, {}, "relu"), "y");
    const std::vector<ProfilingInfo> profile = run(b.build(), {{"x", random_tensor({2, 6, 10, 10}, 2)}});
    const ProfilingInfo* record = record_named(profile, "relu");
    ASSERT_NE(record, nullptr) << contents(profile);
    EXPECT_EQ(record->node_type, "BatchNormInference");
    EXPECT_EQ(record->exec_type, "scale_shift_f32");
}

INSTANTIATE_TEST_SUITE_P(Kernels, GpuBatchNorm, ::testing::Values("TILED", "CLBLAST"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Parameters computed at run time (a gamma that is an input, as ONNX's node tests feed them) are
// read by the kernel (`batch_norm_f32`); the convolution before it cannot fold it and stays apart.
TEST(GpuBatchNormQuery, ParametersComputedAtRunTimeAreReadByTheKernel) {
    ModelBuilder b("bn_runtime_gamma");
    Output x = b.parameter("x", ElementType::f32, {1, 4, 6, 6});
    Output gamma = b.parameter("gamma", ElementType::f32, {4});
    Output conv = b.op("Convolution", {x, random_constant(b, {4, 4, 3, 3}, 131, "w")}, conv_attrs(1, 1), "conv");
    Output bn = b.op("BatchNormInference",
                     {conv, gamma, random_constant(b, {4}, 132, "beta"), random_constant(b, {4}, 133, "mean"),
                      b.constant<float>({4}, {0.5f, 1.0f, 2.0f, 4.0f}, "var")},
                     {{"epsilon", "0.001"}}, "bn", "opset5");
    b.result(b.op("Relu", {bn}, {}, "relu"), "y");
    const RunResult got = expect_device_matches_reference(
        b.build(), "GPU", {{"x", random_tensor({1, 4, 6, 6}, 3)}, {"gamma", random_tensor({4}, 4)}});
    const ProfilingInfo* record = record_named(got.profile, "relu");
    ASSERT_NE(record, nullptr) << contents(got.profile);
    EXPECT_EQ(record->exec_type, "batch_norm_f32");
    EXPECT_NE(record_named(got.profile, "conv"), nullptr) << contents(got.profile);
}

// Data of another type than f32 has no GPU kernel: the query says so, naming the op.
TEST(GpuBatchNormQuery, OtherElementTypesAreLeftToTheNextDevice) {
    ModelBuilder b("bn_f16");
    Output x = b.parameter("x", ElementType::f16, {1, 4, 6, 6});
    b.result(b.op("BatchNormInference",
                  {x, b.op("Convert", {random_constant(b, {4}, 141, "g32")}, {{"destination_type", "f16"}}, "gamma"),
                   b.op("Convert", {random_constant(b, {4}, 142, "b32")}, {{"destination_type", "f16"}}, "beta"),
                   b.op("Convert", {random_constant(b, {4}, 143, "m32")}, {{"destination_type", "f16"}}, "mean"),
                   b.op("Convert", {b.constant<float>({4}, {1, 2, 3, 4}, "v32")}, {{"destination_type", "f16"}}, "var")},
                  {{"epsilon", "0.001"}}, "bn", "opset5"),
             "y");
    const std::string unsupported = unsupported_on_gpu(b.build());
    EXPECT_NE(unsupported.find("bn (GPU: input 0 is f16"), std::string::npos) << unsupported;
}

}  // namespace
}  // namespace mosaic::test::gpu
