// The strided copies behind Transpose, Concat and Slice on the GPU device against REFERENCE, and the
// kernel each gets: sixteen consecutive elements a work item on an OpenCL CPU device where the copy's
// innermost dimension is a multiple of 16 and contiguous on both sides (an encoder's head
// transposes) or contiguous in the output only (its keys turned), one element a work item otherwise
// and on GPUs; and a copy of one contiguous run to
// another (a Concat of single images along channels, whole rows sliced) is the driver's buffer copy.
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

// Where the output's rows are a multiple of 16, sixteen outputs a work item gathered from inputs a
// stride apart (an encoder's keys turned for Q * K^T); otherwise one element a work item.
TEST(GpuCopy, TransposesThatMoveTheInnermostAxisGatherSixteenOutputsAWorkItem) {
    const std::string gather = gpu_is_cpu_fallback() ? "strided_gather16_u32" : "strided_copy_u32";
    EXPECT_EQ(missing_kernel(run_transpose({2, 16, 32}, {0, 2, 1}), gather), "");
    EXPECT_EQ(missing_kernel(run_transpose({1, 32, 4, 16}, {0, 2, 3, 1}), gather), "");  // [1, 4, 16, 32]
    EXPECT_EQ(missing_kernel(run_transpose({1, 8, 4, 24}, {0, 2, 1, 3}), "strided_copy_u32"), "");  // rows of 24
    EXPECT_EQ(missing_kernel(run_transpose({1, 24, 4, 16}, {0, 2, 3, 1}), "strided_copy_u32"), "");  // rows of 24
}

// The gather for every element width: 1-, 2- and 8-byte elements are moved as raw words too.
TEST(GpuCopy, GathersMoveEveryElementWidth) {
    const Shape shape{1, 16, 2, 16};
    const size_t count = static_cast<size_t>(shape_size(shape));
    std::vector<uint8_t> u8(count);
    std::vector<int16_t> i16(count);
    std::vector<int64_t> i64(count);
    for (size_t i = 0; i < count; ++i) {
        u8[i] = static_cast<uint8_t>(i * 7);
        i16[i] = static_cast<int16_t>(i * 131 - 9000);
        i64[i] = static_cast<int64_t>(i) * 4000000007LL - 3;
    }
    const std::vector<std::pair<ElementType, Tensor>> inputs = {
        {ElementType::u8, Tensor::from_vector(shape, ElementType::u8, u8)},
        {ElementType::i16, Tensor::from_vector(shape, ElementType::i16, i16)},
        {ElementType::i64, Tensor::from_vector(shape, ElementType::i64, i64)}};
    for (const auto& [type, input] : inputs) {
        SCOPED_TRACE(to_string(type));
        ModelBuilder b("gpu_gather_widths");
        Output x = b.parameter("x", type, shape);
        b.result(b.op("Transpose", {x, b.constant<int64_t>({4}, {0, 2, 3, 1}, "order")}, {}, "t"), "y");  // [1, 2, 16, 16]
        const auto model = b.build();
        std::vector<std::vector<uint8_t>> bytes;  // REFERENCE's output, then the GPU's
        std::vector<ProfilingInfo> profile;
        for (const char* device : {"REFERENCE", "GPU"}) {
            InferRequest r = shared_core().compile_model(model, device, {{"PERF_COUNT", true}}).create_infer_request();
            r.set_tensor("x", input);
            r.infer();
            const Tensor y = r.get_tensor("y");
            const auto* data = static_cast<const uint8_t*>(y.data());
            bytes.emplace_back(data, data + y.get_byte_size());
            profile = r.get_profiling_info();
        }
        EXPECT_EQ(bytes[0], bytes[1]);
        const std::string bits = std::to_string(element_size(type) * 8);
        EXPECT_EQ(missing_kernel(RunResult{{}, profile}, (gpu_is_cpu_fallback() ? "strided_gather16_u" : "strided_copy_u") + bits),
                  "");
    }
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

TEST(GpuCopy, ContiguousRunsAreBufferCopiesAtTheirOffsets) {
    ModelBuilder b("gpu_block_copies");
    Output x1 = b.parameter("x1", ElementType::f32, {1, 3, 5, 7});
    Output x2 = b.parameter("x2", ElementType::f32, {1, 2, 5, 7});
    Output rows = b.parameter("rows", ElementType::f32, {4, 8});
    b.result(b.op("Concat", {x1, x2}, {{"axis", "1"}}, "concat"), "concatenated");
    b.result(b.op("StridedSlice",
                  {rows, b.constant<int64_t>({1}, {1}, "begin"), b.constant<int64_t>({1}, {3}, "end"),
                   b.constant<int64_t>({1}, {1}, "stride")},
                  {{"begin_mask", "0"}, {"end_mask", "0"}}, "middle_rows"),
             "sliced");
    const auto model = b.build();
    ASSERT_EQ(unsupported_on_gpu(model), "");
    const RunResult got = expect_device_matches_reference(
        model, "GPU",
        {{"x1", random_tensor({1, 3, 5, 7}, 54)}, {"x2", random_tensor({1, 2, 5, 7}, 55)}, {"rows", random_tensor({4, 8}, 56)}});
    for (const ProfilingInfo& p : got.profile) {
        if (p.node_type == "Concat" || p.node_type == "StridedSlice") {
            EXPECT_EQ(p.exec_type, "copy_buffer") << p.node_name;
        }
    }
}

TEST(GpuCopy, RunsThatInterleaveGoThroughTheKernel) {
    // Two images: each input's channels are two runs apart in the output.
    ModelBuilder b("gpu_interleaved_concat");
    Output x1 = b.parameter("x1", ElementType::f32, {2, 3, 5, 7});
    Output x2 = b.parameter("x2", ElementType::f32, {2, 2, 5, 7});
    b.result(b.op("Concat", {x1, x2}, {{"axis", "1"}}, "concat"), "concatenated");
    const RunResult got = expect_device_matches_reference(
        b.build(), "GPU", {{"x1", random_tensor({2, 3, 5, 7}, 57)}, {"x2", random_tensor({2, 2, 5, 7}, 58)}});
    EXPECT_EQ(missing_kernel(got, "strided_copy_u32"), "");
}

}  // namespace
}  // namespace mosaic::test::gpu
