// INFERENCE_PRECISION_HINT f16 on the GPU device: its f32 tensors are f16 in device memory
// (value_table.hpp), every kernel loads and stores halves and computes in float, and the caller's
// tensors stay f32, converted on the device.
//
// The tolerance, documented in plugins/gpu/README.md: f16 keeps 11 significant bits, so a result
// rounded once is within 2^-11 of itself relatively. Each op case the GPU takes runs under f16 on
// its inputs rounded to f16 and must match REFERENCE run on the same rounded inputs within the
// f32 tolerance plus 2^-10 relative (the result's rounding, and one more where a kernel stores an
// intermediate, as softmax's exponentials) plus an absolute 2^-10 of the output's largest result
// (kernels that store partial results round each: a transposed convolution's columns, summed
// after; a folded BatchNorm's scale) and 2^-14 (f16's smallest normal: smaller values keep fewer
// bits). Cases whose results lie beyond f16's range (65504) are skipped: they are infinite in
// f16, which is what f16 means. The suite runs with both ways halves convert
// (GPU_HALF_CONVERSIONS: OpenCL's builtins, as on GPUs, and integer arithmetic, PoCL's default).
#include "gpu/gpu_op_cases.hpp"

#include <mosaic/element_type.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include <cmath>
#include <cstring>

