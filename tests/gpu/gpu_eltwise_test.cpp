// The element-wise kernels on the GPU device, by how each operand is indexed: the same shape, a
// scalar, a trailing broadcast (x[..., c] + b[c]), a leading one (x[r, ...] - m[r, 1]) and a general
// walk, with and without a fused activation. Each runs against REFERENCE, and the kernel the
// profiling names is the one eltwise_ops.cpp should pick: sixteen elements a work item on an OpenCL
// CPU device where the element count is a multiple of 16 and no operand needs a full walk (a block
// of 16 straddling two rows of a broadcast operand reads it lane by lane), one element a work item
// otherwise and on GPUs.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace mosaic::test::gpu {
namespace {

struct EltwiseCase {
    std::string name;
    std::string op;  // Add, Multiply, Subtract, Divide, Maximum, Power
    Shape a, b;
    std::string activation;  // "" or the unary op after it (fused into the binary kernel)
    bool wide_on_cpu_device;  // the sixteen-element kernel, on an OpenCL CPU device
};

void PrintTo(const EltwiseCase& c, std::ostream* os) { *os << c.name; }

std::shared_ptr<Model> eltwise_model(const EltwiseCase& c) {
    ModelBuilder b("gpu_eltwise_" + c.name);
    Output a = b.parameter("a", ElementType::f32, c.a);
    Output other = c.b.empty() ? b.constant<float>({}, {1.75f}, "scalar") : b.parameter("b", ElementType::f32, c.b);
    Output y = b.op(c.op, {a, other}, {}, "binary");
    if (!c.activation.empty()) y = b.op(c.activation, {y}, {}, "activation");
    b.result(y, "y");
    return b.build();
}

Inputs eltwise_inputs(const EltwiseCase& c) {
    // Power needs a positive base; the others take both signs.
    Tensor a = random_tensor(c.a, 31);
    if (c.op == "Power") {
        std::vector<float> v = a.to_vector<float>();
        for (float& x : v) x = std::fabs(x) + 0.25f;
        a = Tensor::from_vector(c.a, ElementType::f32, v);
    }
    Inputs inputs = {{"a", a}};
    if (!c.b.empty()) inputs["b"] = random_tensor(c.b, 32);
    return inputs;
}

class GpuEltwise : public ::testing::TestWithParam<EltwiseCase> {};

TEST_P(GpuEltwise, MatchesReferenceWithTheKernelItsOperandsAllow) {
    const EltwiseCase& c = GetParam();
    const auto model = eltwise_model(c);
    ASSERT_EQ(unsupported_on_gpu(model), "");
    const RunResult got = expect_device_matches_reference(model, "GPU", eltwise_inputs(c));
    const bool wide = c.wide_on_cpu_device && gpu_is_cpu_fallback();
    EXPECT_EQ(missing_kernel(got, wide ? "binary16_f32" : (c.a == c.b ? "binary_same_f32" : "binary_bcast_f32")), "");
}

INSTANTIATE_TEST_SUITE_P(
    Operands, GpuEltwise,
    ::testing::Values(
        EltwiseCase{"same_shape", "Add", {2, 3, 32}, {2, 3, 32}, "", true},
        EltwiseCase{"same_shape_odd_count", "Add", {3, 5}, {3, 5}, "", false},
        EltwiseCase{"trailing_48", "Multiply", {4, 48}, {48}, "", true},
        EltwiseCase{"trailing_8_of_16", "Add", {2, 8}, {8}, "", true},  // a block holds two rows of b
        EltwiseCase{"trailing_49", "Add", {16, 49}, {49}, "", true},     // blocks straddling rows
        EltwiseCase{"leading_32", "Subtract", {4, 32}, {4, 1}, "", true},
        EltwiseCase{"leading_8", "Subtract", {4, 8}, {4, 1}, "", true},
        // A squeeze-and-excitation scale over 7x7 planes: 49 a channel, blocks straddling two.
        EltwiseCase{"leading_49_channel_scale", "Multiply", {1, 16, 7, 7}, {1, 16, 1, 1}, "", true},
        EltwiseCase{"scalar_then_erf", "Divide", {2, 64}, {}, "Erf", true},
        EltwiseCase{"scalar_then_tanh_odd", "Divide", {3, 7}, {}, "Tanh", false},
        EltwiseCase{"middle_axis_walk", "Add", {2, 3, 16}, {1, 3, 1}, "", false},  // neither trailing nor leading
        EltwiseCase{"maximum_then_sigmoid", "Maximum", {8, 16}, {16}, "Sigmoid", true},
        EltwiseCase{"power", "Power", {4, 16}, {4, 16}, "", true}),
    [](const ::testing::TestParamInfo<EltwiseCase>& info) { return info.param.name; });

// An activation alone: sixteen elements a work item on an OpenCL CPU device when the count allows.
TEST(GpuEltwiseUnary, ActivationsMatchReferenceOnBothKernels) {
    for (const auto& [shape, wide] : std::vector<std::pair<Shape, bool>>{{{4, 32}, true}, {{3, 5}, false}}) {
        for (const std::string op : {"Erf", "Tanh", "Relu", "Exp", "Sigmoid"}) {
            ModelBuilder b("gpu_unary_" + op);
            b.result(b.op(op, {b.parameter("x", ElementType::f32, shape)}, {}, "act"), "y");
            const RunResult got = expect_device_matches_reference(b.build(), "GPU", {{"x", random_tensor(shape, 41)}});
            EXPECT_EQ(missing_kernel(got, wide && gpu_is_cpu_fallback() ? "unary16_f32" : "unary_f32"), "")
                << op << " on a " << shape.size() << "-d input";
        }
    }
}

// Denormal floats are flushed to zero (the program is built with -cl-denorms-are-zero): on an
// OpenCL CPU device every operation on one otherwise costs a microcode assist, 100 times the
// arithmetic. PoCL flushes, so x * 1 gives 0 for a denormal x there; a GPU may keep it. Either is
// within REFERENCE's tolerance, and normal values are untouched.
TEST(GpuEltwiseDenormals, AreFlushedToZeroOnAnOpenClCpuDevice) {
    ModelBuilder b("gpu_denormals");
    Output x = b.parameter("x", ElementType::f32, {2, 16});
    b.result(b.op("Multiply", {x, b.constant<float>({}, {1.0f}, "one")}, {}, "times_one"), "y");
    std::vector<float> values(32);
    for (size_t i = 0; i < values.size(); ++i) values[i] = i % 2 ? 1e-40f * static_cast<float>(i) : 0.5f + static_cast<float>(i);
    for (size_t i = 1; i < values.size(); i += 2) ASSERT_EQ(std::fpclassify(values[i]), FP_SUBNORMAL) << i;
    const RunResult got =
        expect_device_matches_reference(b.build(), "GPU", {{"x", Tensor::from_vector({2, 16}, ElementType::f32, values)}});
    for (size_t i = 0; i < values.size(); ++i) {
        if (i % 2 == 0) {
            EXPECT_EQ(got.outputs[0][i], values[i]) << i;
        } else if (gpu_is_cpu_fallback()) {
            EXPECT_EQ(got.outputs[0][i], 0.0f) << i << ": " << values[i] << " kept";
        } else {
            EXPECT_TRUE(got.outputs[0][i] == 0.0f || got.outputs[0][i] == values[i]) << i;
        }
    }
}

}  // namespace
}  // namespace mosaic::test::gpu
