// A load of many inference requests from several threads over a mix of compiled models, each
// output checked bit for bit against what one request computes serially for the same input.
//
// Request i (0 .. threads x per_thread - 1; thread t issues t x per_thread .. ) runs model i % M on
// input variant i % V (V prime, so every model sees every variant, and requests in flight at once
// almost never share an input: a result handed to the wrong request is caught), completed the way
// (i / M) % 3 says: infer(), start_async() + wait(), or start_async() with the callback reading the
// outputs on the device's thread. Each model has a few requests that all threads share; a thread
// takes whichever is free.
#pragma once

#include "stress/stress_models.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mosaic::test::stress {

// Every output of one inference, as raw bytes: equality is bit-identity (NaN and -0 included).
using OutputBytes = std::vector<std::vector<unsigned char>>;

struct LoadResult {
    int64_t requests = 0;  // completed and compared
    double seconds = 0;    // wall time of the whole load
    int64_t mismatches = 0;
    std::vector<std::string> problems;  // the first few mismatches and errors, described
    double requests_per_second() const { return seconds > 0 ? static_cast<double>(requests) / seconds : 0; }
};

class StressLoad {
public:
    static constexpr int kVariants = 251;         // distinct inputs per model at most (prime, see above)
    static constexpr int kRequestsPerModel = 3;   // shared by all threads

    // Compiles the mix on `device` and creates its shared requests.
    StressLoad(Core& core, const std::string& device);
    ~StressLoad();

    // Computes the serial results of the first `variants` inputs of every model with one request
    // each, infer() after infer(); returns the load of that pass (requests and time).
    LoadResult compute_serial(int variants = kVariants);
    // Runs the load; only variants computed by compute_serial() may be used.
    LoadResult run(int threads, int64_t per_thread);

    const std::vector<StressModel>& models() const { return models_; }
    const CompiledModel& compiled(size_t model) const;

    struct Slot;  // one shared request (stress_load.cpp)

private:
    struct Compiled;
    void run_thread(int thread, int64_t per_thread, LoadResult& result);
    // Runs request `index` and compares it; throws what the request throws.
    void run_one(int64_t index, int thread, LoadResult& result);

    std::vector<StressModel> models_;
    std::vector<std::unique_ptr<Compiled>> compiled_;
    int variants_ = 0;  // computed by compute_serial
};

// Every output tensor of `request` as bytes.
OutputBytes output_bytes(const InferRequest& request, size_t outputs);

}  // namespace mosaic::test::stress
