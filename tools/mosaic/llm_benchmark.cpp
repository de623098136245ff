#include "llm_benchmark.hpp"

#include "common.hpp"

#include <mosaic/genai/continuous_batching_pipeline.hpp>
#include <mosaic/genai/llm_pipeline.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

namespace mosaic::cli {

namespace {

// Text of every kind a tokenizer meets (words, digits, punctuation, code), tokenized once and
// repeated to the prompt's length: every runtime and round gets the same ids.
constexpr const char* kPassage =
    "The history of computing is a story of abstraction: from switches to transistors, from machine "
    "code to compilers, from single machines to clusters of 1,024 nodes. def add(a, b): return a + b "
    "# Each layer hides the one below it, and each brings its own costs - latency, memory, energy.";

struct Spread {
    double mean = 0, std = 0;
};

Spread spread(const std::vector<double>& v) {
    Spread s;
    for (double x : v) s.mean += x;
    s.mean /= static_cast<double>(v.size());
    for (double x : v) s.std += (x - s.mean) * (x - s.mean);
    s.std = std::sqrt(s.std / static_cast<double>(v.size()));
    return s;
}

std::string fmt(const Spread& s, const char* unit) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.2f +/- %.2f %s", s.mean, s.std, unit);
    return buf;
}

std::vector<int64_t> prompt_ids(const genai::Tokenizer& tokenizer, const std::string& model, int64_t length) {
    const std::vector<int64_t> passage = tokenizer.encode(kPassage, false);
    if (passage.empty()) throw std::runtime_error(model + ": the tokenizer gives no ids for the benchmark's passage");
    std::vector<int64_t> ids(static_cast<size_t>(length));
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = passage[i % passage.size()];
    return ids;
}

// N requests of the prompt together: a round is generate() of all of them; its tokens/s count
// every request's new tokens over the round's time, prompts' steps included.
void run_batched(const LlmBenchmarkOptions& opts) {
    const auto start = std::chrono::steady_clock::now();
    genai::ContinuousBatchingPipeline pipe(opts.model, {static_cast<size_t>(opts.requests)}, opts.device, opts.properties);
    const double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::vector<int64_t> ids = prompt_ids(pipe.get_tokenizer(), opts.model, opts.prompt_length);
    genai::GenerationConfig config = pipe.get_config();
    config.update({{"max_new_tokens", opts.new_tokens}, {"ignore_eos", true}, {"do_sample", false}}, "mosaic benchmark");
    const std::vector<std::vector<int64_t>> prompts(static_cast<size_t>(opts.requests), ids);
    std::cout << "[ INFO ] LLM " << opts.model << " on " << opts.device << ": " << opts.requests
              << " requests together (continuous batching), prompt of " << opts.prompt_length << " tokens, "
              << opts.new_tokens << " new tokens each, " << opts.rounds << " rounds after a warm-up\n"
              << "[ INFO ] Load time: " << static_cast<int64_t>(load_ms) << " ms\n";
    pipe.generate(prompts, {config});  // warm-up: compiles the shapes the rounds use
    std::vector<double> round_ms, rate;
    for (int64_t r = 0; r < opts.rounds; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        pipe.generate(prompts, {config});
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        round_ms.push_back(ms);
        rate.push_back(static_cast<double>(opts.requests * opts.new_tokens) * 1000.0 / ms);
    }
    const Spread g = spread(round_ms), s = spread(rate);
    std::cout << "[ INFO ] Generate time (all requests): " << fmt(g, "ms") << "\n"
              << "[ INFO ] Throughput (all requests, prompts included): " << fmt(s, "tokens/s") << "\n"
              << "[ INFO ] Peak memory: " << static_cast<int64_t>(peak_rss_mib()) << " MiB\n";
    if (!opts.report.empty()) {
        const auto pair = [](const Spread& x) { return PropertyValue{{"mean", x.mean}, {"std", x.std}}; };
        const PropertyValue report = {{"model", opts.model},          {"device", opts.device},
                                      {"requests", opts.requests},    {"prompt_tokens", opts.prompt_length},
                                      {"new_tokens", opts.new_tokens}, {"rounds", opts.rounds},
                                      {"load_ms", load_ms},           {"generate_ms", pair(g)},
                                      {"tokens_per_s", pair(s)},      {"peak_rss_mib", peak_rss_mib()}};
        write_text_file(opts.report, report.dump(2) + "\n");
        std::cout << "Report written to " << opts.report << "\n";
    }
}

}  // namespace

