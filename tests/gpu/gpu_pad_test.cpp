// Pad on the GPU (pad_ops.cpp): every pad_mode over an image before a convolution, with negative
// pads cropping, f32 and i64 data with a pad value of its own, against REFERENCE. (Padding further
// than a mirroring mode reaches is refused when the model is built.)
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test::gpu {
namespace {

Output pad(ModelBuilder& b, Output x, std::vector<int64_t> begin, std::vector<int64_t> end, const std::string& mode,
           const std::string& name) {
    const auto n = static_cast<int64_t>(begin.size());
    return b.op("Pad", {x, b.constant<int64_t>({n}, begin, name + "/begin"), b.constant<int64_t>({n}, end, name + "/end")},
                {{"pad_mode", mode}}, name, "opset12");
}

TEST(GpuPad, EveryModeAndNegativePadsMatchReference) {
    for (const std::string mode : {"constant", "edge", "reflect", "symmetric"}) {
        SCOPED_TRACE(mode);
        ModelBuilder b("pad_" + mode);
        Output x = b.parameter("x", ElementType::f32, {2, 3, 7, 6});
        Output padded = pad(b, x, {0, 0, 2, 3}, {0, 0, 3, -1}, mode, "pad");
        b.result(b.op("Convolution", {padded, random_constant(b, {4, 3, 3, 3}, 181, "w")}, conv_attrs(0, 1), "conv"), "y");
        const RunResult got = expect_device_matches_reference(b.build(), "GPU", {{"x", random_tensor({2, 3, 7, 6}, 182)}});
        const ProfilingInfo* record = record_named(got.profile, "pad");
        ASSERT_NE(record, nullptr) << contents(got.profile);
        EXPECT_EQ(record->exec_type, "pad_u32");
    }
}

TEST(GpuPad, AConstantOfItsOwnAnd64BitElements) {
    ModelBuilder b("pad_i64");
    Output x = b.parameter("x", ElementType::i64, {3, 4});
    Output value = b.constant<int64_t>({}, {-7}, "value");
    Output padded = b.op("Pad", {x, b.constant<int64_t>({2}, {1, 2}, "begin"), b.constant<int64_t>({2}, {2, 0}, "end"), value},
                         {{"pad_mode", "constant"}}, "pad", "opset12");
    b.result(b.op("Convert", {padded}, {{"destination_type", "f32"}}, "as_f32"), "y");
    std::vector<int64_t> values(12);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i * 1000003) - 5000000;
    const RunResult got = expect_device_matches_reference(b.build(), "GPU", {{"x", Tensor::from_vector({3, 4}, ElementType::i64, values)}});
    const ProfilingInfo* record = record_named(got.profile, "pad");
    ASSERT_NE(record, nullptr) << contents(got.profile);
    EXPECT_EQ(record->exec_type, "pad_u64");
}

}  // namespace
}  // namespace mosaic::test::gpu
