// Depthwise convolutions on the GPU device against REFERENCE: strides, padding, dilation, rows
// that end inside a block of 16, and a fused bias, Clamp (ReLU6) and residual. On an OpenCL CPU
// device rows of 4 outputs or more run sixteen outputs of a row a work item: down a column of rows
// at stride 1 or 2 with windows that fit (depthwise_column16_f32), else a row at a time
// (depthwise_conv16_f32); narrower rows and GPUs one output a work item.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test::gpu {
namespace {

struct DepthwiseCase {
    std::string name;
    int64_t in_w, stride, pad, dilation;
    bool residual;
    bool column = true;  // sixteen-wide: depthwise_column16_f32 (else depthwise_conv16_f32)
    int64_t out_w() const { return (in_w + 2 * pad - dilation * 2 - 1) / stride + 1; }  // 3x3 filters
};

void PrintTo(const DepthwiseCase& c, std::ostream* os) { *os << c.name; }

class GpuDepthwise : public ::testing::TestWithParam<DepthwiseCase> {};

TEST_P(GpuDepthwise, MatchesReferenceWithItsEpilogue) {
    const DepthwiseCase& c = GetParam();
    constexpr int64_t channels = 6, in_h = 9;
    const Shape in = {2, channels, in_h, c.in_w};
    ModelBuilder b("gpu_depthwise_" + c.name);
    Output x = b.parameter("x", ElementType::f32, in);
    const std::string s = std::to_string(c.stride), p = std::to_string(c.pad), d = std::to_string(c.dilation);
    Output conv = b.op("GroupConvolution", {x, random_constant(b, {channels, 1, 1, 3, 3}, 61, "w")},
                       {{"strides", s + "," + s}, {"dilations", d + "," + d}, {"pads_begin", p + "," + p},
                        {"pads_end", p + "," + p}, {"auto_pad", "explicit"}},
                       "depthwise");
    Output y = b.op("Add", {conv, random_constant(b, {1, channels, 1, 1}, 62, "bias")}, {}, "bias_add");
    y = b.op("Clamp", {y}, {{"min", "0"}, {"max", "6"}}, "relu6");
    Inputs inputs = {{"x", random_tensor(in, 63)}};
    if (c.residual) {
        const int64_t out_h = (in_h + 2 * c.pad - c.dilation * 2 - 1) / c.stride + 1;
        const Shape out = {2, channels, out_h, c.out_w()};
        y = b.op("Add", {y, b.parameter("r", ElementType::f32, out)}, {}, "residual");
        inputs["r"] = random_tensor(out, 64);
    }
    b.result(y, "y");
    const auto model = b.build();
    ASSERT_EQ(unsupported_on_gpu(model), "");
    const RunResult got = expect_device_matches_reference(model, "GPU", inputs);
    const bool wide = gpu_is_cpu_fallback() && c.out_w() >= 4;
    const char* kernel = !wide ? "depthwise_conv_f32" : c.column ? "depthwise_column16_f32" : "depthwise_conv16_f32";
    EXPECT_EQ(missing_kernel(got, kernel), "") << "out_w " << c.out_w();
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GpuDepthwise,
    ::testing::Values(DepthwiseCase{"stride1_row_of_20", 20, 1, 1, 1, true},  // a full block and 4 more
                      DepthwiseCase{"stride2_row_of_17", 33, 2, 1, 1, false},
                      DepthwiseCase{"stride2_row_of_40", 80, 2, 1, 1, true},  // its middle blocks: two vector loads
                      DepthwiseCase{"dilated_row_of_16", 16, 1, 2, 2, true},
                      DepthwiseCase{"row_of_5", 5, 1, 1, 1, true},
                      DepthwiseCase{"row_of_3", 5, 2, 1, 1, false},  // narrower than 4: one output a work item
                      DepthwiseCase{"unpadded_row_of_30", 32, 1, 0, 1, false},
                      // A row at a time: stride 3, and a dilation whose rows outnumber the ring's 8.
                      DepthwiseCase{"stride3_row_of_11", 33, 3, 1, 1, true, false},
                      DepthwiseCase{"dilated4_row_of_20", 20, 1, 4, 4, false, false}),
    [](const ::testing::TestParamInfo<DepthwiseCase>& info) { return info.param.name; });

}  // namespace
}  // namespace mosaic::test::gpu
