// DEVICE_MEMORY_LIMIT on the GPU device: the bytes Mosaic may hold on an instance (weights, each
// request's buffers, the host's buffers), so that a test can give the GPU any size. A model whose
// weights and one request's buffers do not fit is refused when compiled, naming the figures; a
// request that does not fit is refused when created, and the requests made before still run; the
// device's DEVICE_MEMORY reports the limit as its total.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace mosaic::test::gpu {
namespace {

// x [1, 256] -> MatMul [256, 512] -> Relu -> MatMul [512, 256]: 1 MiB of weights; `rows` -1: any.
std::shared_ptr<Model> mlp(int64_t rows = 1) {
    ModelBuilder b("mlp_1mib");
    Output x = b.parameter("x", ElementType::f32, {rows, 256});
    const Attributes plain{{"transpose_a", "false"}, {"transpose_b", "false"}};
    Output h = b.op("Relu", {b.op("MatMul", {x, random_constant(b, {256, 512}, 21, "w1")}, plain, "mm1")}, {}, "relu");
    b.result(b.op("MatMul", {h, random_constant(b, {512, 256}, 22, "w2")}, plain, "mm2"), "y");
    return b.build();
}

// Weights copied into device memory (on a device sharing host memory, PoCL, zero-copy reads them in place).
const AnyMap kCopied = {{"GPU_ZERO_COPY", false}};

uint64_t held(Core& core) { return core.get_property("GPU", "DEVICE_MEMORY").at("used_bytes").get<uint64_t>(); }

TEST(GpuMemoryLimit, WhatDoesNotFitIsRefusedNamingTheLimitAndWhatFitsStillRuns) {
    Core core;
    const auto model = mlp();
    // What the model and one request hold, measured without a limit.
    uint64_t model_bytes = 0, request_bytes = 0;
    {
        const uint64_t before = held(core);
        CompiledModel compiled = core.compile_model(model, "GPU", kCopied);
        model_bytes = held(core) - before;
        InferRequest r = compiled.create_infer_request();
        request_bytes = held(core) - before - model_bytes;
    }
    ASSERT_GE(model_bytes, uint64_t{1} << 20) << "the weights";
    ASSERT_GT(request_bytes, 0u);

    try {
        core.compile_model(model, "GPU", {{"GPU_ZERO_COPY", false}, {"DEVICE_MEMORY_LIMIT", static_cast<int64_t>(model_bytes / 2)}});
        ADD_FAILURE() << "compiled within half its weights";
    } catch (const std::exception& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("needs " + std::to_string(model_bytes) + " bytes of weights"), std::string::npos) << what;
        EXPECT_NE(what.find("DEVICE_MEMORY_LIMIT"), std::string::npos) << what;
    }

    // Room for the weights and one request (and less than a second one).
    const int64_t limit = static_cast<int64_t>(held(core) + model_bytes + request_bytes + request_bytes / 2);
    core.set_property("GPU", {{"DEVICE_MEMORY_LIMIT", limit}});
    EXPECT_EQ(core.get_property("GPU", "DEVICE_MEMORY").at("total_bytes").get<int64_t>(), limit);
    CompiledModel compiled = core.compile_model(model, "GPU", kCopied);
    InferRequest first = compiled.create_infer_request();
    try {
        compiled.create_infer_request();
        ADD_FAILURE() << "a second request fitted";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("a request (its intermediate tensors) needs " + std::to_string(request_bytes) +
                                             " bytes"),
                  std::string::npos)
            << e.what();
    }
    first.set_tensor("x", random_tensor({1, 256}, 23));
    first.infer();
    EXPECT_EQ(first.get_tensor("y").get_shape(), (Shape{1, 256}));

    core.set_property("GPU", {{"DEVICE_MEMORY_LIMIT", int64_t{0}}});  // the device's memory again
}

// Models compiled from the same weights (each shape specialization of a dynamic model, each cache
// capacity of an LLM) hold one device copy of them, counted once, released with the last model.
TEST(GpuMemoryLimit, ModelsOfTheSameWeightsShareOneDeviceCopy) {
    Core core;
    const auto model = mlp();
    const uint64_t before = held(core);
    std::optional<CompiledModel> first = core.compile_model(model, "GPU", kCopied);
    const uint64_t one = held(core) - before;
    ASSERT_GE(one, uint64_t{1} << 20) << "the weights";
    CompiledModel second = core.compile_model(model, "GPU", kCopied);
    EXPECT_EQ(held(core) - before, one) << "the second model reads the first one's copy";
    first.reset();
    EXPECT_EQ(held(core) - before, one) << "held while the second model lives";
    InferRequest r = second.create_infer_request();
    r.set_tensor("x", random_tensor({1, 256}, 24));
    r.infer();
    const RunResult want = run_on(model, "REFERENCE", {{"x", r.get_tensor("x")}});
    expect_near(want.outputs.at(0), r.get_tensor("y").to_vector<float>(), 1e-4, 1e-4, "GPU", "y");
    // Under the f16 hint the copy is another (narrowed), made once for its models too.
    const uint64_t with_f32 = held(core) - before;
    CompiledModel half = core.compile_model(model, "GPU", {{"GPU_ZERO_COPY", false}, {"INFERENCE_PRECISION_HINT", "f16"}});
    const uint64_t halves = held(core) - before - with_f32;
    EXPECT_NEAR(static_cast<double>(halves), static_cast<double>(one) / 2, static_cast<double>(one) * 0.01);
    CompiledModel half_again = core.compile_model(model, "GPU", {{"GPU_ZERO_COPY", false}, {"INFERENCE_PRECISION_HINT", "f16"}});
    EXPECT_EQ(held(core) - before - with_f32, halves);
}

// A model of dynamic shape compiles a model per shape, each request keeping a request per shape:
// where the limit leaves room for one, a new shape's takes the room of the idle ones.
TEST(GpuMemoryLimit, ANewShapeTakesTheRoomOfTheIdleOnes) {
    Core core;
    const auto model = mlp(-1);
    const uint64_t before = held(core);
    uint64_t one_shape = 0;
    {
        CompiledModel compiled = core.compile_model(model, "GPU", kCopied);
        InferRequest r = compiled.create_infer_request();
        r.set_tensor("x", random_tensor({64, 256}, 25));
        r.infer();
        one_shape = held(core) - before;  // the weights and the request of 64 rows
    }
    const int64_t limit = static_cast<int64_t>(before + one_shape + one_shape / 20);
    CompiledModel compiled = core.compile_model(model, "GPU", {{"GPU_ZERO_COPY", false}, {"DEVICE_MEMORY_LIMIT", limit}});
    InferRequest r = compiled.create_infer_request();
    for (int64_t rows : {64, 48, 64, 32}) {
        const Tensor x = random_tensor({rows, 256}, 26 + static_cast<int>(rows));
        r.set_tensor("x", x);
        r.infer();
        EXPECT_LE(held(core), static_cast<uint64_t>(limit)) << rows << " rows";
        const RunResult want = run_on(model, "REFERENCE", {{"x", x}});
        expect_near(want.outputs.at(0), r.get_tensor("y").to_vector<float>(), 1e-4, 1e-4, "GPU", "y");
    }
}

TEST(GpuMemoryLimit, ANegativeLimitIsRefused) {
    Core core;
    try {
        core.compile_model(mlp(), "GPU", {{"DEVICE_MEMORY_LIMIT", int64_t{-1}}});
        ADD_FAILURE() << "compiled";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("property 'DEVICE_MEMORY_LIMIT' of device 'GPU' expects an integer >= 0"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace mosaic::test::gpu
