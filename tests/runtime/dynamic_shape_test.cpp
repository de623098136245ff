// Models with dynamic input dimensions: one compiled model runs at the shape of each inference's
// tensors (a specialization compiled per shape and cached), equal to the same model compiled static;
// ranges are checked; the memory guard refuses absurd sizes before anything is allocated.
#include "common/test_checks.hpp"
#include <mosaic/mosaic.hpp>
#include <mosaic/serialize.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>
#include <thread>

namespace mosaic::test {
namespace {

std::vector<float> random_values(size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(gen);
    return v;
}

Tensor random_tensor(const Shape& shape, unsigned seed) {
    Tensor t(ElementType::f32, shape);
    const auto v = random_values(t.get_size(), seed);
    std::copy(v.begin(), v.end(), t.data<float>());
    return t;
}

// x[?,3,?,?] -> Convolution 3->4 (3x3, pads 1) -> Relu -> MaxPool 2x2 -> ReduceMean(H,W) -> MatMul
// [4,5] -> y[?,5]: a CNN whose batch and spatial size are free, as torch exports with dynamic axes.
std::shared_ptr<Model> dynamic_cnn(const Shape& input = {-1, 3, -1, -1}) {
    ModelBuilder b("dynamic_cnn");
    Output x = b.parameter("x", ElementType::f32, input);
    Output w = b.constant<float>({4, 3, 3, 3}, random_values(4 * 3 * 3 * 3, 1), "w");
    Output conv = b.op("Convolution", {x, w},
                       {{"strides", "1,1"}, {"dilations", "1,1"}, {"pads_begin", "1,1"}, {"pads_end", "1,1"},
                        {"auto_pad", "explicit"}},
                       "conv");
    Output relu = b.op("Relu", {conv}, {}, "relu");
    Output pool = b.op("MaxPool", {relu},
                       {{"strides", "2,2"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"kernel", "2,2"},
                        {"rounding_type", "floor"}, {"auto_pad", "explicit"}},
                       "pool", "opset1");
    Output mean = b.op("ReduceMean", {pool, b.constant<int64_t>({2}, {2, 3}, "axes")}, {{"keep_dims", "false"}}, "mean");
    Output fc = b.op("MatMul", {mean, b.constant<float>({4, 5}, random_values(20, 2), "fc_w")}, {}, "fc");
    b.result(fc, "y");
    return b.build();
}

// The same model reshaped to `shape` and compiled static on REFERENCE: the oracle.
std::vector<float> static_reference(Core& core, const Tensor& input) {
    auto model = dynamic_cnn(input.get_shape());
    InferRequest r = core.compile_model(model, "REFERENCE").create_infer_request();
    r.set_input_tensor(0, input);
    r.infer();
    return r.get_output_tensor(0).to_vector<float>();
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4f) << what << " at " << i;
}

const std::vector<Shape> kShapes = {{1, 3, 8, 8}, {2, 3, 16, 12}, {3, 3, 6, 10}};

class DynamicShapesOn : public ::testing::TestWithParam<std::string> {};

TEST_P(DynamicShapesOn, OneCompiledModelRunsAtEachInputShapeEqualToStatic) {
    Core core;
    CompiledModel compiled = core.compile_model(dynamic_cnn(), GetParam());
    EXPECT_EQ(compiled.input().get_partial_shape(), (Shape{-1, 3, -1, -1}));
    EXPECT_EQ(compiled.output().get_partial_shape(), (Shape{-1, 5}));
    InferRequest request = compiled.create_infer_request();
    // Three shapes one after the other, then the first again (from the cache).
    for (size_t round = 0; round < kShapes.size() + 1; ++round) {
        const Shape& shape = kShapes[round % kShapes.size()];
        const Tensor input = random_tensor(shape, static_cast<unsigned>(round + 10));
        request.set_input_tensor(0, input);
        request.infer();
        const Tensor out = request.get_output_tensor(0);
        EXPECT_EQ(out.get_shape(), (Shape{shape[0], 5}));
        expect_near(out.to_vector<float>(), static_reference(core, input), GetParam() + " at " + to_string(shape));
    }
}

TEST_P(DynamicShapesOn, AsynchronousInferenceWithCallbackAtNewShapes) {
    Core core;
    CompiledModel compiled = core.compile_model(dynamic_cnn(), GetParam());
    InferRequest request = compiled.create_infer_request();
    int callbacks = 0;
    request.set_callback([&](std::exception_ptr e) {
        EXPECT_FALSE(e);
        ++callbacks;
    });
    for (size_t i = 0; i < kShapes.size(); ++i) {
        const Tensor input = random_tensor(kShapes[i], static_cast<unsigned>(i + 20));
        request.set_input_tensor(0, input);
        request.start_async();
        request.wait();
        expect_near(request.get_output_tensor(0).to_vector<float>(), static_reference(core, input), "async");
    }
    EXPECT_EQ(callbacks, 3);
}

INSTANTIATE_TEST_SUITE_P(Devices, DynamicShapesOn, ::testing::Values("REFERENCE", "CPU", "HETERO:CPU,REFERENCE", "HETERO:ACCEL,REFERENCE"),
                         DeviceTestName());

// On REFERENCE: the point is the shape cache under contention, which ThreadSanitizer checks in CI;
// oneDNN (the CPU device) is not instrumented, so TSan cannot follow its own locking.
TEST(DynamicShapes, RequestsOnManyThreadsAtDifferentShapesShareOneCompiledModel) {
    Core core;
    CompiledModel compiled = core.compile_model(dynamic_cnn(), "REFERENCE");
    std::vector<std::vector<float>> expected;
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < kShapes.size(); ++i) {
        inputs.push_back(random_tensor(kShapes[i], static_cast<unsigned>(30 + i)));
        expected.push_back(static_reference(core, inputs.back()));
    }
    std::vector<std::thread> threads;
    std::atomic<int> mismatches{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            InferRequest request = compiled.create_infer_request();
            for (int i = 0; i < 6; ++i) {
                const size_t k = static_cast<size_t>(t + i) % kShapes.size();
                request.set_input_tensor(0, inputs[k]);
                request.infer();
                const auto got = request.get_output_tensor(0).to_vector<float>();
                for (size_t j = 0; j < got.size(); ++j)
                    if (std::fabs(got[j] - expected[k][j]) > 1e-4f) ++mismatches;
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(mismatches.load(), 0);
}

TEST(DynamicShapes, TheCacheIsBoundedAndEvictedShapesCompileAgain) {
    Core core;
    CompiledModel compiled = core.compile_model(dynamic_cnn(), "REFERENCE", {{"DYNAMIC_SHAPE_CACHE_SIZE", 2}});
    EXPECT_EQ(compiled.get_property("DYNAMIC_SHAPE_CACHE_SIZE"), 2);
    InferRequest request = compiled.create_infer_request();
    for (int round = 0; round < 2; ++round)
        for (size_t i = 0; i < kShapes.size(); ++i) {
            const Tensor input = random_tensor(kShapes[i], static_cast<unsigned>(i));
            request.set_input_tensor(0, input);
            request.infer();
            expect_near(request.get_output_tensor(0).to_vector<float>(), static_reference(core, input), "evicted");
        }
    EXPECT_TRUE(contains(error_of([&] { core.compile_model(dynamic_cnn(), "REFERENCE", {{"DYNAMIC_SHAPE_CACHE_SIZE", 0}}); }),
                         "DYNAMIC_SHAPE_CACHE_SIZE must be a positive integer"));
}

TEST(DynamicShapes, RangesAreCheckedBeforeAnythingRuns) {
    Core core;
    auto model = dynamic_cnn();
    model->reshape({{"x", {Dimension(1, 4), 3, Dimension(4, 32), Dimension(4, 32)}}});
    EXPECT_EQ(Model::input_partial_shape(*model->get_parameters()[0]).to_string(), "[1..4,3,4..32,4..32]");
    CompiledModel compiled = core.compile_model(model, "REFERENCE");
    EXPECT_EQ(compiled.input().bounds.to_string(), "[1..4,3,4..32,4..32]");
    InferRequest request = compiled.create_infer_request();
    const std::string too_big = error_of([&] { request.set_input_tensor(0, Tensor(ElementType::f32, {5, 3, 8, 8})); });
    EXPECT_TRUE(contains(too_big, "input 'x' accepts shapes [1..4,3,4..32,4..32] but the tensor is [5,3,8,8]")) << too_big;
    EXPECT_TRUE(contains(error_of([&] { request.set_input_tensor(0, Tensor(ElementType::f32, {1, 3, 8})); }),
                         "accepts shapes [1..4,3,4..32,4..32]"));
    EXPECT_TRUE(contains(error_of([&] { request.set_input_tensor(0, Tensor(ElementType::i32, {1, 3, 8, 8})); }),
                         "expects f32"));
    request.set_input_tensor(0, random_tensor({4, 3, 32, 4}, 5));
    request.infer();
    EXPECT_EQ(request.get_output_tensor(0).get_shape(), (Shape{4, 5}));
}

TEST(DynamicShapes, RangesSurviveTheIrRoundTrip) {
    auto model = dynamic_cnn();
    model->reshape({{"x", {Dimension(1, 8), 3, Dimension(), Dimension(16, -1)}}});
    const auto dir = std::filesystem::temp_directory_path() / ("mosaic_ranges_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    serialize(*model, (dir / "m.xml").string());
    auto back = Core().read_model((dir / "m.xml").string());
    std::filesystem::remove_all(dir);
    EXPECT_EQ(Model::input_partial_shape(*back->get_parameters()[0]).to_string(), "[1..8,3,?,16..]");
    EXPECT_EQ(back->input().get_partial_shape(), (Shape{-1, 3, -1, -1}));
}

// query_model answers a dynamic model as it is read: every op, asked at the smallest shapes its
// ranges allow (1 where unbounded), as a static model of those shapes would be answered.
TEST(DynamicShapes, TheQueryAnswersEveryOpOfADynamicModel) {
    Core core;
    auto model = dynamic_cnn({-1, 3, 8, 8});
    const QueryResult q = core.query_model_details(model, "HETERO:CPU,REFERENCE");
    for (const Node* n : model->get_ops())
        if (!n->is_parameter() && !n->is_constant() && !n->is_result())
            EXPECT_EQ(q.affinity.count(n->get_friendly_name()), 1u) << n->get_friendly_name();
    EXPECT_TRUE(q.unsupported.empty());
    EXPECT_EQ(core.query_model(model, "CPU").at("conv"), "CPU");
    // At 1x1 the pooling window outgrows the image: the query says so and what to do.
    const std::string error = error_of([&] { core.query_model(dynamic_cnn(), "CPU"); });
    for (const char* part : {"x [1,3,1,1]", "'pool'", "reshape the model"})
        EXPECT_TRUE(contains(error, part)) << part << " in: " << error;
}

TEST(DynamicShapes, AnInputNotSetOrAShapeThatDoesNotCompileIsAClearError) {
    Core core;
    InferRequest request = core.compile_model(dynamic_cnn(), "REFERENCE").create_infer_request();
    EXPECT_TRUE(contains(error_of([&] { request.infer(); }),
                         "input 'x' has the dynamic shape [?,3,?,?]; set a tensor for it"));
    // 1x1 is too small for the 2x2 pooling window: the error names the shapes that were tried.
    request.set_input_tensor(0, random_tensor({1, 3, 1, 1}, 1));
    const std::string small = error_of([&] { request.infer(); });
    EXPECT_TRUE(contains(small, "model 'dynamic_cnn' at input shapes x [1,3,1,1] does not compile on 'REFERENCE'")) << small;
    EXPECT_TRUE(contains(small, "pool")) << small;
    // Asynchronously, the same error reaches wait().
    request.start_async();
    EXPECT_TRUE(contains(error_of([&] { request.wait(); }), "at input shapes x [1,3,1,1]"));
    // The request still works at a good shape afterwards.
    const Tensor good = random_tensor({1, 3, 8, 8}, 2);
    request.set_input_tensor(0, good);
    request.infer();
    expect_near(request.get_output_tensor(0).to_vector<float>(), static_reference(core, good), "after error");
}

TEST(DynamicShapes, AnOutputTensorOfTheWrongShapeIsRefused) {
    Core core;
    InferRequest request = core.compile_model(dynamic_cnn(), "REFERENCE").create_infer_request();
    request.set_input_tensor(0, random_tensor({2, 3, 8, 8}, 1));
    Tensor out(ElementType::f32, {3, 5});
    request.set_tensor("y", out);
    EXPECT_TRUE(contains(error_of([&] { request.infer(); }),
                         "output 'y' was given a tensor of shape [3,5] but at these input shapes it is [2,5]"));
    Tensor right(ElementType::f32, {2, 5});
    request.set_tensor("y", right);
    request.infer();
    EXPECT_EQ(request.get_output_tensor(0).data(), right.data());  // written in place
}

TEST(DynamicShapes, ADynamicModelCannotBeExported) {
    Core core;
    std::ostringstream blob;
    EXPECT_TRUE(contains(error_of([&] { core.compile_model(dynamic_cnn(), "CPU").export_model(blob); }),
                         "cannot be exported; reshape it to static"));
}

TEST(MemoryGuard, AnAbsurdInputSizeIsRefusedBeforeAllocation) {
    Core core;
    auto model = dynamic_cnn({2147483647, 3, 224, 224});
    const std::string error = error_of([&] { core.compile_model(model, "CPU"); });
    EXPECT_TRUE(contains(error, "input 'x' of shape [2147483647,3,224,224] f32 needs")) << error;
    EXPECT_TRUE(contains(error, "more than the limit of")) << error;
    EXPECT_TRUE(contains(error, "MAX_TENSOR_BYTES")) << error;
}

TEST(MemoryGuard, TheLimitIsConfigurableAndNamesTheNode) {
    Core core;
    auto model = dynamic_cnn({1, 3, 16, 16});
    // The input is 3 KiB, the convolution's output 4 KiB.
    const std::string error = error_of([&] { core.compile_model(model, "REFERENCE", {{"MAX_TENSOR_BYTES", 3072}}); });
    EXPECT_TRUE(contains(error, "the output of node 'conv' (Convolution-opset1) of shape [1,4,16,16] f32 needs 4.0 KiB")) << error;
    EXPECT_NO_THROW(core.compile_model(model, "REFERENCE", {{"MAX_TENSOR_BYTES", "4096"}}));
    EXPECT_TRUE(contains(error_of([&] { core.compile_model(model, "REFERENCE", {{"MAX_TENSOR_BYTES", "lots"}}); }),
                         "MAX_TENSOR_BYTES must be a positive integer"));
    // A dynamic model is checked at each shape an inference brings.
    InferRequest request = core.compile_model(dynamic_cnn(), "REFERENCE", {{"MAX_TENSOR_BYTES", 4096}}).create_infer_request();
    request.set_input_tensor(0, random_tensor({1, 3, 64, 64}, 1));
    EXPECT_TRUE(contains(error_of([&] { request.infer(); }), "needs 48.0 KiB"));
}

TEST(MemoryGuard, ATensorWhoseSizeOverflowsIsRefused) {
    EXPECT_TRUE(contains(error_of([] { Tensor(ElementType::f32, {1LL << 40, 1LL << 40}); }),
                         "is larger than memory can address"));
}

}  // namespace
}  // namespace mosaic::test
