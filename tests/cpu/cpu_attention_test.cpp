// ScaledDotProductAttention on the CPU's own executor (plugins/cpu/sdpa_executor.hpp), at the sizes
// of an LLM's attention (64-wide heads, hundreds of keys, several heads), against the reference's
// double-precision kernel: an additive mask as the exporters write it (the most negative float
// where a key is hidden), a boolean one, causal, a scale given as a constant or at run time, key and
// value heads broadcast over the query's batch, and rows whose keys are all masked (NaN there and
// here). The small shapes and broadcasting cases are the op cases (tests/ops/cases/nn_attention.json).
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace mosaic::test {
namespace {

struct Attention {
    Shape q, k, v;
    Shape mask;                           // empty: no mask input
    ElementType mask_type = ElementType::f32;
    bool causal = false;
    enum class Scale { none, constant, input } scale = Scale::none;
};

std::shared_ptr<Model> attention_model(const Attention& a) {
    ModelBuilder b("attention");
    std::vector<Output> in{b.parameter("q", ElementType::f32, a.q), b.parameter("k", ElementType::f32, a.k),
                           b.parameter("v", ElementType::f32, a.v)};
    if (!a.mask.empty()) in.push_back(b.parameter("mask", a.mask_type, a.mask));
    if (a.scale == Attention::Scale::constant) in.push_back(b.constant<float>({}, {0.2f}, "scale"));
    if (a.scale == Attention::Scale::input) in.push_back(b.parameter("scale", ElementType::f32, {}));
    b.result(b.op("ScaledDotProductAttention", in, {{"causal", a.causal ? "true" : "false"}}, "sdpa", "opset13"), "y");
    return b.build();
}

// Key padding as a decoder with a fixed-capacity cache hides the positions not yet written: the
// first `visible` of each mask row attend, the rest hold the most negative float (or false).
// (hidden: -inf as some exporters write it, else the most negative float).
Tensor padding_mask(const Shape& shape, ElementType type, int64_t visible, float hidden = std::numeric_limits<float>::lowest()) {
    Tensor t(type, shape);
    const int64_t columns = shape.back();
    for (size_t i = 0; i < t.get_size(); ++i) {
        const bool seen = static_cast<int64_t>(i) % columns < visible;
        if (type == ElementType::boolean) t.data<uint8_t>()[i] = seen ? 1 : 0;
        else t.data<float>()[i] = seen ? 0.0f : hidden;
    }
    return t;
}

Inputs inputs_of(const Attention& a, int64_t visible, float hidden = std::numeric_limits<float>::lowest()) {
    Inputs in{{"q", random_tensor(a.q, 1)}, {"k", random_tensor(a.k, 2)}, {"v", random_tensor(a.v, 3)}};
    if (!a.mask.empty()) in.emplace("mask", padding_mask(a.mask, a.mask_type, visible, hidden));
    if (a.scale == Attention::Scale::input)
        in.emplace("scale", Tensor::from_vector(Shape{}, ElementType::f32, std::vector<float>{0.125f}));
    return in;
}

std::string executor_of(const std::shared_ptr<Model>& model) {
    for (const auto& e : shared_core().compile_model(model, "CPU").get_property("CPU_EXECUTORS"))
        if (e.at("name") == "sdpa") return e.at("exec_type");
    return "";
}

void expect_on_the_cpu_executor(const Attention& a, int64_t visible, float hidden = std::numeric_limits<float>::lowest()) {
    const std::shared_ptr<Model> model = attention_model(a);
    EXPECT_EQ(executor_of(model), "cpu:sdpa");
    expect_matches_reference(model, inputs_of(a, visible, hidden), {}, 1e-5, 1e-4);
}

TEST(CpuAttention, PrefillWithACausalMaskAndGroupedHeads) {
    // 14 query heads over 2 key/value heads broadcast ([1, 2, 7, ...] against [1, 2, 1, ...]).
    expect_on_the_cpu_executor({{1, 2, 7, 40, 64}, {1, 2, 1, 40, 64}, {1, 2, 1, 40, 64}, {}, ElementType::f32, true}, 0);
}

TEST(CpuAttention, DecodeStepOverAFixedCapacityCache) {
    // One query over 256 cache positions of which 37 are written; the float mask hides the rest.
    expect_on_the_cpu_executor({{1, 14, 1, 64}, {1, 14, 256, 64}, {1, 14, 256, 64}, {1, 1, 1, 256}}, 37);
    expect_on_the_cpu_executor({{1, 14, 1, 64}, {1, 14, 256, 64}, {1, 14, 256, 64}, {1, 1, 1, 256}}, 37,
                               -std::numeric_limits<float>::infinity());
    expect_on_the_cpu_executor(
        {{1, 14, 1, 64}, {1, 14, 256, 64}, {1, 14, 256, 64}, {1, 1, 1, 256}, ElementType::boolean}, 37);
}

TEST(CpuAttention, ScaleAsAConstantOrAtRunTime) {
    Attention a{{2, 3, 16, 32}, {2, 3, 48, 32}, {2, 3, 48, 16}, {16, 48}};
    a.scale = Attention::Scale::constant;
    expect_on_the_cpu_executor(a, 30);
    a.scale = Attention::Scale::input;
    expect_on_the_cpu_executor(a, 30);
}

TEST(CpuAttention, RowsWithEveryKeyMaskedAreNaNAsInTheReference) {
    const Attention a{{1, 2, 3, 8}, {1, 2, 5, 8}, {1, 2, 5, 4}, {1, 1, 1, 5}, ElementType::boolean};
    const RunResult cpu = run_on(attention_model(a), "CPU", inputs_of(a, 0));
    for (float y : cpu.outputs[0]) EXPECT_TRUE(std::isnan(y)) << y;
    expect_on_the_cpu_executor(a, 0);  // NaN where the reference is NaN
}

}  // namespace
}  // namespace mosaic::test
