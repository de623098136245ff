// The vocabulary projection of a decoder sliced to the last position (last_position_logits.hpp):
// the logits of the last position are those of the model as exported, the projection sees one
// position, and models whose logits are not a projection through per-position ops are left alone.
#include <mosaic/core.hpp>
#include <mosaic/model.hpp>

#include <gtest/gtest.h>

#include "last_position_logits.hpp"

#include <random>

namespace mosaic::genai {
namespace {

std::vector<float> random_values(size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> d(-1, 1);
    std::vector<float> v(n);
    for (float& x : v) x = d(gen);
    return v;
}

// hidden [1, ?, 8] -> MatMul by [5, 8] transposed -> `after` -> "logits" [1, ?, 5].
std::shared_ptr<Model> decoder_head(const std::string& after) {
    ModelBuilder b("head");
    Output hidden = b.parameter("hidden", ElementType::f32, {1, -1, 8});
    Output y = b.op("MatMul", {hidden, b.constant<float>({5, 8}, random_values(40, 1), "lm_head")},
                    {{"transpose_a", "false"}, {"transpose_b", "true"}}, "lm_head_matmul");
    if (after == "softcap")  // Gemma 2's: tanh(x / 30) * 30
        y = b.op("Multiply", {b.op("Tanh", {b.op("Divide", {y, b.constant<float>({}, {30.0f})}, {}, "cap_div")}, {}, "cap"),
                              b.constant<float>({}, {30.0f})},
                 {}, "cap_mul");
    if (after == "concat") y = b.op("Concat", {y, y}, {{"axis", "2"}}, "concat");
    if (after == "also_read") b.result(b.op("Relu", {y}, {}, "other_reader"), "every_position");
    b.result(y, "logits");
    return b.build();
}

std::vector<float> infer(const std::shared_ptr<Model>& model, const Tensor& hidden) {
    Core core;
    InferRequest r = core.compile_model(model, "REFERENCE").create_infer_request();
    r.set_tensor("hidden", hidden);
    r.infer();
    return r.get_tensor("logits").to_vector<float>();
}

TEST(LastPositionLogits, TheProjectionSeesTheLastPositionOnly) {
    for (const std::string after : {"", "softcap"}) {
        const std::shared_ptr<Model> exported = decoder_head(after);
        std::shared_ptr<Model> sliced = exported->clone();
        ASSERT_TRUE(slice_logits_to_last_position(*sliced)) << after;
        const Tensor hidden = Tensor::from_vector(Shape{1, 4, 8}, ElementType::f32, random_values(32, 2));
        const std::vector<float> all = infer(exported, hidden), last = infer(sliced, hidden);
        ASSERT_EQ(all.size(), 20u);
        EXPECT_EQ(last, std::vector<float>(all.end() - 5, all.end())) << after;
    }
}

TEST(LastPositionLogits, OtherModelsAreLeftAsTheyAre) {
    const std::shared_ptr<Model> concat = decoder_head("concat");
    const size_t ops = concat->get_ops_count();
    EXPECT_FALSE(slice_logits_to_last_position(*concat));  // a Concat over the vocabulary axis: not per position
    EXPECT_EQ(concat->get_ops_count(), ops);
    // The projection read by another output too, which needs every position.
    const std::shared_ptr<Model> also_read = decoder_head("also_read");
    EXPECT_FALSE(slice_logits_to_last_position(*also_read));
    EXPECT_EQ(also_read->get_ops_count(), decoder_head("also_read")->get_ops_count());
    ModelBuilder b("no_logits");
    b.result(b.op("Relu", {b.parameter("x", ElementType::f32, {1, 3})}, {}, "relu"), "y");
    const std::shared_ptr<Model> other = b.build();
    EXPECT_FALSE(slice_logits_to_last_position(*other));
}

}  // namespace
}  // namespace mosaic::genai
