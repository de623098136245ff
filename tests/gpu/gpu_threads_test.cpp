// Several infer requests of one GPU compiled model at once: four threads, each with its own request
// on the shared compiled CNN, run five inferences each (sync, or start_async() + wait()), and every
// result is bit-identical to the same input run serially on one request. Asynchronous inferences end
// from the device's event, not from a thread per request waiting for it: eight requests in flight
// add one thread (the model's completion thread), and a callback may start its request again.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

namespace mosaic::test::gpu {
namespace {

constexpr int kThreads = 4, kRuns = 5;

Tensor input_of(int i) { return random_tensor(kCnnInput, 1000u + static_cast<uint32_t>(i)); }

void check_concurrent_matches_serial(bool async, const AnyMap& properties = {}) {
    CompiledModel compiled = shared_core().compile_model(small_cnn(), "GPU", properties);
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

// Under the f16 hint each request also converts its input and output on its own queue.
TEST(GpuThreads, ConcurrentHalfPrecisionRequestsAreBitIdenticalToSerial) {
    check_concurrent_matches_serial(false, {properties::hint::inference_precision("f16")});
    check_concurrent_matches_serial(true, {properties::hint::inference_precision("f16")});
}

size_t thread_count() {
    size_t n = 0;
    for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) ++n;
    return n;
}

TEST(GpuThreads, AsyncRequestsInFlightShareOneCompletionThread) {
    CompiledModel compiled = shared_core().compile_model(small_cnn(), "GPU");
    InferRequest warm = compiled.create_infer_request();
    warm.set_tensor("x", input_of(0));
    warm.infer();  // the driver's own threads exist from here on
    const size_t before = thread_count();

    constexpr int kInFlight = 8;
    std::vector<InferRequest> requests;
    for (int i = 0; i < kInFlight; ++i) {
        requests.push_back(compiled.create_infer_request());
        requests.back().set_tensor("x", input_of(i));
    }
    for (auto& r : requests) r.start_async();
    for (auto& r : requests) r.wait();
    const size_t after = thread_count();
    // A worker per request would add eight; the event path adds the model's completion thread.
    EXPECT_LE(after, before + 1) << before << " threads before, " << after << " with " << kInFlight << " requests";

    warm.infer();
    const std::vector<float> serial0 = warm.get_tensor("prob").to_vector<float>();
    warm.set_tensor("x", input_of(kInFlight - 1));
    warm.infer();
    EXPECT_EQ(requests.front().get_tensor("prob").to_vector<float>(), serial0);
    EXPECT_EQ(requests.back().get_tensor("prob").to_vector<float>(), warm.get_tensor("prob").to_vector<float>());
}

TEST(GpuThreads, ACallbackMayStartItsRequestAgain) {
    CompiledModel compiled = shared_core().compile_model(small_cnn(), "GPU");
    InferRequest r = compiled.create_infer_request();
    r.set_tensor("x", input_of(3));
    constexpr int kRounds = 5;
    std::mutex m;
    std::condition_variable cv;
    int completed = 0;
    std::string error;
    r.set_callback([&](std::exception_ptr e) {
        std::lock_guard<std::mutex> lock(m);
        if (e) {
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& ex) {
                error = ex.what();
            }
        }
        if (++completed < kRounds && !e) r.start_async();
        cv.notify_all();
    });
    r.start_async();
    std::unique_lock<std::mutex> lock(m);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return completed == kRounds || !error.empty(); }));
    EXPECT_EQ(error, "");
    lock.unlock();
    r.wait();
    InferRequest check = compiled.create_infer_request();
    check.set_tensor("x", input_of(3));
    check.infer();
    EXPECT_EQ(r.get_tensor("prob").to_vector<float>(), check.get_tensor("prob").to_vector<float>());
}

// The serial run itself is right: the same CNN agrees with REFERENCE.
TEST(GpuThreads, TheCnnMatchesReference) {
    expect_device_matches_reference(small_cnn(), "GPU", {{"x", input_of(0)}});
}

}  // namespace
}  // namespace mosaic::test::gpu
