// mosaic generate -m MODEL_DIR -d DEVICE -p "PROMPT" [-n N] [--config FILE.json]
//                 [--temperature T --top-k K --top-p P --repetition-penalty R --seed S] [--json]:
// text generation with a decoder LLM folder (optimum's ONNX or optimum-intel's IR, with its
// tokenizer), streamed as it comes; then time to first token, decode tokens/s and peak memory.
// --json prints {"text", "tokens", "ttft_ms", "decode_tokens_per_s", ...} instead.
#include "commands.hpp"
#include "config_file.hpp"
#include "llm_benchmark.hpp"

#include <mosaic/genai/llm_pipeline.hpp>

#include <iostream>
#include <memory>
#include <optional>

namespace mosaic::cli {

namespace {

struct GenerateOptions {
    std::string model, device = "CPU", prompt, config;
    std::optional<size_t> max_new_tokens, top_k;
    std::optional<float> temperature, top_p, repetition_penalty;
    std::optional<uint64_t> seed;
    bool json = false;
};

void run_generate(const GenerateOptions& opts) {
    const AnyMap properties = opts.config.empty() ? AnyMap{} : load_config(opts.config, opts.device);
    genai::LLMPipeline pipe(opts.model, opts.device, properties);
    AnyMap parameters;
    if (opts.max_new_tokens) parameters["max_new_tokens"] = *opts.max_new_tokens;
    // A sampling option asks for sampling; without one the model's generation_config.json decides.
    if (opts.temperature) parameters["temperature"] = *opts.temperature;
    if (opts.top_k) parameters["top_k"] = *opts.top_k;
    if (opts.top_p) parameters["top_p"] = *opts.top_p;
    if (opts.seed) parameters["rng_seed"] = *opts.seed;
    if (opts.temperature || opts.top_k || opts.top_p || opts.seed) parameters["do_sample"] = true;
    if (opts.repetition_penalty) parameters["repetition_penalty"] = *opts.repetition_penalty;
    genai::GenerationConfig config = pipe.get_generation_config();
    config.update(parameters, "mosaic generate");

    genai::StreamerFunction streamer;
    if (!opts.json)
        streamer = [](const std::string& piece) {
            std::cout << piece << std::flush;
            return genai::StreamingStatus::RUNNING;
        };
    const genai::DecodedResults result = pipe.generate(opts.prompt, config, streamer);
    const genai::PerfMetrics& perf = result.perf_metrics;
    if (opts.json) {
        const nlohmann::json out = {{"text", result.texts.front()},
                                    {"tokens", perf.num_generated_tokens},
                                    {"input_tokens", perf.num_input_tokens},
                                    {"ttft_ms", perf.ttft_ms},
                                    {"decode_tokens_per_s", perf.throughput},
                                    {"generate_ms", perf.generate_ms},
                                    {"peak_rss_mib", peak_rss_mib()},
                                    {"device", pipe.device()}};
        std::cout << out.dump(1) << "\n";
        return;
    }
    std::cout << "\n\n[ INFO ] Device: " << pipe.device() << "\n"
              << "[ INFO ] Input tokens: " << perf.num_input_tokens << ", generated tokens: " << perf.num_generated_tokens
              << "\n[ INFO ] Time to first token: " << perf.ttft_ms << " ms\n"
              << "[ INFO ] Decode: " << perf.throughput << " tokens/s (" << perf.tpot_ms << " ms per token)\n"
              << "[ INFO ] Peak memory: " << peak_rss_mib() << " MiB\n";
}

}  // namespace

void add_generate_command(CLI::App& app) {
    auto opts = std::make_shared<GenerateOptions>();
    CLI::App* cmd = app.add_subcommand("generate", "Generate text with a decoder LLM folder (optimum ONNX or OpenVINO IR)");
    cmd->add_option("-m,--model", opts->model, "Model folder (model.onnx or openvino_model.xml, tokenizer.json)")->required();
    cmd->add_option("-d,--device", opts->device, "Device string, e.g. CPU, GPU or HETERO:GPU,CPU")->capture_default_str();
    cmd->add_option("-p,--prompt", opts->prompt, "The text to continue")->required();
    cmd->add_option("-n,--max-new-tokens", opts->max_new_tokens, "At most this many new tokens");
    cmd->add_option("--config", opts->config, "JSON file of compile properties: {\"KEY\": value} or {\"DEVICE\": {...}}");
    cmd->add_option("--temperature", opts->temperature, "Sample at this temperature (> 0)");
    cmd->add_option("--top-k", opts->top_k, "Sample among the K likeliest tokens");
    cmd->add_option("--top-p", opts->top_p, "Sample among the likeliest tokens whose probability reaches P");
    cmd->add_option("--repetition-penalty", opts->repetition_penalty, "> 1 makes repeated tokens less likely");
    cmd->add_option("--seed", opts->seed, "Seed of the sampling");
    cmd->add_flag("--json", opts->json, "Print the text and the figures as one JSON object, nothing streamed");
    cmd->callback([opts] { run_generate(*opts); });
}

}  // namespace mosaic::cli