namespace mosaic::test::gpu {
namespace {

const AnyMap kHalf = {properties::hint::inference_precision("f16")};
constexpr double kF16Rtol = 1.0 / 1024, kF16Atol = 1.0 / 16384, kF16Max = 65504;

float to_f16_and_back(float v) { return f16_to_f32(f32_to_f16(v)); }

// The case with every f32 input (constant or not) rounded to the nearest f16.
OpCaseSpec rounded_to_f16(OpCaseSpec c) {
    for (OpCaseTensor& in : c.inputs) {
        if (in.type != ElementType::f32) continue;
        for (size_t i = 0; i + sizeof(float) <= in.bytes.size(); i += sizeof(float)) {
            float v;
            std::memcpy(&v, in.bytes.data() + i, sizeof v);
            v = to_f16_and_back(v);
            std::memcpy(in.bytes.data() + i, &v, sizeof v);
        }
    }
    return c;
}

// The case's outputs as `device` computes them (compiled with `properties`).
std::vector<Tensor> run_case(const OpCaseSpec& c, const std::string& device, const AnyMap& properties = {}) {
    CompiledModel compiled = shared_core().compile_model(op_case_model(c), device, properties);
    InferRequest request = compiled.create_infer_request();
    set_op_case_inputs(request, c);
    request.infer();
    std::vector<Tensor> outputs;
    for (size_t o = 0; o < c.outputs.size(); ++o) outputs.push_back(request.get_tensor("out" + std::to_string(o)));
    return outputs;
}

// The largest finite magnitude of an f32 tensor (0 for other types).
double largest(const Tensor& t) {
    double m = 0;
    if (t.get_element_type() == ElementType::f32)
        for (float v : t.to_vector<float>())
            if (std::isfinite(v)) m = std::max(m, static_cast<double>(std::fabs(v)));
    return m;
}

class GpuHalfOp : public ::testing::TestWithParam<std::tuple<OpCaseSpec, std::string>> {};

TEST_P(GpuHalfOp, MatchesReferenceOnTheInputsRoundedToF16) {
    const OpCaseSpec c = rounded_to_f16(std::get<0>(GetParam()));
    AnyMap half = kHalf;
    half["GPU_HALF_CONVERSIONS"] = std::get<1>(GetParam());
    std::string why;
    if (!gpu_takes(op_case_model(c), &why)) GTEST_SKIP() << c.op << " (" << c.version << "): " << why;
    const std::vector<Tensor> expected = run_case(c, "REFERENCE");
    for (const Tensor& e : expected)
        if (largest(e) > kF16Max) GTEST_SKIP() << "REFERENCE's results exceed f16's range (65504)";
    const std::vector<Tensor> got = run_case(c, "GPU", half);
    const double rtol = std::max(c.rtol, 1e-4) + kF16Rtol;
    ASSERT_EQ(got.size(), expected.size());
    for (size_t o = 0; o < got.size(); ++o) {
        const double atol = std::max(c.atol, 1e-5) + kF16Atol + kF16Rtol * largest(expected[o]);
        ASSERT_EQ(to_string(got[o].get_shape()), to_string(expected[o].get_shape())) << "output " << o;
        ASSERT_EQ(got[o].get_element_type(), expected[o].get_element_type()) << "output " << o;
        OpCaseTensor reference{expected[o].get_element_type(), expected[o].get_shape(), false, {}};
        const auto* bytes = static_cast<const uint8_t*>(expected[o].data());
        reference.bytes.assign(bytes, bytes + expected[o].get_byte_size());
        expect_close(reference, got[o].data(), rtol, atol, c.op + " output " + std::to_string(o) + " under f16");
    }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuHalfOp);
INSTANTIATE_TEST_SUITE_P(Cases, GpuHalfOp,
                         ::testing::Combine(::testing::ValuesIn(runnable_cases()), ::testing::Values("BUILTIN", "BITS")),
                         [](const ::testing::TestParamInfo<std::tuple<OpCaseSpec, std::string>>& info) {
                             return std::get<0>(info.param).id + "_" + std::get<1>(info.param);
                         });

// The f16 results are not the f32 ones: the suite above tests the f16 kernels, not the f32 ones
// under another name. A MatMul of values that f16 cannot hold exactly gives f16 values, most of
// them unlike its f32 results, and all near them (its inputs and weights rounded, 64 products
// summed: gpu_model_test.cpp's model tolerance for f16).
TEST(GpuHalf, ResultsAreRoundedToF16NotComputedInF32) {
    ModelBuilder b("gpu_half_matmul");
    Output x = b.parameter("x", ElementType::f32, {4, 64});
    b.result(b.op("MatMul", {x, random_constant(b, {64, 48}, 7, "w")}, {{"transpose_a", "false"}, {"transpose_b", "false"}},
                  "mm"),
             "y");
    const auto model = b.build();
    const Inputs inputs = {{"x", random_tensor({4, 64}, 8)}};
    const std::vector<float> f32 = run_on(model, "GPU", inputs).outputs.at(0);
    const std::vector<float> f16 = run_on(model, "GPU", inputs, kHalf).outputs.at(0);
    ASSERT_EQ(f32.size(), f16.size());
    size_t differ = 0;
    for (size_t i = 0; i < f32.size(); ++i) {
        differ += f16[i] != f32[i];
        EXPECT_EQ(f16[i], to_f16_and_back(f16[i])) << "result " << i << " is not an f16 value";
        EXPECT_NEAR(f16[i], f32[i], 1e-2 * std::fabs(f32[i]) + 5e-3) << "result " << i;
    }
    EXPECT_GT(differ, f32.size() / 2) << "the f16 results equal the f32 ones";
}

// Results that no kernel writes (a Parameter or a Constant passed through) come back converted,
// with the device's copies, zero-copy or staged, each profiled as a Transfer.
std::shared_ptr<Model> pass_through_model() {
    ModelBuilder b("gpu_half_pass_through");
    Output x = b.parameter("x", ElementType::f32, {2, 40});
    b.result(b.op("Relu", {x}, {}, "relu"), "relu_out");
    b.result(x, "echo");
    b.result(b.constant<float>({3}, {1.0f / 3, 65504.0f * 2, -2.5f}, "c"), "constant_out");
    return b.build();
}

TEST(GpuHalf, InputsConstantsAndResultsCrossAsF32WithAndWithoutZeroCopy) {
    Tensor x = random_tensor({2, 40}, 9);
    // Values f16 rounds up across a power of two, into its subnormals, beyond its range and to a tie.
    float* v = x.data<float>();
    v[0] = 65519.0f, v[1] = 65520.0f, v[2] = 1e-6f, v[3] = -3.0e-5f, v[4] = 1.0f + 1.0f / 2048, v[5] = 0.99999f;
    std::vector<float> rounded = x.to_vector<float>(), relu;
    for (float& v : rounded) v = to_f16_and_back(v);
    for (float v : rounded) relu.push_back(std::max(v, 0.0f));
    // A constant beyond f16's range saturates (OpenVINO's FP16 compression does the same); a computed
    // value overflows to inf.
    const std::vector<float> constant = {to_f16_and_back(1.0f / 3), 65504.0f, -2.5f};
    for (const char* conversions : {"BUILTIN", "BITS"})
    for (bool zero_copy : {true, false}) {
        SCOPED_TRACE(std::string(zero_copy ? "zero-copy, " : "staged, ") + conversions);
        AnyMap properties = kHalf;
        properties["GPU_ZERO_COPY"] = zero_copy;
        properties["GPU_HALF_CONVERSIONS"] = conversions;
        properties["PERF_COUNT"] = true;
        const RunResult r = run_on(pass_through_model(), "GPU", {{"x", x}}, properties);
        ASSERT_EQ(r.outputs.size(), 3u);
        EXPECT_EQ(r.outputs[0], relu);
        EXPECT_EQ(r.outputs[1], rounded);
        EXPECT_EQ(r.outputs[2], constant);
        EXPECT_EQ(missing_kernel(r, "float_to_real"), "");
        EXPECT_EQ(missing_kernel(r, "real_to_float"), "");
    }
}

// An attention mask's float-min (what torch's masked_fill and exporters write) is a constant beyond
// f16's range: stored as -inf, a row masked whole (a padded query) would go through Softmax as NaN,
// and spread to every row in the next layer; saturated to -65504, the row is uniform, as in f32.
TEST(GpuHalf, AMaskOfFloatMinSaturatesSoAWholeMaskedRowStaysFinite) {
    ModelBuilder b("gpu_half_masked_row");
    Output x = b.parameter("x", ElementType::f32, {2, 8});
    std::vector<float> mask(16, 0.0f);
    std::fill(mask.begin() + 8, mask.end(), std::numeric_limits<float>::lowest());  // row 1 masked whole
    b.result(b.op("Softmax", {b.op("Add", {x, b.constant<float>({2, 8}, mask, "mask")}, {}, "masked")}, {{"axis", "1"}},
                  "softmax", "opset8"),
             "y");
    const std::vector<float> y = run_on(b.build(), "GPU", {{"x", random_tensor({2, 8}, 11)}}, kHalf).outputs.at(0);
    for (size_t i = 8; i < 16; ++i) EXPECT_NEAR(y[i], 1.0f / 8, 1e-3) << "masked row, column " << i - 8;
    float sum = 0;
    for (size_t i = 0; i < 8; ++i) sum += y[i];
    EXPECT_NEAR(sum, 1.0f, 1e-2);
}

// The memory plan holds f16 activations: half the bytes of the f32 plan's.
TEST(GpuHalf, TheMemoryPlanHalves) {
    const auto bytes = [](const AnyMap& properties) {
        CompiledModel compiled = shared_core().compile_model(small_cnn(), "GPU", properties);
        return compiled.get_property("GPU_MEMORY_PLAN")["bytes"].get<size_t>();
    };
    const size_t f32 = bytes({}), f16 = bytes(kHalf);
    RecordProperty("f32_bytes", std::to_string(f32));
    RecordProperty("f16_bytes", std::to_string(f16));
    EXPECT_GT(f32, 0u);
    EXPECT_LE(f16 * 2, f32 + 64) << "f32 plan " << f32 << " bytes, f16 plan " << f16;
}

}  // namespace
}  // namespace mosaic::test::gpu
