// DEVICE_MEMORY_LIMIT on the CPU device: the host bytes it may hold (weights it repacks, each
// request's activations and scratch). A model that does not fit with one request is refused when
// compiled, a request that does not fit when created (the earlier ones keep running); DEVICE_MEMORY
// reports the limit as the total and what the device holds as used, and the machine's memory
// without a limit.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test::gpu {
namespace {

// x [4, 512] -> MatMul [512, 512] -> Relu: 1 MiB of weights, which the CPU repacks.
std::shared_ptr<Model> layer() {
    ModelBuilder b("cpu_layer");
    Output x = b.parameter("x", ElementType::f32, {4, 512});
    b.result(b.op("Relu", {b.op("MatMul", {x, random_constant(b, {512, 512}, 61, "w")},
                                {{"transpose_a", "false"}, {"transpose_b", "false"}}, "mm")},
                  {}, "relu"),
             "y");
    return b.build();
}

uint64_t used(Core& core) { return core.get_property("CPU", "DEVICE_MEMORY").at("used_bytes").get<uint64_t>(); }

TEST(CpuMemoryLimit, WhatDoesNotFitIsRefusedNamingTheLimitAndWhatFitsStillRuns) {
    Core core;
    EXPECT_GT(core.get_property("CPU", "DEVICE_MEMORY").at("total_bytes").get<uint64_t>(), uint64_t{1} << 28)
        << "the machine's memory";
    const auto model = layer();
    uint64_t model_bytes = 0, request_bytes = 0;
    {
        const uint64_t before = used(core);
        CompiledModel compiled = core.compile_model(model, "CPU");
        model_bytes = used(core) - before;
        InferRequest r = compiled.create_infer_request();
        request_bytes = used(core) - before - model_bytes;
    }
    ASSERT_GE(model_bytes, uint64_t{1} << 20) << "the repacked weights";
    ASSERT_GT(request_bytes, 0u);
    const std::string refused = [&] {
        try {
            core.compile_model(model, "CPU", {{"DEVICE_MEMORY_LIMIT", static_cast<int64_t>(model_bytes / 2)}});
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("compiled");
    }();
    EXPECT_NE(refused.find("needs " + std::to_string(model_bytes) + " bytes of repacked weights"), std::string::npos) << refused;
    EXPECT_NE(refused.find("DEVICE_MEMORY_LIMIT"), std::string::npos) << refused;

    const int64_t limit = static_cast<int64_t>(used(core) + model_bytes + request_bytes + request_bytes / 2);
    core.set_property("CPU", {{"DEVICE_MEMORY_LIMIT", limit}});
    EXPECT_EQ(core.get_property("CPU", "DEVICE_MEMORY").at("total_bytes").get<int64_t>(), limit);
    CompiledModel compiled = core.compile_model(model, "CPU");
    InferRequest first = compiled.create_infer_request();
    try {
        compiled.create_infer_request();
        ADD_FAILURE() << "a second request fitted";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("a request (its activations and scratch) needs"), std::string::npos) << e.what();
    }
    first.set_tensor("x", random_tensor({4, 512}, 62));
    first.infer();
    EXPECT_EQ(first.get_tensor("y").get_shape(), (Shape{4, 512}));
    core.set_property("CPU", {{"DEVICE_MEMORY_LIMIT", int64_t{0}}});
}

}  // namespace
}  // namespace mosaic::test::gpu