double peak_rss_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
}

void run_llm_benchmark(const LlmBenchmarkOptions& opts) {
    if (opts.prompt_length < 1) throw UsageError("--prompt_length must be at least 1, got " + std::to_string(opts.prompt_length));
    if (opts.new_tokens < 1) throw UsageError("--new_tokens must be at least 1, got " + std::to_string(opts.new_tokens));
    if (opts.rounds < 1) throw UsageError("-niter (rounds) must be at least 1, got " + std::to_string(opts.rounds));
    if (opts.requests < 1 || opts.requests > 1024)
        throw UsageError("--requests must be 1 to 1024, got " + std::to_string(opts.requests));
    if (opts.requests > 1) return run_batched(opts);
    const auto start = std::chrono::steady_clock::now();
    genai::LLMPipeline pipe(opts.model, opts.device, opts.properties);
    const double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    const std::vector<int64_t> ids = prompt_ids(pipe.get_tokenizer(), opts.model, opts.prompt_length);
    genai::GenerationConfig config = pipe.get_generation_config();
    config.update({{"max_new_tokens", opts.new_tokens}, {"ignore_eos", true}, {"do_sample", false}}, "mosaic benchmark");

    std::cout << "[ INFO ] LLM " << opts.model << " on " << pipe.device() << ": prompt of " << opts.prompt_length
              << " tokens, " << opts.new_tokens << " new tokens, " << opts.rounds << " rounds after a warm-up\n"
              << "[ INFO ] Load time: " << static_cast<int64_t>(load_ms) << " ms\n";
    pipe.generate(ids, config);  // warm-up: compiles the shapes the rounds use
    std::vector<double> ttft, tpot, throughput, generate;
    for (int64_t r = 0; r < opts.rounds; ++r) {
        const genai::PerfMetrics perf = pipe.generate(ids, config).perf_metrics;
        ttft.push_back(perf.ttft_ms);
        tpot.push_back(perf.tpot_ms);
        throughput.push_back(perf.throughput);
        generate.push_back(perf.generate_ms);
    }
    const Spread t = spread(ttft), p = spread(tpot), s = spread(throughput), g = spread(generate);
    std::cout << "[ INFO ] Generate time: " << fmt(g, "ms") << "\n"
              << "[ INFO ] TTFT: " << fmt(t, "ms") << "\n"
              << "[ INFO ] TPOT: " << fmt(p, "ms/token") << "\n"
              << "[ INFO ] Throughput: " << fmt(s, "tokens/s") << "\n"
              << "[ INFO ] Peak memory: " << static_cast<int64_t>(peak_rss_mib()) << " MiB\n";
    if (!opts.report.empty()) {
        const auto pair = [](const Spread& x) { return PropertyValue{{"mean", x.mean}, {"std", x.std}}; };
        const PropertyValue report = {{"model", opts.model},
                                      {"device", pipe.device()},
                                      {"prompt_tokens", opts.prompt_length},
                                      {"new_tokens", opts.new_tokens},
                                      {"rounds", opts.rounds},
                                      {"load_ms", load_ms},
                                      {"generate_ms", pair(g)},
                                      {"ttft_ms", pair(t)},
                                      {"tpot_ms", pair(p)},
                                      {"decode_tokens_per_s", pair(s)},
                                      {"peak_rss_mib", peak_rss_mib()}};
        write_text_file(opts.report, report.dump(2) + "\n");
        std::cout << "Report written to " << opts.report << "\n";
    }
}

}  // namespace mosaic::cli
