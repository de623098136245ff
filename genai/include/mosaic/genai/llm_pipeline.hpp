// Text generation with a decoder LLM, shaped as OpenVINO GenAI's ov::genai::LLMPipeline:
//
//   mosaic::genai::LLMPipeline pipe("TinyLlama-ov", "CPU");
//   mosaic::genai::GenerationConfig config = pipe.get_generation_config();
//   config.max_new_tokens = 64;
//   std::string text = pipe.generate("The Sun is", config, [](const std::string& piece) {
//       std::cout << piece << std::flush;
//       return mosaic::genai::StreamingStatus::RUNNING;
//   });
//
// The model folder is what optimum writes: openvino_model.xml (optimum-intel's stateful IR) or
// model.onnx (optimum's ONNX with past_key_values), config.json, generation_config.json, and the
// tokenizer (tokenizer.json, tokenizer_config.json). Any Mosaic device runs it ("CPU", "GPU",
// "HETERO:GPU,CPU", ...), compiled with the properties given.
#pragma once

#include <mosaic/genai/generation_config.hpp>
#include <mosaic/genai/tokenizer.hpp>
#include <mosaic/properties.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mosaic::genai {

// What a streamer returns after each piece of text: go on, stop here (the text so far is the
// result), or cancel (the same, and the chat history forgets this turn).
enum class StreamingStatus { RUNNING, STOP, CANCEL };
// Called with each piece of new text as soon as it is whole UTF-8 (a token that ends inside a
// character waits for the next one) and past any stop string it could still begin.
using StreamerFunction = std::function<StreamingStatus(const std::string& piece)>;

// Times of one generate() call, in milliseconds, as OpenVINO GenAI's PerfMetrics report them.
struct PerfMetrics {
    size_t num_input_tokens = 0;
    size_t num_generated_tokens = 0;
    double ttft_ms = 0;          // from the call to the first new token (tokenizing and the prompt's step)
    double tpot_ms = 0;          // mean time per new token after the first
    double throughput = 0;       // new tokens per second after the first (1000 / tpot_ms)
    double generate_ms = 0;      // the whole call
    double tokenization_ms = 0;
    double detokenization_ms = 0;
    std::vector<double> token_ms;  // each new token's time, the first included
};

struct EncodedResults {
    std::vector<std::vector<int64_t>> tokens;  // one sequence per prompt: the new tokens only
    std::vector<float> scores;                 // the sum of the chosen tokens' log-probabilities
    PerfMetrics perf_metrics;
};

struct DecodedResults {
    std::vector<std::string> texts;
    std::vector<float> scores;
    PerfMetrics perf_metrics;
    operator std::string() const { return texts.empty() ? std::string() : texts.front(); }
};

class LLMPipeline {
public:
    // Reads the folder's model, generation_config.json and tokenizer (a folder without tokenizer.json
    // can still generate from token ids), and compiles the model on `device`. Throws
    // std::runtime_error naming the folder or file at fault.
    LLMPipeline(const std::filesystem::path& model_dir, const std::string& device, const AnyMap& properties = {});
    ~LLMPipeline();
    LLMPipeline(LLMPipeline&&) noexcept;
    LLMPipeline& operator=(LLMPipeline&&) noexcept;

    // Generates a continuation of `prompt` (in a chat, the next turn: the chat template renders the
    // history). One call at a time: concurrent calls wait for each other. A streamer may read the
    // generation config, but must not generate, start or finish a chat (that waits for itself).
    DecodedResults generate(const std::string& prompt, const GenerationConfig& config, StreamerFunction streamer = {});
    DecodedResults generate(const std::string& prompt) { return generate(prompt, get_generation_config()); }
    // The same from token ids, without the tokenizer (a stop string then needs one).
    EncodedResults generate(const std::vector<int64_t>& input_ids, const GenerationConfig& config,
                            StreamerFunction streamer = {});
    // generate(prompt, {{"max_new_tokens", 64}, {"temperature", 0.7}, ...}): the pipeline's config
    // updated by name (GenerationConfig::update: an unknown name throws).
    DecodedResults generate(const std::string& prompt, const AnyMap& parameters, StreamerFunction streamer = {});

    GenerationConfig get_generation_config() const;
    void set_generation_config(const GenerationConfig& config);
    // Throws std::runtime_error when the folder has no tokenizer.json.
    const Tokenizer& get_tokenizer() const;
    bool has_tokenizer() const;
    const std::string& device() const;

    // A conversation: each generate(prompt) is a user turn, rendered with the history through the
    // tokenizer's chat template (tokenizer_config.json's chat_template), until finish_chat().
    void start_chat(const std::string& system_message = "");
    void finish_chat();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace mosaic::genai
