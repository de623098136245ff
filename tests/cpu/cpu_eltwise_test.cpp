// Element-wise, reduction and transpose ops on oneDNN, and the decomposed LayerNorm, erf Gelu and
// x * Sigmoid(x) that torch exports run as one executor each: every case equals REFERENCE, and profiling names
// the executor that ran (a oneDNN implementation, not "ref"; one record for a fused pattern).
// Patterns with an inner tensor read elsewhere must not fuse, and still compute the same.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <limits>

#include <cstring>

namespace mosaic::test {
namespace {

const AnyMap kProfile{{"PERF_COUNT", true}};

// The single record of a one-executor model, checked to run on oneDNN.
void expect_one_onednn_record(const RunResult& r, const std::string& name, const std::string& type) {
    ASSERT_EQ(r.profile.size(), 1u) << contents(r.profile);
    EXPECT_EQ(r.profile[0].node_name, name) << contents(r.profile);
    EXPECT_EQ(r.profile[0].node_type, type) << contents(r.profile);
    EXPECT_NE(r.profile[0].exec_type, "ref") << contents(r.profile);
}

// ---- binary ops ------------------------------------------------------------------------------

struct BinaryCase {
    const char* op;
    Shape a, b;
    bool onednn;  // both operands broadcasting stays on the reference kernels
};

std::string shape_name(const Shape& s) {
    std::string out;
    for (int64_t d : s) out += (out.empty() ? "" : "x") + std::to_string(d);
    return out.empty() ? "scalar" : out;
}

class CpuBinary : public ::testing::TestWithParam<BinaryCase> {};

TEST_P(CpuBinary, MatchesReferenceWithBroadcasting) {
    const BinaryCase& c = GetParam();
    ModelBuilder b("binary");
    Output x = b.parameter("a", ElementType::f32, c.a);
    Output y = b.parameter("b", ElementType::f32, c.b);
    b.result(b.op(c.op, {x, y}, {}, "op"), "out");
    // Divisors and Power bases away from 0.
    Tensor a = Tensor::from_vector(c.a, ElementType::f32, random_values(static_cast<size_t>(shape_size(c.a)), 11, 0.5f, 2.0f));
    Tensor bt = Tensor::from_vector(c.b, ElementType::f32, random_values(static_cast<size_t>(shape_size(c.b)), 12, -2.0f, -0.5f));
    const RunResult r = expect_matches_reference(b.build(), {{"a", a}, {"b", bt}}, kProfile, 1e-6, 1e-6);
    ASSERT_EQ(r.profile.size(), 1u) << contents(r.profile);
    if (c.onednn)
        EXPECT_NE(r.profile[0].exec_type, "ref") << contents(r.profile);
    else
        EXPECT_EQ(r.profile[0].exec_type, "ref") << contents(r.profile);
}

std::vector<BinaryCase> binary_cases() {
    std::vector<BinaryCase> cases;
    for (const char* op : {"Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "SquaredDifference"}) {
        cases.push_back({op, {2, 3, 4, 5}, {2, 3, 4, 5}, true});
        cases.push_back({op, {2, 3, 4, 5}, {4, 5}, true});   // rank mismatch, second broadcasts
        cases.push_back({op, {2, 3, 4, 5}, {3, 1, 1}, true});  // per channel
        cases.push_back({op, {2, 3, 4, 5}, {}, true});       // scalar
        cases.push_back({op, {2, 3, 1, 5}, {3, 4, 1}, false});  // both broadcast
        // the first operand broadcasts: commutative ops swap, Subtract negates, Divide stays exact on ref
        cases.push_back({op, {1, 5}, {2, 3, 4, 5}, std::string(op) != "Divide"});
        cases.push_back({op, {}, {2, 3, 4, 5}, std::string(op) != "Divide"});
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Ops, CpuBinary, ::testing::ValuesIn(binary_cases()),
                         [](const ::testing::TestParamInfo<BinaryCase>& info) {
                             return std::string(info.param.op) + "_" + shape_name(info.param.a) + "_by_" +
                                    shape_name(info.param.b) + "_" + std::to_string(info.index);
                         });

// Comparisons write booleans; compared byte for byte, ties included (both operands share values).
TEST(CpuBinaryCompare, ComparisonsMatchReferenceBothOrders) {
    for (const char* op : {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"}) {
        for (bool swap : {false, true}) {
            const Shape big{2, 3, 4}, small{4};
            ModelBuilder b("compare");
            Output x = b.parameter("a", ElementType::f32, swap ? small : big);
            Output y = b.parameter("b", ElementType::f32, swap ? big : small);
            b.result(b.op(op, {x, y}, {}, "op"), "out");
            const auto model = b.build();
            std::vector<float> av{0, 1, 2, 3}, bv(24);
            for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<float>(i % 5);
            const Tensor ta = Tensor::from_vector(swap ? small : big, ElementType::f32, swap ? av : bv);
            const Tensor tb = Tensor::from_vector(swap ? big : small, ElementType::f32, swap ? bv : av);
            std::vector<std::vector<uint8_t>> results;
            std::string exec;
            for (const char* device : {"REFERENCE", "CPU"}) {
                CompiledModel compiled = shared_core().compile_model(model, device, kProfile);
                InferRequest r = compiled.create_infer_request();
                r.set_tensor("a", ta);
                r.set_tensor("b", tb);
                r.infer();
                const Tensor out = r.get_tensor("out");
                ASSERT_EQ(out.get_element_type(), ElementType::boolean);
                const auto* p = static_cast<const uint8_t*>(out.data());
                results.emplace_back(p, p + shape_size(out.get_shape()));
                exec = r.get_profiling_info().at(0).exec_type;
            }
            EXPECT_EQ(results[0], results[1]) << op << (swap ? " swapped" : "");
            EXPECT_NE(exec, "ref") << op;
        }
    }
}

// Eltwise ops after a binary op run as its post-ops.
TEST(CpuBinaryFusion, ActivationAfterAddIsAPostOp) {
    ModelBuilder b("add_relu");
    Output x = b.parameter("a", ElementType::f32, {2, 8, 6});
    Output y = b.parameter("b", ElementType::f32, {8, 1});
    Output sum = b.op("Add", {x, y}, {}, "add");
    b.result(b.op("Multiply", {b.op("Relu", {sum}, {}, "relu"), b.constant<float>({}, {-2.0f})}, {}, "scale"), "out");
    const RunResult r =
        expect_matches_reference(b.build(), {{"a", random_tensor({2, 8, 6}, 21)}, {"b", random_tensor({8, 1}, 22)}});
    expect_one_onednn_record(r, "scale", "Add");
}

// ---- eltwise ops -----------------------------------------------------------------------------

struct UnaryCase {
    const char* op;
    const char* version;
    Attributes attrs;
    float low, high;  // input range (Log and Sqrt need positive inputs)
};

class CpuEltwise : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(CpuEltwise, MatchesReference) {
    const UnaryCase& c = GetParam();
    const Shape shape{2, 5, 7};
    ModelBuilder b("eltwise");
    Output x = b.parameter("x", ElementType::f32, shape);
    std::vector<Output> inputs{x};
    if (std::string(c.op) == "Swish") inputs.push_back(b.constant<float>({}, {0.75f}));
    b.result(b.op(c.op, inputs, c.attrs, "op", c.version), "out");
    const Tensor t =
        Tensor::from_vector(shape, ElementType::f32, random_values(static_cast<size_t>(shape_size(shape)), 31, c.low, c.high));
    const RunResult r = expect_matches_reference(b.build(), {{"x", t}}, kProfile, 1e-5, 1e-4);
    expect_one_onednn_record(r, "op", c.op);
}

INSTANTIATE_TEST_SUITE_P(Ops, CpuEltwise,
                         ::testing::Values(UnaryCase{"Relu", "opset1", {}, -3, 3},
                                           UnaryCase{"Sigmoid", "opset1", {}, -6, 6},
                                           UnaryCase{"Tanh", "opset1", {}, -4, 4},
                                           UnaryCase{"Exp", "opset1", {}, -5, 5},
                                           UnaryCase{"Log", "opset1", {}, 0.01f, 50},
                                           UnaryCase{"Sqrt", "opset1", {}, 0, 50},
                                           UnaryCase{"Abs", "opset1", {}, -3, 3},
                                           UnaryCase{"Negative", "opset1", {}, -3, 3},
                                           UnaryCase{"Elu", "opset1", {{"alpha", "0.7"}}, -3, 3},
                                           UnaryCase{"Clamp", "opset1", {{"min", "-0.5"}, {"max", "1.5"}}, -3, 3},
                                           UnaryCase{"Gelu", "opset2", {}, -4, 4},
                                           UnaryCase{"Gelu", "opset7", {{"approximation_mode", "tanh"}}, -4, 4},
                                           UnaryCase{"Swish", "opset4", {}, -5, 5},
                                           UnaryCase{"HSwish", "opset4", {}, -5, 5},
                                           UnaryCase{"Mish", "opset4", {}, -5, 5},
                                           UnaryCase{"Round", "opset5", {{"mode", "half_to_even"}}, -4, 4}),
                         [](const ::testing::TestParamInfo<UnaryCase>& info) {
                             return std::string(info.param.op) + "_" + std::to_string(info.index);
                         });

// Power by a constant scalar exponent is eltwise_pow; a tensor exponent stays on the reference.
TEST(CpuEltwisePower, ScalarExponentRunsOnOneDnnTensorExponentOnReference) {
    for (float exponent : {2.0f, 3.0f, 0.5f, -1.5f}) {
        ModelBuilder b("pow");
        Output x = b.parameter("x", ElementType::f32, {3, 16});
        b.result(b.op("Power", {x, b.constant<float>({1}, {exponent})}, {}, "pow"), "out");
        const Tensor t = Tensor::from_vector({3, 16}, ElementType::f32, random_values(48, 41, 0.1f, 3.0f));
        const RunResult r = expect_matches_reference(b.build(), {{"x", t}}, kProfile, 1e-5, 1e-5);
        expect_one_onednn_record(r, "pow", "Power");
    }
    ModelBuilder b("pow_tensor");
    Output x = b.parameter("x", ElementType::f32, {3, 16});
    Output e = b.parameter("e", ElementType::f32, {16});
    b.result(b.op("Power", {x, e}, {}, "pow"), "out");
    const RunResult r = expect_matches_reference(
        b.build(), {{"x", Tensor::from_vector({3, 16}, ElementType::f32, random_values(48, 42, 0.1f, 3.0f))},
                    {"e", random_tensor({16}, 43)}});
    EXPECT_EQ(r.profile.at(0).exec_type, "ref");
}

// Subtracting from a constant scalar (BERT's 1 - mask) and dividing one by a tensor.
TEST(CpuEltwiseScalar, ConstantFirstOperand) {
    ModelBuilder b("const_first");
    Output x = b.parameter("x", ElementType::f32, {4, 9});
    Output sub = b.op("Subtract", {b.constant<float>({}, {1.0f}), x}, {}, "one_minus");
    b.result(b.op("Divide", {b.constant<float>({}, {3.0f}), sub}, {}, "three_over"), "out");
    const Tensor t = Tensor::from_vector({4, 9}, ElementType::f32, random_values(36, 44, 1.5f, 4.0f));
    const RunResult r = expect_matches_reference(b.build(), {{"x", t}}, kProfile, 1e-6, 1e-6);
    ASSERT_EQ(r.profile.size(), 2u) << contents(r.profile);
    EXPECT_NE(r.profile[0].exec_type, "ref") << contents(r.profile);
}

// ---- reductions ------------------------------------------------------------------------------

struct ReduceCase {
    const char* op;
    std::vector<int64_t> axes;
    bool keep_dims;
};

class CpuReduction : public ::testing::TestWithParam<ReduceCase> {};

TEST_P(CpuReduction, MatchesReference) {
    const ReduceCase& c = GetParam();
    ModelBuilder b("reduce");
    Output x = b.parameter("x", ElementType::f32, {2, 3, 4, 5});
    Output axes = b.constant<int64_t>({static_cast<int64_t>(c.axes.size())}, c.axes);
    b.result(b.op(c.op, {x, axes}, {{"keep_dims", c.keep_dims ? "true" : "false"}}, "op"), "out");
    const Tensor t = Tensor::from_vector({2, 3, 4, 5}, ElementType::f32, random_values(120, 51, 0.5f, 1.5f));
    const RunResult r = expect_matches_reference(b.build(), {{"x", t}}, kProfile, 1e-5, 1e-5);
    expect_one_onednn_record(r, "op", c.op);
}

std::vector<ReduceCase> reduce_cases() {
    std::vector<ReduceCase> cases;
    for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2"}) {
        cases.push_back({op, {-1}, true});
        cases.push_back({op, {1, 2}, false});
        cases.push_back({op, {0, 3}, true});
        cases.push_back({op, {0, 1, 2, 3}, false});
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Ops, CpuReduction, ::testing::ValuesIn(reduce_cases()),
                         [](const ::testing::TestParamInfo<ReduceCase>& info) {
                             return std::string(info.param.op) + "_" + std::to_string(info.index);
                         });

// ---- transpose -------------------------------------------------------------------------------

// Any element type moves as bytes: the CPU's result equals REFERENCE's bit for bit (f16 as two
// bytes, i64 as two 32-bit words).
TEST(CpuTranspose, EveryElementWidthMatchesReference) {
    const Shape shape{2, 3, 4, 5};
    for (ElementType type : {ElementType::f32, ElementType::i64, ElementType::u8, ElementType::f16}) {
        for (const std::vector<int64_t>& order : std::vector<std::vector<int64_t>>{{0, 2, 1, 3}, {0, 2, 3, 1}, {3, 2, 1, 0}, {}}) {
            ModelBuilder b("transpose");
            Output x = b.parameter("x", type, shape);
            b.result(b.op("Transpose", {x, b.constant<int64_t>({static_cast<int64_t>(order.size())}, order)}, {}, "t"), "out");
            const auto model = b.build();
            Tensor in(type, shape);
            auto* bytes = static_cast<uint8_t*>(in.data());
            // Below 0x40 no byte makes a float NaN, whose payload REFERENCE need not keep.
            for (size_t i = 0; i < in.get_byte_size(); ++i) bytes[i] = static_cast<uint8_t>((i * 7 + 3) & 0x3f);
            std::vector<std::vector<uint8_t>> results;
            std::string exec;
            for (const char* device : {"REFERENCE", "CPU"}) {
                CompiledModel compiled = shared_core().compile_model(model, device, kProfile);
                InferRequest r = compiled.create_infer_request();
                r.set_tensor("x", in);
                r.infer();
                const Tensor out = r.get_tensor("out");
                const auto* p = static_cast<const uint8_t*>(out.data());
                results.emplace_back(p, p + out.get_byte_size());
                exec = r.get_profiling_info().at(0).exec_type;
            }
            ASSERT_EQ(results[0].size(), results[1].size());
            for (size_t i = 0; i < results[0].size(); ++i)
                ASSERT_EQ(results[0][i], results[1][i]) << to_string(type) << " order of " << order.size() << ", byte " << i;
            EXPECT_NE(exec, "ref") << to_string(type);
        }
    }
}

// ---- LayerNorm -------------------------------------------------------------------------------

TEST(CpuLayerNorm, TorchDecompositionIsOneExecutor) {
    const RunResult r = expect_matches_reference(decomposed_layer_norm({}), {{"x", random_tensor({2, 5, 16}, 63)}});
    expect_one_onednn_record(r, "shift", "MVN");
}

TEST(CpuLayerNorm, OnnxTranslatorFormIsOneExecutor) {
    LayerNormOptions o;
    o.onnx_form = true;
    const RunResult r = expect_matches_reference(decomposed_layer_norm(o), {{"x", random_tensor({2, 5, 16}, 64)}});
    expect_one_onednn_record(r, "shift", "MVN");
}

TEST(CpuLayerNorm, WithoutScaleAndShift) {
    LayerNormOptions o;
    o.scale_shift = false;
    const RunResult r = expect_matches_reference(decomposed_layer_norm(o), {{"x", random_tensor({2, 5, 16}, 65)}});
    expect_one_onednn_record(r, "norm", "MVN");
}

// A scalar gamma broadcast over the normalised axis is copied out to one value per channel.
TEST(CpuLayerNorm, BroadcastScaleAndShift) {
    LayerNormOptions o;
    o.gamma_shape = {1, 1, 1};
    const RunResult r = expect_matches_reference(decomposed_layer_norm(o), {{"x", random_tensor({2, 5, 16}, 66)}});
    expect_one_onednn_record(r, "shift", "MVN");
}

// The centred tensor is read outside the pattern (a model output): nothing fuses into a LayerNorm,
// each op runs on its own, and both outputs are still right.
TEST(CpuLayerNorm, ExtraReaderOfAnInnerTensorDoesNotFuse) {
    LayerNormOptions o;
    o.extra_reader = true;
    const RunResult r = expect_matches_reference(decomposed_layer_norm(o), {{"x", random_tensor({2, 5, 16}, 67)}});
    EXPECT_GT(r.profile.size(), 5u) << contents(r.profile);
    for (const auto& p : r.profile) EXPECT_NE(p.node_type, "MVN") << contents(r.profile);
}

// A per-row gamma (along a non-normalised axis) is not a LayerNorm scale: the Multiply runs alone.
TEST(CpuLayerNorm, ScaleAlongAnotherAxisStaysOutside) {
    LayerNormOptions o;
    o.gamma_shape = {5, 1};
    const RunResult r = expect_matches_reference(decomposed_layer_norm(o), {{"x", random_tensor({2, 5, 16}, 68)}});
    ASSERT_EQ(r.profile.size(), 3u) << contents(r.profile);
    EXPECT_EQ(r.profile[0].node_type, "MVN");
    EXPECT_EQ(r.profile[0].node_name, "norm");
}

// MVN-6 (OpenVINO IR's LayerNorm) with its scale and shift, over the two trailing axes.
TEST(CpuLayerNorm, MvnWithScaleAndShiftIsOneExecutor) {
    const RunResult r = expect_matches_reference(mvn_layer_norm({2, 3, 4, 6}), {{"x", random_tensor({2, 3, 4, 6}, 73)}});
    expect_one_onednn_record(r, "shift", "MVN");
}

// MVN with eps outside the square root is not oneDNN's formula: the reference kernel runs it.
TEST(CpuLayerNorm, MvnEpsOutsideSqrtStaysOnReference) {
    ModelBuilder b("mvn_outside");
    Output x = b.parameter("x", ElementType::f32, {2, 8});
    b.result(b.op("MVN", {x, b.constant<int64_t>({1}, {1})},
                  {{"normalize_variance", "true"}, {"eps", "0.1"}, {"eps_mode", "outside_sqrt"}}, "mvn", "opset6"),
             "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({2, 8}, 74)}});
    ASSERT_EQ(r.profile.size(), 1u);
    EXPECT_EQ(r.profile[0].exec_type, "ref");
}

// ---- erf Gelu --------------------------------------------------------------------------------

// BERT's intermediate layer: MatMul, bias, erf Gelu, all one oneDNN matmul.
TEST(CpuGelu, DecomposedGeluFusesIntoMatMulWithBias) {
    for (GeluForm form : {GeluForm::bert, GeluForm::half_first, GeluForm::half_term, GeluForm::inverse_sqrt2}) {
        ModelBuilder b("ffn");
        Output x = b.parameter("x", ElementType::f32, {1, 6, 16});
        Output mm = b.op("MatMul", {x, random_constant(b, {16, 32}, 81, "w")}, {}, "fc");
        Output biased = b.op("Add", {random_constant(b, {32}, 82, "bias"), mm}, {}, "fc_bias");
        b.result(decomposed_gelu(b, biased, form), "y");
        const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 6, 16}, 83)}});
        expect_one_onednn_record(r, "gelu", "MatMul");
    }
}

// After an op that cannot absorb it (a Softmax), the Gelu runs as one eltwise executor.
TEST(CpuGelu, StandaloneDecomposedGeluIsOneEltwise) {
    for (GeluForm form : {GeluForm::bert, GeluForm::half_first, GeluForm::half_term, GeluForm::inverse_sqrt2}) {
        ModelBuilder b("gelu");
        Output x = b.parameter("x", ElementType::f32, {3, 20});
        b.result(decomposed_gelu(b, x, form), "y");
        const Tensor t = Tensor::from_vector({3, 20}, ElementType::f32, random_values(60, 84, -4.0f, 4.0f));
        const RunResult r = expect_matches_reference(b.build(), {{"x", t}}, kProfile, 1e-5, 1e-4);
        expect_one_onednn_record(r, "gelu", "Gelu");
    }
}

// The Erf result is also a model output: no Gelu is formed, and every output is right.
TEST(CpuGelu, ExtraReaderOfAnInnerTensorDoesNotFuse) {
    ModelBuilder b("gelu_extra");
    Output x = b.parameter("x", ElementType::f32, {1, 6, 16});
    Output mm = b.op("MatMul", {x, random_constant(b, {16, 32}, 85, "w")}, {}, "fc");
    Output biased = b.op("Add", {mm, random_constant(b, {32}, 86, "bias")}, {}, "fc_bias");
    Output erf;
    b.result(decomposed_gelu(b, biased, GeluForm::bert, &erf), "y");
    b.result(erf, "erf_out");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 6, 16}, 87)}});
    EXPECT_GE(r.profile.size(), 5u) << contents(r.profile);
    for (const auto& p : r.profile) EXPECT_NE(p.node_type, "Gelu") << contents(r.profile);
    ASSERT_NE(record_named(r.profile, "fc_bias"), nullptr) << contents(r.profile);
}

