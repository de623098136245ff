// The LLM mode of `mosaic benchmark`: -m names a decoder LLM folder (what `mosaic generate` reads).
// Greedy generations of a fixed prompt length and number of new tokens (end-of-sequence ignored),
// a warm-up round then the measured rounds, each from token ids (a passage tokenized by the model's
// tokenizer, repeated to the length): load time, time to the first token, time per output token
// and decode throughput as mean and spread over the rounds, and the peak memory, as OpenVINO
// GenAI's benchmark_genai reports them. With --requests N, N requests decoded together.
#pragma once

#include <mosaic/core.hpp>

#include <cstdint>
#include <string>

namespace mosaic::cli {

struct LlmBenchmarkOptions {
    std::string model, device;
    AnyMap properties;  // compile properties (--config, -nthreads, -infer_precision)
    int64_t prompt_length = 128, new_tokens = 64, rounds = 3;
    // Above 1: that many requests of the prompt at once through ContinuousBatchingPipeline; a
    // round's figures are then the requests' together (tokens/s of all of them).
    int64_t requests = 1;
    std::string report;  // JSON summary, when given
};

void run_llm_benchmark(const LlmBenchmarkOptions& opts);

// Peak resident memory of this process so far, in MiB.
double peak_rss_mib();

}  // namespace mosaic::cli
