// Several infer requests of one compiled model running at once from several threads.
#include "common/test_models.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace mosaic::test {
namespace {

Tensor input_for(int seed) {
    Tensor t(ElementType::f32, {1, 1, 4, 4});
    for (size_t i = 0; i < t.get_size(); ++i) t.data<float>()[i] = static_cast<float>((seed * 7 + static_cast<int>(i) * 3) % 11) - 5.0f;
    return t;
}

TEST(Threads, ConcurrentRequestsMatchSerialResults) {
    Core core;
    CompiledModel compiled = core.compile_model(conv_relu_model(), "REFERENCE");
    constexpr int kThreads = 4, kRuns = 50;
    std::vector<std::vector<float>> serial(kThreads * kRuns);
    InferRequest one = compiled.create_infer_request();
    for (int i = 0; i < kThreads * kRuns; ++i) {
        one.set_tensor("x", input_for(i));
        one.infer();
        serial[i] = one.get_tensor("y").to_vector<float>();
    }
    std::vector<std::vector<float>> parallel(kThreads * kRuns);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            InferRequest r = compiled.create_infer_request();  // create concurrently too
            for (int k = 0; k < kRuns; ++k) {
                const int i = t * kRuns + k;
                r.set_tensor("x", input_for(i));
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
    EXPECT_EQ(parallel, serial);
}

TEST(Threads, ConcurrentCompilationOnOneCore) {
    Core core;
    std::vector<std::thread> threads;
    std::vector<std::vector<float>> out(4);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            InferRequest r = core.compile_model(conv_relu_model(), t % 2 ? "REFERENCE" : "ACCEL").create_infer_request();
            r.set_tensor("x", iota_tensor({1, 1, 4, 4}));
            r.infer();
            out[t] = r.get_tensor("y").to_vector<float>();
        });
    for (auto& th : threads) th.join();
    for (const auto& o : out) EXPECT_EQ(o, conv_relu_expected());
}

}  // namespace
}  // namespace mosaic::test
