// Infer requests of a plugin isolated in its own process run at once, as in process: each request
// has its own connection to the host, served there by a thread of its own. BROKEN's MEET property
// makes each inference wait until that many run together (failing after 3 s if they never do), so
// the test shows the overlap without timing anything: served one at a time, every inference fails.
#include "isolation/isolation_test_util.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace mosaic::test::isolation {
namespace {

constexpr int kRequests = 3;

class IsolatedConcurrency : public ::testing::Test {
protected:
    void SetUp() override {
        use_build_plugin_host();
        registry_.add_raw(isolated_entry(registry_, "BROKEN", crashing_plugin()));
        registry_.write();
    }
    TempRegistry registry_;
};

TEST_F(IsolatedConcurrency, RequestsOnSeveralThreadsRunAtOnceInThePluginProcess) {
    Core core(registry_.path());
    CompiledModel compiled = core.compile_model(relu_model(), "BROKEN", {{"MEET", kRequests}});
    std::vector<InferRequest> requests;
    for (int i = 0; i < kRequests; ++i) requests.push_back(compiled.create_infer_request());
    std::vector<std::string> errors(kRequests);
    std::vector<std::vector<float>> outputs(kRequests);
    std::vector<std::thread> threads;
    for (int i = 0; i < kRequests; ++i)
        threads.emplace_back([&, i] {
            try {
                InferRequest& r = requests[static_cast<size_t>(i)];
                r.set_input_tensor(Tensor::from_vector(compiled.inputs().at(0).shape, ElementType::f32, sample_input()));
                if (i % 2) {
                    r.start_async();
                    r.wait();
                } else {
                    r.infer();
                }
                outputs[static_cast<size_t>(i)] = r.get_output_tensor().to_vector<float>();
            } catch (const std::exception& e) {
                errors[static_cast<size_t>(i)] = e.what();
            }
        });
    for (auto& t : threads) t.join();
    for (int i = 0; i < kRequests; ++i) {
        EXPECT_EQ(errors[static_cast<size_t>(i)], "") << "request " << i;
        EXPECT_EQ(outputs[static_cast<size_t>(i)], relu_of_sample()) << "request " << i;
    }
    // Released requests end their host threads; the model and the device go on.
    requests.clear();
    EXPECT_EQ(run_once(core, relu_model(), "BROKEN", sample_input()), relu_of_sample());
}

// The check itself can fail: one request alone never meets three, and says so.
TEST_F(IsolatedConcurrency, TheTestPluginSeesTooFewRequestsTogether) {
    Core core(registry_.path());
    CompiledModel compiled = core.compile_model(relu_model(), "BROKEN", {{"MEET", kRequests}});
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(Tensor::from_vector(compiled.inputs().at(0).shape, ElementType::f32, sample_input()));
    const std::string error = error_of([&] { request.infer(); });
    EXPECT_NE(error.find("only 1 of 3 inferences ran at once"), std::string::npos) << error;
}

}  // namespace
}  // namespace mosaic::test::isolation
