// The memory plan: intermediate tensors whose lifetimes do not overlap share buffers, a fused
// residual Add writes over the residual it consumes, graph inputs and outputs use the caller's
// tensors, and the results stay those of REFERENCE whatever the sharing.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test {
namespace {

nlohmann::json memory_plan(const std::shared_ptr<Model>& model) {
    return shared_core().compile_model(model, "CPU").get_property("CPU_MEMORY_PLAN");
}

// A chain of `length` element-wise ops: each tensor dies when the next is made, so two buffers
// serve them all.
std::shared_ptr<Model> chain(int length) {
    ModelBuilder b("chain");
    Output x = b.parameter("x", ElementType::f32, {1, 16, 8, 8});
    for (int i = 0; i < length; ++i) x = b.op(i % 2 ? "Sigmoid" : "Sin", {x}, {}, "op" + std::to_string(i));
    b.result(x, "y");
    return b.build();
}

TEST(CpuMemoryPlan, ChainOfTensorsSharesTwoBuffers) {
    const nlohmann::json plan = memory_plan(chain(10));
    EXPECT_EQ(plan.at("tensors"), 9) << plan.dump();  // the last op writes the caller's output
    EXPECT_EQ(plan.at("buffers"), 2) << plan.dump();
    EXPECT_EQ(plan.at("arena_bytes").get<int64_t>(), 2 * 16 * 8 * 8 * 4) << plan.dump();
    EXPECT_EQ(plan.at("unshared_bytes").get<int64_t>(), 9 * 16 * 8 * 8 * 4) << plan.dump();
    expect_matches_reference(chain(10), {{"x", random_tensor({1, 16, 8, 8}, 1)}}, {}, 1e-6, 1e-6);
}

TEST(CpuMemoryPlan, FusedResidualAddWritesOverTheResidual) {
    ModelBuilder b("residual");
    Output x = b.parameter("x", ElementType::f32, {1, 8, 8, 8});
    // The residual comes from a convolution too, so both are stored in the same blocked layout.
    Output r = b.op("Sigmoid", {conv_bias(b, b.op("Sin", {x}, {}, "sin"), 8, 8, 12, "residual_src")}, {}, "sigmoid");
    Output c = b.op("Cos", {x}, {}, "cos");  // a second activation source, so the convolution reads another tensor
    Output y = b.op("Add", {conv_bias(b, c, 8, 8, 10, "conv"), r}, {}, "residual");
    b.result(b.op("Sin", {b.op("Relu", {y}, {}, "relu")}, {}, "after"), "y");
    auto model = b.build();
    const nlohmann::json plan = memory_plan(model);
    EXPECT_EQ(plan.at("in_place"), 1) << plan.dump();
    expect_matches_reference(model, {{"x", random_tensor({1, 8, 8, 8}, 2)}});
}

// Two branches alive at once, joined late, then a long tail: buffers are reused only once free.
TEST(CpuMemoryPlan, BranchesKeepTheirBuffersUntilJoined) {
    ModelBuilder b("diamond");
    Output x = b.parameter("x", ElementType::f32, {1, 4, 6, 6});
    Output left = b.op("Sin", {x}, {}, "left0");
    Output right = b.op("Cos", {x}, {}, "right0");
    for (int i = 1; i < 4; ++i) {
        left = b.op("Sigmoid", {left}, {}, "left" + std::to_string(i));
        right = b.op("Tanh", {right}, {}, "right" + std::to_string(i));
    }
    Output joined = b.op("Multiply", {left, right}, {}, "join");
    Output tail = joined;
    for (int i = 0; i < 4; ++i) tail = b.op("Sin", {tail}, {}, "tail" + std::to_string(i));
    b.result(tail, "y");
    b.result(left, "left");  // also a model output, read after being written in place
    auto model = b.build();
    const nlohmann::json plan = memory_plan(model);
    EXPECT_LT(plan.at("buffers").get<int64_t>(), plan.at("tensors").get<int64_t>()) << plan.dump();
    EXPECT_LE(plan.at("buffers").get<int64_t>(), 3) << plan.dump();
    expect_matches_reference(model, {{"x", random_tensor({1, 4, 6, 6}, 3)}}, {}, 1e-6, 1e-6);
}

// Results fed by a Parameter, a Constant, and twice by one tensor are copied, not computed.
TEST(CpuMemoryPlan, ResultsOfInputsConstantsAndSharedTensors) {
    ModelBuilder b("copies");
    Output x = b.parameter("x", ElementType::f32, {2, 3});
    Output c = b.constant<float>({2, 3}, {1, 2, 3, 4, 5, 6}, "c");
    Output s = b.op("Add", {x, c}, {}, "sum");
    b.result(x, "x_out");
    b.result(c, "c_out");
    b.result(s, "s1");
    b.result(s, "s2");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({2, 3}, 4)}}, {}, 0, 0);
    EXPECT_EQ(r.outputs[2], r.outputs[3]);
    EXPECT_EQ(r.outputs[1], (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

// A model with no compute at all: a Parameter straight to a Result.
TEST(CpuMemoryPlan, ModelWithoutExecutors) {
    ModelBuilder b("identity");
    b.result(b.parameter("x", ElementType::f32, {3}), "y");
    const RunResult r = run_on(b.build(), "CPU", {{"x", Tensor::from_vector<float>({3}, ElementType::f32, {1, 2, 3})}});
    EXPECT_EQ(r.outputs[0], (std::vector<float>{1, 2, 3}));
}

}  // namespace
}  // namespace mosaic::test
