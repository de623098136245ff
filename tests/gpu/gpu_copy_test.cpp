// The strided copies behind Transpose, Concat and Slice on the GPU device against REFERENCE, and the
// kernel each gets: sixteen consecutive elements a work item on an OpenCL CPU device where the copy's
// innermost dimension is a multiple of 16 and contiguous on both sides (an encoder's head
// transposes), one element a work item otherwise and on GPUs.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test::gpu {
namespace {

RunResult run_transpose(const Shape& shape, const std::vector<int64_t>& order) {
    ModelBuilder b("gpu_transpose");
    Output x = b.parameter("x", ElementType::f32, shape);
    b.result(b.op("Transpose", {x, b.constant<int64_t>({static_cast<int64_t>(order.size())}, order, "order")}, {}, "t"), "y");
    return expect_device_matches_reference(b.build(), "GPU", {{"x", random_tensor(shape, 51)}});
}

TEST(GpuCopy, HeadTransposeKeepsRowsOfSixteenTogether) {
    const RunResult got = run_transpose({1, 8, 4, 32}, {0, 2, 1, 3});  // [1, 8, 4, 32] -> [1, 4, 8, 32]
    EXPECT_EQ(missing_kernel(got, gpu_is_cpu_fallback() ? "strided_copy16_u32" : "strided_copy_u32"), "");
}

TEST(GpuCopy, TransposesThatMoveTheInnermostAxisCopyOneElementAWorkItem) {
    EXPECT_EQ(missing_kernel(run_transpose({2, 16, 32}, {0, 2, 1}), "strided_copy_u32"), "");
    EXPECT_EQ(missing_kernel(run_transpose({1, 8, 4, 24}, {0, 2, 1, 3}), "strided_copy_u32"), "");  // rows of 24
}

TEST(GpuCopy, ConcatAndSliceMatchReference) {
    ModelBuilder b("gpu_concat_slice");
    Output x1 = b.parameter("x1", ElementType::f32, {2, 3, 32});
    Output x2 = b.parameter("x2", ElementType::f32, {2, 5, 32});
    Output c = b.op("Concat", {x1, x2}, {{"axis", "1"}}, "concat");
    Output s = b.op("StridedSlice",
                    {c, b.constant<int64_t>({3}, {0, 1, 0}, "begin"), b.constant<int64_t>({3}, {2, 7, 32}, "end"),
                     b.constant<int64_t>({3}, {1, 2, 1}, "stride")},
                    {{"begin_mask", "0,0,0"}, {"end_mask", "0,0,0"}}, "slice");
    b.result(c, "concatenated");
    b.result(s, "sliced");
    const auto model = b.build();
    ASSERT_EQ(unsupported_on_gpu(model), "");
    expect_device_matches_reference(model, "GPU", {{"x1", random_tensor({2, 3, 32}, 52)}, {"x2", random_tensor({2, 5, 32}, 53)}});
}

}  // namespace
}  // namespace mosaic::test::gpu
