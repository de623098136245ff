// ScaledDotProductAttention on the GPU (ops/attention_ops.cpp): the op cases check its values
// (tests/ops/cases/nn_attention.json); here, what the query leaves to the next device, naming the op
// and why: a scale computed at run time, values longer than the kernel keeps; and a scale and mask
// known only once the compiled model folds them (an FP16-compressed IR's decompression Converts).
#include "gpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test::gpu {
namespace {

// q, k, v [1, 2, 3, e] and, when given, a mask and a scale as the model's inputs.
std::shared_ptr<Model> attention(int64_t value_length, bool runtime_scale, ElementType mask_type) {
    ModelBuilder b("sdpa");
    Output q = b.parameter("q", ElementType::f32, {1, 2, 3, 8});
    Output k = b.parameter("k", ElementType::f32, {1, 2, 3, 8});
    Output v = b.parameter("v", ElementType::f32, {1, 2, 3, value_length});
    Output mask = b.parameter("mask", mask_type, {1, 1, 3, 3});
    Output scale = runtime_scale ? b.parameter("scale", ElementType::f32, {}) : b.constant<float>({}, {0.5f}, "scale");
    b.result(b.op("ScaledDotProductAttention", {q, k, v, mask, scale}, {{"causal", "false"}}, "attn", "opset13"), "y");
    return b.build();
}

TEST(GpuAttentionQuery, WhatTheKernelDoesNotTakeIsNamed) {
    EXPECT_EQ(unsupported_on_gpu(attention(16, false, ElementType::f32)), "");
    EXPECT_EQ(unsupported_on_gpu(attention(16, false, ElementType::boolean)), "");
    const std::string scale = unsupported_on_gpu(attention(16, true, ElementType::f32));
    EXPECT_NE(scale.find("attn (GPU: a scale computed at run time has no GPU kernel"), std::string::npos) << scale;
    const std::string values = unsupported_on_gpu(attention(300, false, ElementType::f32));
    EXPECT_NE(values.find("values longer than 256 have no GPU kernel"), std::string::npos) << values;
}

// `ovc` (compress_to_fp16, its default) stores the scale and the mask as f16 constants, each read
// through a Convert to f32 that the compiled model folds: the kernel takes them (a ViT's attention
// refused for a "scale computed at run time" before).
TEST(GpuAttention, AScaleAndMaskDecompressedFromF16RunOnTheGpu) {
    ModelBuilder b("sdpa_fp16");
    auto f16_then_f32 = [&](Output c, const std::string& name) {
        Output half = b.op("Convert", {c}, {{"destination_type", "f16"}}, name + "_compressed");
        return b.op("Convert", {half}, {{"destination_type", "f32"}}, name);
    };
    Output q = b.parameter("q", ElementType::f32, {1, 2, 3, 8});
    Output k = b.parameter("k", ElementType::f32, {1, 2, 3, 8});
    Output v = b.parameter("v", ElementType::f32, {1, 2, 3, 16});
    Output mask = f16_then_f32(random_constant(b, {1, 1, 3, 3}, 71, "mask32"), "mask");
    Output scale = f16_then_f32(b.constant<float>({}, {0.3f}, "scale32"), "scale");
    b.result(b.op("ScaledDotProductAttention", {q, k, v, mask, scale}, {{"causal", "false"}}, "attn", "opset13"), "y");
    const std::shared_ptr<Model> model = b.build();
    EXPECT_EQ(unsupported_on_gpu(model), "");
    const RunResult run = expect_device_matches_reference(
        model, "GPU",
        {{"q", random_tensor({1, 2, 3, 8}, 72)}, {"k", random_tensor({1, 2, 3, 8}, 73)}, {"v", random_tensor({1, 2, 3, 16}, 74)}});
    EXPECT_EQ(missing_kernel(run, "sdpa"), "");
}

}  // namespace
}  // namespace mosaic::test::gpu
