// ScaledDotProductAttention on the GPU (ops/attention_ops.cpp): the op cases check its values
// (tests/ops/cases/nn_attention.json); here, what the query leaves to the next device, naming the op
// and why: a scale computed at run time, values longer than the kernel keeps.
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

}  // namespace
}  // namespace mosaic::test::gpu
