// Execution streams of the CPU device: how NUM_STREAMS, PERFORMANCE_HINT and INFERENCE_NUM_THREADS
// split the threads (the plan, on any machine size, and what a compiled model reports here); the
// limiter that lets one inference per stream run, tested directly; more requests than streams,
// bit-identical to serial; and clear errors for values the device refuses.
#include "cpu/cpu_test_util.hpp"
#include "plugins/cpu/stream_limiter.hpp"
#include "plugins/cpu/stream_plan.hpp"
#include "plugins/cpu/stream_threads.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace mosaic::test {
namespace {

using cpu_plugin::plan_streams;
using cpu_plugin::StreamLimiter;
using cpu_plugin::StreamThreads;
using namespace std::chrono_literals;

// --- the plan ---

TEST(CpuStreamPlan, LatencyRunsOneStreamWithEveryThread) {
    for (int budget : {1, 2, 16, 64}) {
        EXPECT_EQ(plan_streams(0, false, budget).streams, 1) << budget;
        EXPECT_EQ(plan_streams(0, false, budget).threads_per_stream, budget) << budget;
    }
}

TEST(CpuStreamPlan, ThroughputSplitsTheBudget) {
    struct Case {
        int budget, streams, threads_per_stream;
    };
    for (const Case c : {Case{1, 1, 1}, Case{2, 2, 1}, Case{8, 8, 1}, Case{12, 12, 1}, Case{16, 8, 2}, Case{24, 8, 3},
                         Case{32, 8, 4}, Case{64, 16, 4}}) {
        const auto plan = plan_streams(0, true, c.budget);
        EXPECT_EQ(plan.streams, c.streams) << c.budget;
        EXPECT_EQ(plan.threads_per_stream, c.threads_per_stream) << c.budget;
        EXPECT_LE(plan.total_threads(), c.budget) << c.budget;
    }
}

TEST(CpuStreamPlan, ExplicitStreamsWinOverTheHint) {
    EXPECT_EQ(plan_streams(1, true, 16).streams, 1);
    EXPECT_EQ(plan_streams(1, true, 16).threads_per_stream, 16);
    EXPECT_EQ(plan_streams(3, false, 8).streams, 3);
    EXPECT_EQ(plan_streams(3, false, 8).threads_per_stream, 2);
    // Beyond the budget: honoured, one thread each.
    EXPECT_EQ(plan_streams(5, true, 2).streams, 5);
    EXPECT_EQ(plan_streams(5, true, 2).threads_per_stream, 1);
}

// Polls `done` for up to 10 s (a loaded machine, a sanitizer build); false when it never came.
bool eventually(const std::function<bool()>& done) {
    for (auto until = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < until;) {
        if (done()) return true;
        std::this_thread::sleep_for(1ms);
    }
    return done();
}

// --- the threads parallel work starts from ---

// Jobs that come one after another, from any callers, run on one thread of the device's (one
// OpenMP pool: stream_threads.hpp); a job that comes while it is busy gets another.
TEST(CpuStreamThreads, SequentialJobsKeepToOneThreadAndConcurrentOnesGetAnother) {
    StreamThreads threads;
    std::thread::id first, second, other;
    threads.run([&] { first = std::this_thread::get_id(); });
    std::thread caller([&] { threads.run([&] { second = std::this_thread::get_id(); }); });
    caller.join();
    EXPECT_EQ(first, second);
    EXPECT_NE(first, std::this_thread::get_id());
    EXPECT_EQ(threads.threads(), 1u);

    std::atomic<bool> inside{false}, release{false};
    std::thread busy([&] {
        threads.run([&] {
            inside = true;
            while (!release) std::this_thread::sleep_for(1ms);
        });
    });
    EXPECT_TRUE(eventually([&] { return inside.load(); }));
    threads.run([&] { other = std::this_thread::get_id(); });
    release = true;
    busy.join();
    EXPECT_NE(other, first);
    EXPECT_EQ(threads.threads(), 2u);
}

// A job that asks for more runs it in place instead of waiting on itself; a job's exception
// reaches its caller, and the threads go on.
TEST(CpuStreamThreads, NestedJobsRunInPlaceAndErrorsReachTheCaller) {
    StreamThreads threads;
    std::thread::id outer, inner;
    threads.run([&] {
        outer = std::this_thread::get_id();
        threads.run([&] { inner = std::this_thread::get_id(); });
    });
    EXPECT_EQ(outer, inner);
    EXPECT_THROW(threads.run([] { throw std::runtime_error("job failed"); }), std::runtime_error);
    bool ran = false;
    threads.run([&] { ran = true; });
    EXPECT_TRUE(ran);
    EXPECT_EQ(threads.threads(), 1u);
}

// Callers from many threads at once: each job runs once, on a thread of its own while it runs.
TEST(CpuStreamThreads, ConcurrentCallersEachRunOnce) {
    StreamThreads threads;
    std::atomic<int> ran{0};
    std::mutex mutex;
    std::set<std::thread::id> running;
    bool shared = false;
    std::vector<std::thread> callers;
    for (int c = 0; c < 8; ++c)
        callers.emplace_back([&] {
            for (int i = 0; i < 50; ++i)
                threads.run([&] {
                    {
                        std::lock_guard<std::mutex> lock(mutex);
                        shared |= !running.insert(std::this_thread::get_id()).second;
                    }
                    ++ran;
                    std::lock_guard<std::mutex> lock(mutex);
                    running.erase(std::this_thread::get_id());
                });
        });
    for (auto& t : callers) t.join();
    EXPECT_EQ(ran.load(), 400);
    EXPECT_FALSE(shared);  // no two jobs on one thread at once
    EXPECT_LE(threads.threads(), 8u);
}

// --- the limiter ---

TEST(CpuStreamLimiter, AdmitsAtMostItsStreamsInArrivalOrder) {
    StreamLimiter limiter(2);
    std::optional<StreamLimiter::Slot> first, second;
    first.emplace(limiter.acquire());
    second.emplace(limiter.acquire());  // two at once: both streams are usable

    std::atomic<bool> a_in{false}, b_in{false};
    std::optional<StreamLimiter::Slot> a_slot;
    std::thread a([&] {
        a_slot.emplace(limiter.acquire());
        a_in = true;
    });
    EXPECT_TRUE(eventually([&] { return limiter.waiting() == 1; }));
    std::thread b([&] {
        StreamLimiter::Slot slot = limiter.acquire();
        b_in = true;
    });
    EXPECT_TRUE(eventually([&] { return limiter.waiting() == 2; }));
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(a_in);
    EXPECT_FALSE(b_in);

    first.reset();  // one stream frees: the earlier waiter gets it, the later one keeps waiting
    EXPECT_TRUE(eventually([&] { return a_in.load(); }));
    a.join();
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(b_in);
    EXPECT_EQ(limiter.waiting(), 1u);

    a_slot.reset();
    EXPECT_TRUE(eventually([&] { return b_in.load(); }));
    b.join();
    second.reset();
    EXPECT_EQ(limiter.waiting(), 0u);
}

TEST(CpuStreamLimiter, ExceptionsAndMovesGiveTheStreamBackOnce) {
    StreamLimiter limiter(2);
    try {
        StreamLimiter::Slot slot = limiter.acquire();
        throw std::runtime_error("inference failed");
    } catch (const std::runtime_error&) {
    }
    {
        StreamLimiter::Slot moved_from = limiter.acquire();
        StreamLimiter::Slot moved_to(std::move(moved_from));
    }
    // Both streams are free again, and only two: a third holder waits.
    std::optional<StreamLimiter::Slot> one, two;
    one.emplace(limiter.acquire());
    std::atomic<bool> second_in{false}, third_in{false};
    std::thread t2([&] {
        two.emplace(limiter.acquire());
        second_in = true;
    });
    EXPECT_TRUE(eventually([&] { return second_in.load(); }));
    std::thread t3([&] {
        StreamLimiter::Slot slot = limiter.acquire();
        third_in = true;
    });
    EXPECT_TRUE(eventually([&] { return limiter.waiting() == 1 || third_in; }));
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(third_in);  // a moved Slot released twice would have let it in
    one.reset();
    t2.join();
    two.reset();
    t3.join();
    EXPECT_TRUE(third_in);
}

TEST(CpuStreamLimiter, NeverMoreInFlightThanStreams) {
    constexpr int kStreams = 3, kThreads = 10, kRounds = 20;
    StreamLimiter limiter(kStreams);
    std::atomic<int> in_flight{0}, max_in_flight{0}, completed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&] {
            for (int r = 0; r < kRounds; ++r) {
                StreamLimiter::Slot slot = limiter.acquire();
                const int now = ++in_flight;
                for (int seen = max_in_flight.load(); now > seen && !max_in_flight.compare_exchange_weak(seen, now);) {
                }
                std::this_thread::sleep_for(200us);
                --in_flight;
                ++completed;
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(completed, kThreads * kRounds);
    EXPECT_LE(max_in_flight, kStreams);
    EXPECT_GE(max_in_flight, 1);
    EXPECT_EQ(limiter.waiting(), 0u);
}

// --- compiled models ---

std::shared_ptr<Model> streams_model() {
    ModelBuilder b("streams");
    Output x = b.parameter("x", ElementType::f32, {1, 3, 16, 16});
    Output y = b.op("Relu", {conv_bias(b, x, 3, 8, 1, "conv")}, {}, "relu");
    Output pooled = b.op("MaxPool", {y},
                         {{"strides", "2,2"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"kernel", "2,2"},
                          {"rounding_type", "floor"}, {"auto_pad", "explicit"}},
                         "pool", "opset1");
    Output flat = b.op("Reshape", {pooled, b.constant<int64_t>({2}, {1, -1})}, {{"special_zero", "false"}}, "flat");
    Output fc = b.op("MatMul", {flat, random_constant(b, {8 * 8 * 8, 10}, 3, "fc_w", 0.05f)}, {}, "fc");
    b.result(b.op("Softmax", {fc}, {{"axis", "1"}}, "softmax", "opset8"), "y");
    return b.build();
}

struct Streams {
    int64_t streams, threads_per_stream, total_threads, optimal_requests;
};

Streams streams_of(const AnyMap& properties) {
    CompiledModel compiled = shared_core().compile_model(streams_model(), "CPU", properties);
    return {compiled.get_property("NUM_STREAMS").get<int64_t>(), compiled.get_property("CPU_THREADS_PER_STREAM").get<int64_t>(),
            compiled.get_property("INFERENCE_NUM_THREADS").get<int64_t>(),
            compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS").get<int64_t>()};
}

// The cores the CPU device sees here (its affinity mask): all of them in one latency stream.
int64_t device_cores() { return streams_of({{"PERFORMANCE_HINT", "LATENCY"}}).threads_per_stream; }

TEST(CpuStreams, ThroughputHintRunsSeveralStreams) {
    const int64_t cores = device_cores();
    if (cores < 2) GTEST_SKIP() << "THROUGHPUT splits the cores into streams; this machine gives the process " << cores << " core";
    const Streams s = streams_of({{"PERFORMANCE_HINT", "THROUGHPUT"}});
    EXPECT_GT(s.streams, 1);
    EXPECT_EQ(s.optimal_requests, s.streams);
    EXPECT_EQ(s.total_threads, s.streams * s.threads_per_stream);
    EXPECT_LE(s.total_threads, cores);
}

TEST(CpuStreams, ThroughputHintWithinAThreadBudget) {
    const Streams s = streams_of({{"PERFORMANCE_HINT", "THROUGHPUT"}, {"INFERENCE_NUM_THREADS", 1}});
    EXPECT_EQ(s.streams, 1);
    EXPECT_EQ(s.total_threads, 1);
}

TEST(CpuStreams, LatencyHintRunsOneStreamOnEveryCore) {
    const Streams s = streams_of({{"PERFORMANCE_HINT", "LATENCY"}, {"NUM_STREAMS", "AUTO"}});
    EXPECT_EQ(s.streams, 1);
    EXPECT_EQ(s.optimal_requests, 1);
    EXPECT_EQ(s.threads_per_stream, s.total_threads);
    EXPECT_GE(s.threads_per_stream, 1);
}

TEST(CpuStreams, ExplicitNumStreamsIsHonoured) {
    const int64_t cores = device_cores();
    for (const AnyMap& props : {AnyMap{{"NUM_STREAMS", 2}}, AnyMap{{"NUM_STREAMS", "2"}, {"PERFORMANCE_HINT", "THROUGHPUT"}}}) {
        const Streams s = streams_of(props);
        EXPECT_EQ(s.streams, 2);
        EXPECT_EQ(s.optimal_requests, 2);
        EXPECT_EQ(s.threads_per_stream, std::max<int64_t>(1, cores / 2));
    }
    EXPECT_EQ(streams_of({{"NUM_STREAMS", 1}, {"PERFORMANCE_HINT", "THROUGHPUT"}}).streams, 1);
}

TEST(CpuStreams, AutoIsTheDefaultInAnySpelling) {
    Core core;
    EXPECT_EQ(core.get_property("CPU", "NUM_STREAMS"), "AUTO");
    core.set_property("CPU", {{"NUM_STREAMS", 3}});
    EXPECT_EQ(core.get_property("CPU", "NUM_STREAMS"), 3);
    core.set_property("CPU", {{"NUM_STREAMS", "auto"}});
    EXPECT_EQ(core.get_property("CPU", "NUM_STREAMS"), "AUTO");
}



TEST(CpuStreams, BadValuesAreRefusedNamingTheKey) {
    for (const PropertyValue& bad : {PropertyValue(0), PropertyValue(-2), PropertyValue("FAST"), PropertyValue("0"),
                                     PropertyValue(1.5), PropertyValue(true)}) {
        const std::string e = error_of([&] { shared_core().compile_model(streams_model(), "CPU", {{"NUM_STREAMS", bad}}); });
        EXPECT_TRUE(contains(e, "NUM_STREAMS")) << e;
        EXPECT_TRUE(contains(e, "'CPU'")) << e;
        EXPECT_TRUE(contains(e, "an integer")) << e;
        EXPECT_TRUE(contains(e, "AUTO")) << e;
        EXPECT_TRUE(contains(e, bad.dump())) << e;
    }
    EXPECT_TRUE(contains(error_of([] { shared_core().compile_model(streams_model(), "CPU", {{"NUM_STREAMS", 0}}); }),
                         ">= 1"));
    const std::string hint =
        error_of([] { shared_core().compile_model(streams_model(), "CPU", {{"PERFORMANCE_HINT", "FAST"}}); });
    EXPECT_TRUE(contains(hint, "PERFORMANCE_HINT")) << hint;
    EXPECT_TRUE(contains(hint, "THROUGHPUT")) << hint;
    // Reported by compiled models only: not a setting.
    const std::string reported = error_of([] {
        shared_core().compile_model(streams_model(), "CPU", {{"CPU_THREADS_PER_STREAM", 2}});
    });
    EXPECT_TRUE(contains(reported, "CPU_THREADS_PER_STREAM")) << reported;
    // A refused set_property changes nothing.
    Core core;
    EXPECT_TRUE(contains(error_of([&] { core.set_property("CPU", {{"NUM_STREAMS", "FAST"}}); }), "NUM_STREAMS"));
    EXPECT_EQ(core.get_property("CPU", "NUM_STREAMS"), "AUTO");
}

// More requests in flight than streams: all complete, each result bit-identical to a serial run
// of the same compiled model (same primitives, same threads per stream).
void check_more_requests_than_streams(const AnyMap& properties) {
    CompiledModel compiled = shared_core().compile_model(streams_model(), "CPU", properties);
    const int64_t streams = compiled.get_property("NUM_STREAMS").get<int64_t>();
    const int requests = static_cast<int>(2 * streams + 1), rounds = 3;
    std::vector<std::vector<float>> serial(requests * rounds), parallel(requests * rounds);
    InferRequest one = compiled.create_infer_request();
    for (int i = 0; i < requests * rounds; ++i) {
        one.set_tensor("x", random_tensor({1, 3, 16, 16}, static_cast<uint32_t>(100 + i)));
        one.infer();
        serial[i] = one.get_tensor("y").to_vector<float>();
    }
    std::vector<InferRequest> in_flight;
    for (int r = 0; r < requests; ++r) in_flight.push_back(compiled.create_infer_request());
    for (int round = 0; round < rounds; ++round) {
        for (int r = 0; r < requests; ++r) {
            in_flight[r].set_tensor("x", random_tensor({1, 3, 16, 16}, static_cast<uint32_t>(100 + round * requests + r)));
            in_flight[r].start_async();
        }
        for (int r = 0; r < requests; ++r) {
            in_flight[r].wait();
            parallel[round * requests + r] = in_flight[r].get_tensor("y").to_vector<float>();
        }
    }
    for (int i = 0; i < requests * rounds; ++i) EXPECT_EQ(parallel[i], serial[i]) << "inference " << i;
}

TEST(CpuStreams, MoreRequestsThanStreamsOnThroughput) { check_more_requests_than_streams({{"PERFORMANCE_HINT", "THROUGHPUT"}}); }

TEST(CpuStreams, MoreRequestsThanStreamsOnOneStream) { check_more_requests_than_streams({{"NUM_STREAMS", 1}}); }

TEST(CpuStreams, MoreRequestsThanStreamsOnTwoSingleThreadStreams) {
    check_more_requests_than_streams({{"NUM_STREAMS", 2}, {"INFERENCE_NUM_THREADS", 2}});
}

}  // namespace
}  // namespace mosaic::test
