// Constant folding: ops whose inputs are all constants, and ShapeOf of a static shape, are
// computed once at compile time; no executor runs them, and the results are those of REFERENCE.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace mosaic::test {
namespace {

std::vector<std::string> executor_types(const std::shared_ptr<Model>& model) {
    std::vector<std::string> types;
    for (const auto& e : shared_core().compile_model(model, "CPU").get_property("CPU_EXECUTORS"))
        types.push_back(e.at("type").get<std::string>());
    return types;
}

bool has(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(CpuConstantFolding, ShapeComputationsOfStaticShapesNeverRun) {
    // What exported encoders do: the target shape of a Reshape computed from ShapeOf at run time.
    ModelBuilder b("shape_chain");
    Output x = b.parameter("x", ElementType::f32, {2, 3, 4});
    Output shape = b.op("ShapeOf", {x}, {{"output_type", "i64"}}, "shape", "opset3");
    Output first = b.op("Gather", {shape, b.constant<int64_t>({1}, {0}),
                                   b.constant<int64_t>({}, {0})},
                        {{"batch_dims", "0"}}, "first", "opset8");
    Output target = b.op("Concat", {first, b.constant<int64_t>({1}, {-1})}, {{"axis", "0"}},
                         "target");
    b.result(b.op("Sin", {b.op("Reshape", {x, target}, {{"special_zero", "false"}}, "reshape")}, {}, "sine"), "y");
    auto model = b.build();
    const std::vector<std::string> types = executor_types(model);
    for (const char* folded : {"ShapeOf", "Gather", "Concat"}) EXPECT_FALSE(has(types, folded)) << folded;
    EXPECT_TRUE(has(types, "Sin"));
    expect_matches_reference(model, {{"x", random_tensor({2, 3, 4}, 1)}});
}

TEST(CpuConstantFolding, OpsOnConstantsBecomeConstants) {
    // A transposed and scaled weight: computed once, then packed for the MatMul like any constant.
    ModelBuilder b("weights");
    Output x = b.parameter("x", ElementType::f32, {3, 8});
    Output w = b.op("Transpose", {random_constant(b, {5, 8}, 3, "w"), b.constant<int64_t>({2}, {1, 0})},
                    {}, "transpose");
    w = b.op("Multiply", {w, b.constant<float>({}, {0.5f})}, {}, "scale");
    b.result(b.op("MatMul", {x, w}, {{"transpose_a", "false"}, {"transpose_b", "false"}}, "matmul"), "y");
    auto model = b.build();
    EXPECT_EQ(executor_types(model), std::vector<std::string>{"MatMul"});
    expect_matches_reference(model, {{"x", random_tensor({3, 8}, 4)}});
}

TEST(CpuConstantFolding, AResultOfConstantsIsCopiedOut) {
    ModelBuilder b("constant_result");
    Output x = b.parameter("x", ElementType::f32, {4});
    b.result(b.op("Relu", {x}, {}, "relu"), "y");
    b.result(b.op("Negative", {b.constant<float>({4}, {1, -2, 3, -4})}, {}, "negated"), "z");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({4}, 5)}});
    EXPECT_EQ(r.outputs[1], (std::vector<float>{-1, 2, -3, 4}));
}

}  // namespace
}  // namespace mosaic::test
