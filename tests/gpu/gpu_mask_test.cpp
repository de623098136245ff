// The ops an encoder or decoder builds its masks with, on the GPU: token ids compared with the
// padding id (i64 Equal), a causal mask from two position ranges (Less of i32), combined
// (LogicalOr), and Select of -inf over the attention scores, broadcast from [1, 1, 1, T] and
// [T, T] to [1, heads, T, T], then Softmax. The whole block runs on the GPU (HETERO:GPU,CPU keeps
// one subgraph) and matches REFERENCE; and PRelu's slope per channel after a convolution.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace mosaic::test::gpu {
namespace {

TEST(GpuMask, PaddingAndCausalMasksSelectedOverTheScoresRunOnTheGpu) {
    const int64_t tokens = 12, heads = 2;
    ModelBuilder b("masks");
    Output ids = b.parameter("ids", ElementType::i64, {1, tokens});
    Output scores = b.parameter("scores", ElementType::f32, {1, heads, tokens, tokens});
    Output padding = b.op("Equal", {ids, b.constant<int64_t>({}, {0}, "pad_id")}, {}, "padding");
    Output padding4 = b.op("Reshape", {padding, b.constant<int64_t>({4}, {1, 1, 1, tokens}, "padding_shape")},
                           {{"special_zero", "false"}}, "padding4");
    std::vector<int32_t> positions(tokens);
    for (int32_t i = 0; i < tokens; ++i) positions[static_cast<size_t>(i)] = i;
    Output rows = b.constant<int32_t>({tokens, 1}, positions, "rows");
    Output cols = b.constant<int32_t>({1, tokens}, positions, "cols");
    Output future = b.op("Less", {rows, cols}, {}, "future");  // key after query
    Output masked = b.op("LogicalOr", {padding4, future}, {}, "masked");
    Output neg_inf = b.constant<float>({}, {-std::numeric_limits<float>::infinity()}, "neg_inf");
    Output selected = b.op("Select", {masked, neg_inf, scores}, {}, "select");
    b.result(b.op("Softmax", {selected}, {{"axis", "-1"}}, "softmax", "opset8"), "probs");
    const auto model = b.build();
    EXPECT_TRUE(gpu_supports_all(model)) << unsupported_on_gpu(model);
    // Tokens 9.. are padding (id 0); the first token is never masked, so no row is all -inf.
    std::vector<int64_t> id_values(tokens, 7);
    for (int64_t t = 9; t < tokens; ++t) id_values[static_cast<size_t>(t)] = 0;
    const Inputs inputs{{"ids", Tensor::from_vector({1, tokens}, ElementType::i64, id_values)},
                        {"scores", random_tensor({1, heads, tokens, tokens}, 161)}};
    const RunResult got = expect_device_matches_reference(model, "GPU", inputs);
    const ProfilingInfo* select = record_named(got.profile, "select");
    ASSERT_NE(select, nullptr) << contents(got.profile);
    EXPECT_EQ(select->exec_type, "select_bcast_u32");  // f32 moved as 4-byte words
    expect_device_matches_reference(model, "HETERO:GPU,CPU", inputs);
    nlohmann::json split = shared_core().compile_model(model, "HETERO:GPU,CPU").get_property("HETERO_SPLIT");
    if (split.is_string()) split = nlohmann::json::parse(split.get<std::string>());
    EXPECT_EQ(split.at("subgraphs").size(), 1u) << split.dump(1);
}

TEST(GpuMask, PReluSlopePerChannelAndBroadcast) {
    ModelBuilder b("prelu");
    Output x = b.parameter("x", ElementType::f32, {2, 5, 4, 6});
    Output per_channel = b.op("PRelu", {x, random_constant(b, {5}, 171, "slope_c")}, {}, "per_channel");
    b.result(b.op("PRelu", {per_channel, random_constant(b, {4, 6}, 172, "slope_hw")}, {}, "broadcast"), "y");
    const RunResult got = expect_device_matches_reference(b.build(), "GPU", {{"x", random_tensor({2, 5, 4, 6}, 173)}});
    for (const std::string op : {"per_channel", "broadcast"}) {
        const ProfilingInfo* record = record_named(got.profile, op);
        ASSERT_NE(record, nullptr) << contents(got.profile);
        EXPECT_EQ(record->node_type, "PRelu");
    }
}

}  // namespace
}  // namespace mosaic::test::gpu