// A constant near but not at sqrt(2) is not a Gelu: the ops run on their own, still correct.
TEST(CpuGelu, OtherScaleIsNotAGelu) {
    ModelBuilder b("not_gelu");
    Output x = b.parameter("x", ElementType::f32, {3, 20});
    Output erf = b.op("Erf", {b.op("Divide", {x, b.constant<float>({}, {1.5f})}, {}, "scaled")}, {}, "erf");
    Output term = b.op("Add", {erf, b.constant<float>({}, {1.0f})}, {}, "plus_one");
    b.result(b.op("Multiply", {b.op("Multiply", {x, term}, {}, "x_term"), b.constant<float>({}, {0.5f})}, {}, "out"), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({3, 20}, 88)}});
    for (const auto& p : r.profile) EXPECT_NE(p.node_type, "Gelu") << contents(r.profile);
}

// Erf on its own (a Gelu the pattern cannot take, as NNCF's quantized BERT writes it): the CPU's
// vectorised kernel, within 1e-6 of REFERENCE's std::erf from the origin (where erf is x times
// 2 / sqrt(pi): relative accuracy counts) out to the tails; NaN stays NaN, infinities give +-1.
TEST(CpuErf, StandaloneErfIsOneVectorisedPass) {
    std::vector<float> values = random_values(4096, 94, -6.0f, 6.0f);
    for (float v : {0.0f, -0.0f, 1e-30f, -1e-7f, 0.4999f, 0.5f, -0.5001f, 3.9f, 10.0f, -87.5f, 1e30f}) values.push_back(v);
    ModelBuilder b("erf");
    const Shape shape{1, static_cast<int64_t>(values.size())};
    b.result(b.op("Erf", {b.parameter("x", ElementType::f32, shape)}, {}, "erf"), "y");
    const std::shared_ptr<Model> model = b.build();
    const RunResult r = expect_matches_reference(model, {{"x", Tensor::from_vector(shape, ElementType::f32, values)}}, kProfile, 1e-6, 1e-6);
    ASSERT_EQ(r.profile.size(), 1u) << contents(r.profile);
    EXPECT_EQ(r.profile[0].exec_type, "erf:vectorised") << contents(r.profile);

    const std::vector<float> special{std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity()};
    const Shape three{1, 3};
    ModelBuilder c("erf_special");
    c.result(c.op("Erf", {c.parameter("x", ElementType::f32, three)}), "y");
    const RunResult s = run_on(c.build(), "CPU", {{"x", Tensor::from_vector(three, ElementType::f32, special)}});
    EXPECT_TRUE(std::isnan(s.outputs[0][0]));
    EXPECT_EQ(s.outputs[0][1], 1.0f);
    EXPECT_EQ(s.outputs[0][2], -1.0f);
}

