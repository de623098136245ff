// The settings a CPU compiled model runs with, read once at compile time from the merged device and
// compile properties (which the SDK has already validated against the device's declared specs).
#pragma once

#include "stream_plan.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace mosaic::cpu_plugin {

struct CpuConfig {
    bool perf_count = false;
    int64_t requested_threads = 0;  // INFERENCE_NUM_THREADS as given; 0 = every core
    std::string performance_hint = "LATENCY";
    StreamPlan streams;             // from NUM_STREAMS, the hint and the thread budget
    std::string precision = "f32";
    int64_t dynamic_quantization_group = 0;  // DYNAMIC_QUANTIZATION_GROUP_SIZE
    uint64_t memory_limit = 0;               // DEVICE_MEMORY_LIMIT: host bytes the device may hold; 0: no limit
    bool weights_in_place = false;           // CPU_WEIGHTS_IN_PLACE

    static CpuConfig from(const nlohmann::json& config);
};

// Cores OpenMP can use in this process (affinity mask honoured).
int available_cores();

// Keeps the OpenMP runtime and oneDNN loaded for the rest of the process. OpenMP's worker threads
// outlive every parallel region and cannot be joined, so unloading the plugin (which would unload
// both with it, since the host loads neither) would leave them running in unmapped code, holding
// thread-local storage of an unmapped oneDNN.
void pin_runtime_libraries();

// Sets the OpenMP thread count of the calling thread for its lifetime and restores the caller's
// afterwards. oneDNN reads it both when a primitive is created (to partition the work) and when it
// runs, so compilation and every inference of a model run inside one of these, with the model's
// threads per stream.
class ThreadScope {
public:
    explicit ThreadScope(int threads);
    ~ThreadScope();
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;

private:
    int saved_;
};

}  // namespace mosaic::cpu_plugin
