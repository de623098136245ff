// Several infer requests of one CPU compiled model at once: each request owns its buffers and
// scratch, the primitives are shared, and every result is bit-identical to a serial run.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace mosaic::test {
namespace {

// Convolutions (with fusion, in-place residual), pooling, a MatMul, softmax and a reference op.
std::shared_ptr<Model> mixed_model() {
    ModelBuilder b("mixed");
    Output x = b.parameter("x", ElementType::f32, {1, 3, 16, 16});
    Output r = b.op("Relu", {conv_bias(b, x, 3, 8, 1, "stem")}, {}, "stem_relu");
    Output y = b.op("Relu", {b.op("Add", {conv_bias(b, r, 8, 8, 3, "block"), r}, {}, "res")}, {}, "block_relu");
    Output pooled = b.op("AvgPool", {y},
                         {{"strides", "2,2"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"kernel", "2,2"},
                          {"exclude-pad", "true"}, {"rounding_type", "floor"}, {"auto_pad", "explicit"}},
                         "pool", "opset1");
    Output flat = b.op("Reshape", {pooled, b.constant<int64_t>({2}, {1, -1})}, {{"special_zero", "false"}}, "flat");
    Output fc = b.op("MatMul", {flat, random_constant(b, {8 * 8 * 8, 10}, 5, "fc_w", 0.05f)}, {}, "fc");
    Output soft = b.op("Softmax", {b.op("Sin", {fc}, {}, "sin")}, {{"axis", "1"}}, "softmax", "opset8");
    b.result(soft, "y");
    return b.build();
}

void check_concurrent_matches_serial(const AnyMap& properties) {
    CompiledModel compiled = shared_core().compile_model(mixed_model(), "CPU", properties);
    constexpr int kThreads = 4, kRuns = 12;
    std::vector<std::vector<float>> serial(kThreads * kRuns), parallel(kThreads * kRuns);
    InferRequest one = compiled.create_infer_request();
    for (int i = 0; i < kThreads * kRuns; ++i) {
        one.set_tensor("x", random_tensor({1, 3, 16, 16}, static_cast<uint32_t>(i)));
        one.infer();
        serial[i] = one.get_tensor("y").to_vector<float>();
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            InferRequest r = compiled.create_infer_request();
            for (int k = 0; k < kRuns; ++k) {
                const int i = t * kRuns + k;
                r.set_tensor("x", random_tensor({1, 3, 16, 16}, static_cast<uint32_t>(i)));
                if (k % 2) {
                    r.infer();
                } else {
                    r.start_async();
                    r.wait();
                }
                parallel[i] = r.get_tensor("y").to_vector<float>();
            }
        });
    for (auto& th : threads) th.join();
    for (int i = 0; i < kThreads * kRuns; ++i) EXPECT_EQ(parallel[i], serial[i]) << "inference " << i;
}

// Four streams of one thread each: the four request threads really run at once (and ThreadSanitizer,
// which cannot see into OpenMP's threads, checks single-threaded inferences only).
TEST(CpuThreads, ConcurrentRequestsAreBitIdenticalToSerial) {
    check_concurrent_matches_serial({{"INFERENCE_NUM_THREADS", 1}, {"NUM_STREAMS", 4}});
}

// Two streams sharing every core: several threads each on a machine of 4 cores or more.
TEST(CpuThreads, ConcurrentRequestsWithSeveralThreadsEach) {
    check_concurrent_matches_serial({{"INFERENCE_NUM_THREADS", 0}, {"NUM_STREAMS", 2}});
}

// One stream of two threads: the four request threads take turns.
TEST(CpuThreads, ConcurrentRequestsOnOneStream) { check_concurrent_matches_serial({{"INFERENCE_NUM_THREADS", 2}}); }

TEST(CpuThreads, MixedModelMatchesReference) {
    expect_matches_reference(mixed_model(), {{"x", random_tensor({1, 3, 16, 16}, 99)}});
}

TEST(CpuThreads, ConcurrentCompilations) {
    std::vector<std::thread> threads;
    std::vector<std::vector<float>> out(4);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            out[t] = run_on(mixed_model(), "CPU", {{"x", random_tensor({1, 3, 16, 16}, 7)}},
                            {{"INFERENCE_NUM_THREADS", 1 + t % 2}})
                         .outputs[0];
        });
    for (auto& th : threads) th.join();
    for (int t = 1; t < 4; ++t) expect_near_all(out[0], out[t], 1e-6, 1e-5, "compilation " + std::to_string(t));
}

}  // namespace
}  // namespace mosaic::test
