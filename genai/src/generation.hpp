// One sequence's generation after its prompt's step: the sampler, the tokens so far, the stop
// conditions (stop ids, max_new_tokens, the model's length, stop strings) and the text as it grows.
// The loop around it runs the model: LLMPipeline's one sequence, or one row of
// ContinuousBatchingPipeline's batch.
#pragma once

#include <mosaic/genai/generation_config.hpp>
#include <mosaic/genai/tokenizer.hpp>

#include "sampler.hpp"
#include "text_stream.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mosaic::genai {

// A model folder's generation_config.json and tokenizer (tokenizer.json; none when absent). Hugging
// Face's generation_config.json usually names the end-of-sequence id; when it does not, the
// tokenizer's eos_token does.
struct FolderGeneration {
    GenerationConfig config;
    std::optional<Tokenizer> tokenizer;
};
FolderGeneration read_generation(const std::filesystem::path& folder);

// `config` validated, with its eos_token_id among the stop ids. Throws std::invalid_argument when
// the prompt is empty or leaves no room for a new token under the model's longest sequence
// (`model_limit`) or max_length.
GenerationConfig checked_config(GenerationConfig config, size_t prompt_length, std::optional<size_t> model_limit);

class Generation {
public:
    // `config` from checked_config. `tokenizer` (may be null) decodes the text, needed where
    // `want_text` or the config has stop strings.
    Generation(const GenerationConfig& config, const std::vector<int64_t>& prompt, std::optional<size_t> model_limit,
               const Tokenizer* tokenizer, bool want_text);

    struct Token {
        int64_t id = 0;
        std::string piece;  // the text it adds (held back while a character or stop string may continue)
        bool last = false;  // the generation ends with it
    };
    // Chooses the next token from the logits of the last position (changed in place by the sampler).
    Token next(std::vector<float>& logits);

    const std::vector<int64_t>& generated() const { return generated_; }
    const std::vector<int64_t>& context() const { return context_; }  // prompt and generated
    float score() const { return score_; }  // the sum of the chosen tokens' log-probabilities
    std::string text() const { return stream_ ? stream_->text() : std::string(); }
    double detokenization_ms() const { return detokenization_ms_; }

private:
    GenerationConfig config_;
    size_t new_limit_;
    Sampler sampler_;
    std::vector<int64_t> context_, generated_;
    std::optional<TextStream> stream_;
    float score_ = 0;
    double detokenization_ms_ = 0;
};

}  // namespace mosaic::genai
