// The reductions on the GPU device against REFERENCE, every op over trailing axes (counts that
// leave a tail past the last 16, a size-1 axis between the reduced ones, keep_dims false) and over
// a leading axis. On an OpenCL CPU device trailing axes run one output a work item over its
// contiguous inputs (reduce_trailing16_f32); other axes and GPUs a work group an output. Softmax
// and LogSoftmax likewise: one row a work item along the last axis (softmax_rows16_f32). And a
// layer normalisation written as several ops (torch's decomposition, MVN with a scale and shift)
// runs as one MVN kernel, as on the CPU device.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test::gpu {
namespace {

struct ReduceCase {
    std::string name;
    Shape in;
    std::vector<int64_t> axes;
    bool keep_dims, trailing;
};

void PrintTo(const ReduceCase& c, std::ostream* os) { *os << c.name; }

class GpuReduce : public ::testing::TestWithParam<ReduceCase> {};

TEST_P(GpuReduce, EveryOpMatchesReference) {
    const ReduceCase& c = GetParam();
    ModelBuilder b("gpu_reduce_" + c.name);
    Output x = b.parameter("x", ElementType::f32, c.in);
    Output axes = b.constant<int64_t>({static_cast<int64_t>(c.axes.size())}, c.axes, "axes");
    const std::vector<std::string> ops = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                          "ReduceProd", "ReduceL1", "ReduceL2"};
    for (const std::string& op : ops)
        b.result(b.op(op, {x, axes}, {{"keep_dims", c.keep_dims ? "true" : "false"}}, op + "_op",
                         op == "ReduceL1" || op == "ReduceL2" ? "opset4" : "opset1"),
                 op);
    const auto model = b.build();
    ASSERT_EQ(unsupported_on_gpu(model), "");
    // Inputs near 1, so that the products of up to 200 of them stay far from 0 and infinity.
    Tensor input = random_tensor(c.in, 81);
    float* values = input.data<float>();
    for (size_t i = 0; i < input.get_size(); ++i) values[i] = 1.0f + 0.02f * values[i];
    const RunResult got = expect_device_matches_reference(model, "GPU", {{"x", input}});
    const bool wide = gpu_is_cpu_fallback() && c.trailing;
    for (const std::string& op : ops) {
        const ProfilingInfo* record = record_named(got.profile, op + "_op");
        ASSERT_NE(record, nullptr) << op << ":\n" << contents(got.profile);
        EXPECT_EQ(record->exec_type, wide ? "reduce_trailing16_f32" : "reduce_f32") << op;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Axes, GpuReduce,
    ::testing::Values(ReduceCase{"global_pool_of_63", {2, 5, 7, 9}, {2, 3}, true, true},  // 3 vectors and 15 more
                      ReduceCase{"around_a_size_1_axis", {2, 5, 1, 40}, {1, 3}, true, true},
                      ReduceCase{"last_axis_of_33_dropped", {4, 33}, {-1}, false, true},
                      ReduceCase{"fewer_than_16", {3, 2, 5}, {1, 2}, false, true},
                      ReduceCase{"a_leading_axis", {2, 5, 7, 9}, {1}, true, false}),
    [](const ::testing::TestParamInfo<ReduceCase>& info) { return info.param.name; });

struct SoftmaxCase {
    std::string name;
    Shape in;
    int64_t axis;
};

void PrintTo(const SoftmaxCase& c, std::ostream* os) { *os << c.name; }

class GpuSoftmax : public ::testing::TestWithParam<SoftmaxCase> {};

// Inputs up to +-200, where exp overflows unless the row's maximum comes off first, and one row
// of equal values (each gets 1 / length).
TEST_P(GpuSoftmax, AndLogSoftmaxMatchReference) {
    const SoftmaxCase& c = GetParam();
    ModelBuilder b("gpu_softmax_" + c.name);
    Output x = b.parameter("x", ElementType::f32, c.in);
    const Attributes axis = {{"axis", std::to_string(c.axis)}};
    b.result(b.op("Softmax", {x}, axis, "softmax", "opset8"), "y");
    b.result(b.op("LogSoftmax", {x}, axis, "log_softmax", "opset5"), "log_y");
    const auto model = b.build();
    ASSERT_EQ(unsupported_on_gpu(model), "");
    Tensor input = random_tensor(c.in, 91);
    float* values = input.data<float>();
    for (size_t i = 0; i < input.get_size(); ++i) values[i] *= 200.0f;
    const size_t length = static_cast<size_t>(c.in.back());
    for (size_t i = 0; i < length && c.axis == static_cast<int64_t>(c.in.size()) - 1; ++i) values[i] = 3.0f;
    const RunResult got = expect_device_matches_reference(model, "GPU", {{"x", input}});
    const bool rows = gpu_is_cpu_fallback() && c.axis == static_cast<int64_t>(c.in.size()) - 1;
    for (const std::string op : {"softmax", "log_softmax"}) {
        const ProfilingInfo* record = record_named(got.profile, op);
        ASSERT_NE(record, nullptr) << op << ":\n" << contents(got.profile);
        EXPECT_EQ(record->exec_type, rows ? "softmax_rows16_f32" : "softmax_f32") << op;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Axes, GpuSoftmax,
    ::testing::Values(SoftmaxCase{"attention_rows_of_128", {1, 3, 16, 128}, 3},
                      SoftmaxCase{"rows_of_37", {5, 37}, 1},  // 2 vectors and 5 more
                      SoftmaxCase{"rows_of_5", {4, 5}, 1},
                      SoftmaxCase{"a_middle_axis", {2, 7, 9}, 1}),
    [](const ::testing::TestParamInfo<SoftmaxCase>& info) { return info.param.name; });

// The one MVN kernel the GPU device runs a layer normalisation with, under the last op's name, and
// no record of the others: one row a work item on an OpenCL CPU device where rows are 16 or longer.
void expect_one_mvn(const RunResult& got, const std::string& name, bool short_rows = false) {
    ASSERT_EQ(got.profile.size(), 1u) << contents(got.profile);
    EXPECT_EQ(got.profile[0].node_name, name);
    EXPECT_EQ(got.profile[0].exec_type, gpu_is_cpu_fallback() && !short_rows ? "mvn_rows16_f32" : "mvn_f32");
}

TEST(GpuLayerNorm, TorchDecompositionIsOneKernel) {
    for (const bool onnx_form : {false, true}) {
        LayerNormOptions o;
        o.onnx_form = onnx_form;
        const auto model = decomposed_layer_norm(o);
        ASSERT_EQ(unsupported_on_gpu(model), "");
        expect_one_mvn(expect_device_matches_reference(model, "GPU", {{"x", random_tensor({2, 5, 16}, 63)}}), "shift");
    }
}

TEST(GpuLayerNorm, WithoutScaleAndShiftOrWithThemBroadcast) {
    LayerNormOptions plain;
    plain.scale_shift = false;
    expect_one_mvn(expect_device_matches_reference(decomposed_layer_norm(plain), "GPU", {{"x", random_tensor({2, 5, 16}, 65)}}),
                   "norm");
    LayerNormOptions broadcast;
    broadcast.gamma_shape = {1, 1, 1};
    expect_one_mvn(
        expect_device_matches_reference(decomposed_layer_norm(broadcast), "GPU", {{"x", random_tensor({2, 5, 16}, 66)}}),
        "shift");
}

// An inner tensor read outside the pattern, or a scale along another axis: op by op (or the
// normalisation alone), with the same results.
TEST(GpuLayerNorm, OutsideReadersAndOtherAxesKeepOpsApart) {
    LayerNormOptions extra;
    extra.extra_reader = true;
    const RunResult apart =
        expect_device_matches_reference(decomposed_layer_norm(extra), "GPU", {{"x", random_tensor({2, 5, 16}, 67)}});
    EXPECT_GT(apart.profile.size(), 5u) << contents(apart.profile);
    for (const auto& p : apart.profile) EXPECT_NE(p.node_type, "MVN") << contents(apart.profile);
    LayerNormOptions per_row;
    per_row.gamma_shape = {5, 1};
    const RunResult scaled =
        expect_device_matches_reference(decomposed_layer_norm(per_row), "GPU", {{"x", random_tensor({2, 5, 16}, 68)}});
    ASSERT_EQ(scaled.profile.size(), 3u) << contents(scaled.profile);
    EXPECT_EQ(scaled.profile[0].node_type, "MVN");
    EXPECT_EQ(scaled.profile[0].node_name, "norm");
}

// MVN-6 (OpenVINO IR's LayerNorm) with its scale and shift over the two trailing axes: rows of 40,
// two vectors of sixteen and eight more; and rows of 6, which take the work-group kernel.
TEST(GpuLayerNorm, MvnWithScaleAndShiftIsOneKernel) {
    expect_one_mvn(expect_device_matches_reference(mvn_layer_norm({2, 3, 4, 10}), "GPU", {{"x", random_tensor({2, 3, 4, 10}, 73)}}),
                   "shift");
    expect_one_mvn(expect_device_matches_reference(mvn_layer_norm({2, 3, 2, 3}), "GPU", {{"x", random_tensor({2, 3, 2, 3}, 74)}}),
                   "shift", true);
}

}  // namespace
}  // namespace mosaic::test::gpu
