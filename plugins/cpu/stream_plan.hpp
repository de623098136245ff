// How a compiled model's thread budget splits into execution streams: how many inferences run at
// once, and how many OpenMP threads each of them uses. Kept free of the machine (the budget is an
// argument) so that the split is the same function on every machine and testable on any.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>

namespace mosaic::cpu_plugin {

struct StreamPlan {
    int streams = 1;             // inferences of the model that run at once
    int threads_per_stream = 1;  // OpenMP threads of each; oneDNN partitions its work for this count

    int total_threads() const { return streams * threads_per_stream; }
};

// `requested_streams`: NUM_STREAMS, 0 for AUTO (the hint decides). `throughput`: PERFORMANCE_HINT is
// THROUGHPUT (or CUMULATIVE_THROUGHPUT) rather than LATENCY. `thread_budget`: the threads the model
// may use in all, INFERENCE_NUM_THREADS or every core.
inline StreamPlan plan_streams(int64_t requested_streams, bool throughput, int thread_budget) {
    const int budget = std::max(thread_budget, 1);
    int streams = 1;
    if (requested_streams > 0) {
        // Honoured as given, also beyond the budget: each stream then runs one thread, so more
        // threads than the budget run (OpenVINO's CPU plugin reduces such a count to the budget
        // instead; here an explicit count wins, e.g. to run many single-threaded inferences at once).
        streams = static_cast<int>(std::min<int64_t>(requested_streams, INT_MAX));
    } else if (throughput) {
        // Batch-1 inferences scale well to a few threads and not much beyond, while every stream
        // adds a request's worth of activation memory: one thread per stream up to 15 threads, then
        // 2, 3, 4 threads per stream (16, 24, 32 threads and more), so that a 64-core machine runs
        // 16 streams rather than 64.
        const int per_stream = std::clamp(budget / 8, 1, 4);
        streams = budget / per_stream;
    }
    return {streams, std::max(1, budget / streams)};
}

}  // namespace mosaic::cpu_plugin
