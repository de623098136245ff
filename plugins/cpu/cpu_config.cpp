#include "cpu_config.hpp"

#include <mosaic/sdk/status.hpp>

#include <oneapi/dnnl/dnnl.h>

#include <dlfcn.h>
#include <omp.h>

namespace mosaic::cpu_plugin {

int available_cores() { return omp_get_num_procs(); }

namespace {

// Marks the loaded library holding `symbol` RTLD_NODELETE (RTLD_NOLOAD: it is already loaded; the
// handle is deliberately never closed).
void pin_library_of(void* symbol) {
    Dl_info info{};
    if (dladdr(symbol, &info) && info.dli_fname) dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

}  // namespace

void pin_runtime_libraries() {
    pin_library_of(reinterpret_cast<void*>(&omp_get_max_threads));
    pin_library_of(reinterpret_cast<void*>(&dnnl_version));
}

CpuConfig CpuConfig::from(const nlohmann::json& config) {
    CpuConfig c;
    c.perf_count = config.value("PERF_COUNT", false);
    c.requested_threads = config.value("INFERENCE_NUM_THREADS", int64_t{0});
    // More threads than cores only adds contention; a request for more is capped, not refused,
    // so that a configuration written for a bigger machine still runs here.
    const int cores = available_cores();
    const int budget =
        c.requested_threads == 0 || c.requested_threads > cores ? cores : static_cast<int>(c.requested_threads);
    c.performance_hint = config.value("PERFORMANCE_HINT", std::string("LATENCY"));
    // Validated by the device's spec: an integer >= 1, or "AUTO" (also when absent).
    const nlohmann::json streams = config.value("NUM_STREAMS", nlohmann::json("AUTO"));
    c.streams = plan_streams(streams.is_number_integer() ? streams.get<int64_t>() : 0, c.performance_hint != "LATENCY",
                             budget);
    c.precision = config.value("INFERENCE_PRECISION_HINT", std::string("f32"));
    // The integer kernels scale chunks of 32 activations: a group is a whole number of them.
    c.dynamic_quantization_group = config.value("DYNAMIC_QUANTIZATION_GROUP_SIZE", int64_t{0});
    c.memory_limit = static_cast<uint64_t>(config.value("DEVICE_MEMORY_LIMIT", int64_t{0}));  // declared >= 0
    c.weights_in_place = config.value("CPU_WEIGHTS_IN_PLACE", false);
    if (c.dynamic_quantization_group % 32 != 0)
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                         "property 'DYNAMIC_QUANTIZATION_GROUP_SIZE' must be 0 (activations stay f32) or a multiple of "
                         "32, got " + std::to_string(c.dynamic_quantization_group));
    return c;
}

ThreadScope::ThreadScope(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(threads); }

ThreadScope::~ThreadScope() { omp_set_num_threads(saved_); }

}  // namespace mosaic::cpu_plugin
