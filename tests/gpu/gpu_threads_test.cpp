// Several infer requests of one GPU compiled model at once: four threads, each with its own request
// on the shared compiled CNN, run five inferences each (sync, or start_async() + wait()), and every
// result is bit-identical to the same input run serially on one request.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace mosaic::test::gpu {
namespace {

constexpr int kThreads = 4, kRuns = 5;

Tensor input_of(int i) { return random_tensor(kCnnInput, 1000u + static_cast<uint32_t>(i)); }

void check_concurrent_matches_serial(bool async) {
    CompiledModel compiled = shared_core().compile_model(small_cnn(), "GPU");
    std::vector<std::vector<float>> serial(kThreads * kRuns), parallel(kThreads * kRuns);
    InferRequest one = compiled.create_infer_request();
    for (int i = 0; i < kThreads * kRuns; ++i) {
        one.set_tensor("x", input_of(i));
        one.infer();
        serial[i] = one.get_tensor("prob").to_vector<float>();
    }
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            try {
                InferRequest r = compiled.create_infer_request();
                for (int k = 0; k < kRuns; ++k) {
                    const int i = t * kRuns + k;
                    r.set_tensor("x", input_of(i));
                    if (async) {
                        r.start_async();
                        r.wait();
                    } else {
                        r.infer();
                    }
                    parallel[i] = r.get_tensor("prob").to_vector<float>();
                }
            } catch (const std::exception& e) {
                errors[t] = e.what();
            }
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
    for (int i = 0; i < kThreads * kRuns; ++i) {
        ASSERT_EQ(serial[i].size(), static_cast<size_t>(kCnnClasses)) << "inference " << i;
        EXPECT_EQ(parallel[i], serial[i]) << "inference " << i;
    }
    // Different inputs give different results: the comparison above is not vacuous.
    EXPECT_NE(serial[0], serial[1]);
}

TEST(GpuThreads, ConcurrentSyncRequestsAreBitIdenticalToSerial) { check_concurrent_matches_serial(false); }

TEST(GpuThreads, ConcurrentAsyncRequestsAreBitIdenticalToSerial) { check_concurrent_matches_serial(true); }

// The serial run itself is right: the same CNN agrees with REFERENCE.
TEST(GpuThreads, TheCnnMatchesReference) {
    expect_device_matches_reference(small_cnn(), "GPU", {{"x", input_of(0)}});
}

}  // namespace
}  // namespace mosaic::test::gpu
