// Max and average pooling on the GPU device against REFERENCE: strides, padding (counted in the
// average or not), dilation, ceil rounding, rows that end inside a block of 16, and blocks at
// stride 2 read as every other value of two vector loads. On an OpenCL CPU device rows of 4 outputs
// or more run sixteen outputs of a row a work item (max_pool16_f32, avg_pool16_f32), narrower rows
// and GPUs one output a work item.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test::gpu {
namespace {

struct PoolCase {
    std::string name;
    std::string op;  // MaxPool (opset 8, with dilations) or AvgPool
    int64_t in_w, kernel, stride, pad, dilation;
    bool ceil = false, exclude_pad = true;
    int64_t out_w() const {
        const int64_t span = in_w + 2 * pad - dilation * (kernel - 1) - 1;
        return (ceil ? (span + stride - 1) / stride : span / stride) + 1;
    }
};

void PrintTo(const PoolCase& c, std::ostream* os) { *os << c.name; }

class GpuPooling : public ::testing::TestWithParam<PoolCase> {};

TEST_P(GpuPooling, MatchesReference) {
    const PoolCase& c = GetParam();
    const Shape in = {2, 3, 11, c.in_w};
    ModelBuilder b("gpu_pooling_" + c.name);
    Output x = b.parameter("x", ElementType::f32, in);
    const std::string k = std::to_string(c.kernel), s = std::to_string(c.stride), p = std::to_string(c.pad);
    Attributes attrs = {{"kernel", k + "," + k},        {"strides", s + "," + s},
                        {"pads_begin", p + "," + p},    {"pads_end", p + "," + p},
                        {"auto_pad", "explicit"},       {"rounding_type", c.ceil ? "ceil" : "floor"}};
    if (c.op == "MaxPool") {
        attrs.set("dilations", std::vector<int64_t>{c.dilation, c.dilation});
    } else {
        attrs.set("exclude-pad", c.exclude_pad);
    }
    Output y = b.op(c.op, {x}, attrs, "pool", c.op == "MaxPool" ? "opset8" : "opset1");
    b.result(y, "y");
    const auto model = b.build();
    ASSERT_EQ(unsupported_on_gpu(model), "");
    const RunResult got = expect_device_matches_reference(model, "GPU", {{"x", random_tensor(in, 71)}});
    const std::string kind = c.op == "MaxPool" ? "max_pool" : "avg_pool";
    const bool wide = gpu_is_cpu_fallback() && c.out_w() >= 4;
    EXPECT_EQ(missing_kernel(got, kind + (wide ? "16_f32" : "_f32")), "") << "out_w " << c.out_w();
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GpuPooling,
    ::testing::Values(PoolCase{"max_resnet_stem_row_of_40", "MaxPool", 80, 3, 2, 1, 1},  // blocks read as two vectors, 8 more
                      PoolCase{"max_stride1_row_of_16", "MaxPool", 18, 3, 1, 0, 1},
                      PoolCase{"max_dilated_ceil_row_of_9", "MaxPool", 21, 3, 2, 1, 2, true},
                      PoolCase{"max_row_of_3", "MaxPool", 6, 2, 2, 0, 1},  // narrower than 4: one output a work item
                      PoolCase{"avg_exclude_pad_row_of_19", "AvgPool", 19, 3, 1, 1, 1},  // a full block and 3 more
                      PoolCase{"avg_include_pad_row_of_17", "AvgPool", 33, 3, 2, 1, 1, false, false},
                      PoolCase{"avg_ceil_exclude_pad_row_of_6", "AvgPool", 12, 3, 2, 1, 1, true},
                      PoolCase{"avg_unpadded_row_of_32", "AvgPool", 64, 2, 2, 0, 1}),
    [](const ::testing::TestParamInfo<PoolCase>& info) { return info.param.name; });

}  // namespace
}  // namespace mosaic::test::gpu
