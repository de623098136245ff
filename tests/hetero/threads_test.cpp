// Many requests of one HETERO compiled model from several threads, synchronous and asynchronous:
// the results must be bit-identical to serial runs. Run under ThreadSanitizer by scripts/test.sh.
#include "hetero/hetero_test_util.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace mosaic::test::hetero {
namespace {

constexpr int kThreads = 4, kRuns = 50;

// Serial results of `compiled` for inputs 0 .. kThreads * kRuns - 1.
std::vector<std::vector<std::vector<float>>> serial_results(CompiledModel& compiled) {
    std::vector<std::vector<std::vector<float>>> out(kThreads * kRuns);
    InferRequest one = compiled.create_infer_request();
    for (int i = 0; i < kThreads * kRuns; ++i) {
        const auto inputs = inputs_for(compiled, i);
        for (size_t k = 0; k < inputs.size(); ++k) one.set_input_tensor(k, inputs[k]);
        one.infer();
        for (size_t o = 0; o < compiled.outputs().size(); ++o) out[i].push_back(one.get_output_tensor(o).to_vector<float>());
    }
    return out;
}

void expect_concurrent_matches_serial(const std::shared_ptr<Model>& model, const std::string& device,
                                      const AnyMap& properties = {}) {
    Core core;
    CompiledModel compiled = core.compile_model(model, device, properties);
    const auto serial = serial_results(compiled);
    EXPECT_TRUE(outputs_near(serial[0], reference_outputs(core, model, 0)));
    std::vector<std::vector<std::vector<float>>> parallel(kThreads * kRuns);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            InferRequest r = compiled.create_infer_request();  // created concurrently too
            for (int k = 0; k < kRuns; ++k) {
                const int i = t * kRuns + k;
                const auto inputs = inputs_for(compiled, i);
                for (size_t n = 0; n < inputs.size(); ++n) r.set_input_tensor(n, inputs[n]);
                if ((k + t) % 2) {
                    r.infer();
                } else {
                    r.start_async();
                    r.wait();
                }
                for (size_t o = 0; o < compiled.outputs().size(); ++o)
                    parallel[i].push_back(r.get_output_tensor(o).to_vector<float>());
            }
        });
    for (auto& th : threads) th.join();
    for (int i = 0; i < kThreads * kRuns; ++i) EXPECT_EQ(parallel[i], serial[i]) << "inference " << i;
}

TEST(HeteroThreads, ConcurrentRequestsMatchSerialResults) {
    expect_concurrent_matches_serial(branchy_model(), "HETERO:ACCEL,NPU,REFERENCE");
}

TEST(HeteroThreads, ConcurrentRequestsWithProfilingAndMinTransfer) {
    expect_concurrent_matches_serial(residual_model(), "HETERO:ACCEL,NPU,REFERENCE",
                                     {properties::enable_profiling(true), {"HETERO_PLACEMENT", "MIN_TRANSFER"}});
}

TEST(HeteroThreads, OneQueueDevicesStillGiveTheSameResults) {
    // EXECUTION_UNITS 1 makes ACCEL and NPU one-queue devices: subgraphs of different requests
    // contend for them.
    expect_concurrent_matches_serial(scattered_chain_model(), "HETERO:ACCEL,NPU,REFERENCE",
                                     {properties::device::properties({{"ACCEL", {{"EXECUTION_UNITS", 1}}},
                                                                      {"NPU", {{"EXECUTION_UNITS", 1}}}})});
}

TEST(HeteroThreads, CallbacksThatRestartTheirRequest) {
    Core core;
    auto model = scattered_chain_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    const auto serial = serial_results(compiled);
    constexpr int kRequests = 3, kEach = 10;
    struct Slot {
        InferRequest request;
        int done = 0;
        std::vector<std::vector<float>> outputs;
        std::string error;
    };
    std::vector<Slot> slots(kRequests);
    std::mutex mutex;
    std::condition_variable finished;
    int finished_count = 0;
    for (int s = 0; s < kRequests; ++s) {
        slots[s].request = compiled.create_infer_request();
        slots[s].request.set_callback([&, s](std::exception_ptr error) {
            Slot& slot = slots[s];
            if (error) {
                try {
                    std::rethrow_exception(error);
                } catch (const std::exception& e) {
                    slot.error = e.what();
                }
            } else {
                slot.outputs.push_back(slot.request.get_output_tensor().to_vector<float>());
            }
            if (error || ++slot.done == kEach) {
                std::lock_guard<std::mutex> lock(mutex);
                ++finished_count;
                finished.notify_all();
                return;
            }
            slot.request.set_input_tensor(inputs_for(compiled, s * kEach + slot.done)[0]);
            slot.request.start_async();  // restart from the callback
        });
        slots[s].request.set_input_tensor(inputs_for(compiled, s * kEach)[0]);
        slots[s].request.start_async();
    }
    {
        std::unique_lock<std::mutex> lock(mutex);
        ASSERT_TRUE(finished.wait_for(lock, std::chrono::seconds(120), [&] { return finished_count == kRequests; }));
    }
    for (auto& slot : slots) slot.request.wait();
    for (int s = 0; s < kRequests; ++s) {
        EXPECT_EQ(slots[s].error, "");
        ASSERT_EQ(slots[s].outputs.size(), static_cast<size_t>(kEach));
        for (int k = 0; k < kEach; ++k) EXPECT_EQ(slots[s].outputs[k], serial[s * kEach + k][0]) << s << "/" << k;
    }
}

TEST(HeteroThreads, ConcurrentCompilationOnOneCore) {
    Core core;
    auto model = branchy_model();
    const auto expected = reference_outputs(core, model);
    std::vector<std::thread> threads;
    std::vector<std::vector<std::vector<float>>> out(4);
    std::vector<std::string> errors(4);
    const char* devices[] = {"HETERO:ACCEL,NPU,REFERENCE", "HETERO:NPU,REFERENCE", "HETERO:ACCEL,REFERENCE",
                             "HETERO:REFERENCE"};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            try {
                CompiledModel compiled = core.compile_model(model, devices[t]);
                out[t] = run(compiled);
            } catch (const std::exception& e) {
                errors[t] = e.what();
            }
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t) {
        EXPECT_EQ(errors[t], "") << devices[t];
        EXPECT_TRUE(outputs_near(out[t], expected)) << devices[t];
    }
}

}  // namespace
}  // namespace mosaic::test::hetero
