// The SDK's buffer sharing (mosaic/sdk/buffer_plan.hpp), which the CPU and GPU devices plan their
// intermediate tensors with: lifetimes that do not overlap share, a step's output never shares
// with what the step reads, a reusable operand hands its buffer over.
#include <mosaic/sdk/buffer_plan.hpp>

#include <gtest/gtest.h>

#include <memory>

namespace mosaic::sdk {
namespace {

TEST(BufferPlan, AChainAlternatesBetweenTwoBuffers) {
    // Step i writes tensor i and reads tensor i - 1.
    std::vector<Lifetime> chain;
    for (size_t i = 0; i < 6; ++i) chain.push_back({i, i + 1, 100});
    const BufferPlan plan = plan_buffers(chain);
    EXPECT_EQ(plan.buffer_sizes, (std::vector<size_t>{100, 100}));
    for (size_t i = 0; i + 1 < chain.size(); ++i) EXPECT_NE(plan.buffer_of[i], plan.buffer_of[i + 1]) << i;
    EXPECT_EQ(plan.unshared_bytes, 600u);
    EXPECT_EQ(plan.arena_bytes(64), 256u);
    EXPECT_EQ(plan.offsets(64), (std::vector<size_t>{0, 128}));
}

TEST(BufferPlan, TheBestFittingFreeBufferIsTakenAndTheLargestGrowsWhenNoneFits) {
    // Two tensors die at step 1 (sizes 50 and 200); a 40-byte tensor at step 2 takes the 50, a
    // 300-byte one at step 3 grows the 200 rather than starting a third buffer.
    const BufferPlan plan = plan_buffers({{0, 1, 50}, {0, 1, 200}, {2, 5, 40}, {3, 5, 300}});
    EXPECT_EQ(plan.buffer_of[2], plan.buffer_of[0]);
    EXPECT_EQ(plan.buffer_of[3], plan.buffer_of[1]);
    EXPECT_EQ(plan.buffer_sizes, (std::vector<size_t>{50, 300}));
}

TEST(BufferPlan, AStepsOutputNeverSharesWithWhatTheStepReads) {
    // Tensor 0 is read last at step 1, which writes tensor 1: they must not share.
    const BufferPlan plan = plan_buffers({{0, 1, 64}, {1, 2, 64}});
    EXPECT_NE(plan.buffer_of[0], plan.buffer_of[1]);
}

TEST(BufferPlan, AReusableOperandHandsItsBufferOverOnlyWhenItDiesThere) {
    // Tensor 2 (written at step 2) may take over tensor 0, which dies at step 2; tensor 3 may not
    // take over tensor 1, which lives on to step 4.
    const BufferPlan plan = plan_buffers(
        {{0, 2, 64}, {1, 4, 64}, {2, 3, 64, /*reuse=*/0}, {3, 4, 64, /*reuse=*/1}});
    EXPECT_EQ(plan.buffer_of[2], plan.buffer_of[0]);
    EXPECT_NE(plan.buffer_of[3], plan.buffer_of[1]);
    EXPECT_EQ(plan.reused, 1u);
}

TEST(BufferPlan, NoTensorsNoBuffers) {
    const BufferPlan plan = plan_buffers({});
    EXPECT_TRUE(plan.buffer_sizes.empty());
    EXPECT_EQ(plan.arena_bytes(64), 0u);
}

TEST(BufferPlan, StepSpansRunFromTheFirstWriteToTheLastReadThroughViews) {
    // Step 0 writes value 0; step 1 reads it and writes 1; step 2 reads view 2 (of value 1) and an
    // absent optional input; value 3 is never written.
    struct Step {
        std::vector<size_t> in, out;
        const std::vector<size_t>& inputs() const { return in; }
        const std::vector<size_t>& outputs() const { return out; }
    };
    std::vector<std::unique_ptr<Step>> steps;
    steps.push_back(std::make_unique<Step>(Step{{}, {0}}));
    steps.push_back(std::make_unique<Step>(Step{{0}, {1}}));
    steps.push_back(std::make_unique<Step>(Step{{2, SIZE_MAX}, {}}));
    const StepSpans spans = step_spans(4, steps, [](size_t v) { return v == 2 ? size_t{1} : v; });
    EXPECT_EQ(spans.first[0], 0u);
    EXPECT_EQ(spans.last[0], 1u);
    EXPECT_EQ(spans.first[1], 1u);
    EXPECT_EQ(spans.last[1], 2u);  // kept alive by its view's reader
    EXPECT_FALSE(spans.written(3));
}

}  // namespace
}  // namespace mosaic::sdk
