// Shapes that depend on values computed when the model runs: NonZero of computed data, TopK with a
// k given as an input. The model runs in stages around the op (cut_model.hpp), each inference
// at the shapes its data gives, on every device.
#include "common/test_checks.hpp"
#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace mosaic::test {
namespace {

// y = x[x > 0] (torch's boolean-mask indexing: NonZero, Transpose, GatherND), and its sum.
std::shared_ptr<Model> positives() {
    ModelBuilder b("positives");
    Output x = b.parameter("x", ElementType::f32, {2, 3});
    Output mask = b.op("Greater", {x, b.constant<float>({}, {0.0f}, "zero")}, {}, "mask");
    Output where = b.op("NonZero", {mask}, {{"output_type", "i64"}}, "where");
    Output idx = b.op("Transpose", {where, b.constant<int64_t>({2}, {1, 0}, "perm")}, {}, "idx");
    Output y = b.op("GatherND", {x, idx}, {{"batch_dims", "0"}}, "gather", "opset8");
    b.result(y, "y");
    b.result(b.op("ReduceSum", {y, b.constant<int64_t>({1}, {0}, "axis")}, {{"keep_dims", "false"}}, "sum"), "total");
    return b.build();
}

// The k largest of x, k an input.
std::shared_ptr<Model> top_k() {
    ModelBuilder b("top_k");
    Output x = b.parameter("x", ElementType::f32, {8});
    Output k = b.parameter("k", ElementType::i64, {});
    Output top = b.op("TopK", {x, k}, {{"axis", "0"}, {"mode", "max"}, {"sort", "value"}, {"index_element_type", "i64"}},
                      "top", "opset11");
    b.result(top, "values");
    return b.build();
}

class DataDependentOn : public ::testing::TestWithParam<std::string> {};

TEST_P(DataDependentOn, NonZeroOfComputedDataGivesEachInferenceItsOwnShape) {
    Core core;
    CompiledModel compiled = core.compile_model(positives(), GetParam());
    EXPECT_EQ(compiled.output("y").get_partial_shape(), (Shape{-1}));
    InferRequest r = compiled.create_infer_request();
    for (const std::vector<float>& x : {std::vector<float>{1, -2, 3, -4, 5, 6}, std::vector<float>{-1, -2, -3, -4, -5, 7},
                                        std::vector<float>{-1, -1, -1, -1, -1, -1}, std::vector<float>{1, -2, 3, -4, 5, 6}}) {
        r.set_tensor("x", Tensor::from_vector<float>({2, 3}, ElementType::f32, x));
        r.infer();
        std::vector<float> want;
        std::copy_if(x.begin(), x.end(), std::back_inserter(want), [](float v) { return v > 0; });
        EXPECT_EQ(r.get_tensor("y").to_vector<float>(), want) << GetParam();
        float total = 0;
        for (float v : want) total += v;
        EXPECT_FLOAT_EQ(r.get_tensor("total").to_vector<float>().at(0), total);
    }
}

TEST_P(DataDependentOn, TopKWithKGivenAtRunTimeAsynchronously) {
    Core core;
    InferRequest r = core.compile_model(top_k(), GetParam()).create_infer_request();
    const std::vector<float> x = {3, 9, 1, 7, 5, 8, 2, 6};
    for (int64_t k : {3, 1, 8, 0}) {
        r.set_tensor("x", Tensor::from_vector<float>({8}, ElementType::f32, x));
        r.set_tensor("k", Tensor::from_vector<int64_t>({}, ElementType::i64, {k}));
        r.start_async();
        r.wait();
        std::vector<float> want = x;
        std::sort(want.begin(), want.end(), std::greater<float>());
        want.resize(static_cast<size_t>(k));
        EXPECT_EQ(r.get_tensor("values").to_vector<float>(), want) << GetParam() << " k=" << k;
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, DataDependentOn, ::testing::Values("REFERENCE", "CPU", "HETERO:CPU,REFERENCE", "HETERO:ACCEL,REFERENCE"),
                         DeviceTestName());

TEST(DataDependent, ABadValueAtRunTimeIsTheInferencesErrorNamingTheOp) {
    Core core;
    InferRequest r = core.compile_model(top_k(), "REFERENCE").create_infer_request();
    r.set_tensor("x", Tensor(ElementType::f32, {8}));
    r.set_tensor("k", Tensor::from_vector<int64_t>({}, ElementType::i64, {9}));
    const std::string e = error_of([&] { r.infer(); });
    EXPECT_NE(e.find("'top'"), std::string::npos) << e;
    EXPECT_NE(e.find("k = 9 exceeds the size 8"), std::string::npos) << e;
    // The next inference with a good k works.
    r.set_tensor("k", Tensor::from_vector<int64_t>({}, ElementType::i64, {2}));
    r.infer();
    EXPECT_EQ(r.get_tensor("values").get_shape(), (Shape{2}));
}

}  // namespace
}  // namespace mosaic::test