// ---- x * Sigmoid(x) ----------------------------------------------------------------------------

// EfficientNet's SiLU after a convolution: one oneDNN convolution with a swish post-op.
TEST(CpuSwish, SigmoidTimesInputFusesIntoConvolution) {
    for (bool sigmoid_first : {false, true}) {
        ModelBuilder b("silu");
        Output x = b.parameter("x", ElementType::f32, {1, 4, 9, 9});
        Output biased = conv_bias(b, x, 4, 8, 91, "conv");
        Output gate = b.op("Sigmoid", {biased}, {}, "sigmoid");
        b.result(b.op("Multiply", sigmoid_first ? std::vector<Output>{gate, biased} : std::vector<Output>{biased, gate}, {},
                      "silu"),
                 "y");
        const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 4, 9, 9}, 92)}});
        expect_one_onednn_record(r, "silu", "Convolution");
    }
}

TEST(CpuSwish, StandaloneSigmoidTimesInputIsOneEltwise) {
    ModelBuilder b("silu");
    Output x = b.parameter("x", ElementType::f32, {2, 30});
    b.result(b.op("Multiply", {x, b.op("Sigmoid", {x}, {}, "sigmoid")}, {}, "silu"), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({2, 30}, 93)}});
    expect_one_onednn_record(r, "silu", "Swish");
}

// A gate that multiplies another tensor (a squeeze-and-excitation block) is not a Swish.
TEST(CpuSwish, SigmoidGatingAnotherTensorIsNotASwish) {
    ModelBuilder b("gate");
    Output x = b.parameter("x", ElementType::f32, {2, 30});
    Output y = b.parameter("y", ElementType::f32, {2, 30});
    b.result(b.op("Multiply", {y, b.op("Sigmoid", {x}, {}, "sigmoid")}, {}, "gated"), "out");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({2, 30}, 94)}, {"y", random_tensor({2, 30}, 95)}});
    ASSERT_EQ(r.profile.size(), 2u) << contents(r.profile);
    for (const auto& p : r.profile) EXPECT_NE(p.node_type, "Swish") << contents(r.profile);
}

}  // namespace
}  // namespace mosaic::test
