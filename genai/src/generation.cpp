#include "generation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mosaic::genai {

namespace {

// log(softmax(logits))[token]: the score of a chosen token, from the logits it was chosen from.
float log_probability(const std::vector<float>& logits, int64_t token) {
    const float top = *std::max_element(logits.begin(), logits.end());
    double sum = 0;
    for (float l : logits) sum += std::exp(static_cast<double>(l - top));
    return static_cast<float>(logits[static_cast<size_t>(token)] - top - std::log(sum));
}

size_t longest(const GenerationConfig& config, std::optional<size_t> model_limit) {
    return std::min(config.max_length, model_limit.value_or(std::numeric_limits<size_t>::max()));
}

}  // namespace

FolderGeneration read_generation(const std::filesystem::path& folder) {
    FolderGeneration g{GenerationConfig::from_folder(folder), std::nullopt};
    if (!std::filesystem::exists(folder / "tokenizer.json")) return g;
    g.tokenizer.emplace(folder);
    if (!g.config.eos_token_id && g.tokenizer->eos_token_id()) {
        g.config.eos_token_id = g.tokenizer->eos_token_id();
        g.config.stop_token_ids.insert(*g.config.eos_token_id);
    }
    return g;
}

GenerationConfig checked_config(GenerationConfig config, size_t prompt_length, std::optional<size_t> model_limit) {
    config.validate();
    if (config.eos_token_id) config.stop_token_ids.insert(*config.eos_token_id);  // however it was set
    if (prompt_length == 0) throw std::invalid_argument("the prompt is empty: give at least one token");
    // The longest sequence: the model's (config.json), and the config's max_length.
    const size_t limit = longest(config, model_limit);
    if (prompt_length >= limit)
        throw std::invalid_argument("the prompt has " + std::to_string(prompt_length) + " tokens; " +
                                    (model_limit == limit ? "the model's maximum length (config.json) is "
                                                          : "max_length is ") +
                                    std::to_string(limit) + ", which leaves no room for a new token");
    return config;
}

Generation::Generation(const GenerationConfig& config, const std::vector<int64_t>& prompt,
                       std::optional<size_t> model_limit, const Tokenizer* tokenizer, bool want_text)
    : config_(config), new_limit_(std::min(config.max_new_tokens, longest(config, model_limit) - prompt.size())),
      sampler_(config), context_(prompt) {
    if (tokenizer && (want_text || !config.stop_strings.empty()))
        stream_.emplace(*tokenizer, config.stop_strings, config.include_stop_str_in_output);
}

Generation::Token Generation::next(std::vector<float>& logits) {
    Token t;
    t.id = sampler_.next(logits, context_, generated_);
    score_ += log_probability(logits, t.id);
    generated_.push_back(t.id);
    context_.push_back(t.id);
    const bool stop_id = !config_.ignore_eos && config_.stop_token_ids.count(t.id) > 0;
    t.last = stop_id || generated_.size() >= new_limit_;
    if (stream_) {
        const auto start = std::chrono::steady_clock::now();
        // A stop id ends the text before its own (the id stays among the tokens, as transformers
        // returns it).
        t.piece = stop_id ? std::string() : stream_->advance(generated_);
        t.last = t.last || stream_->stopped();
        if (t.last) t.piece += stream_->finish();
        detokenization_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    return t;
}

}  // namespace mosaic::genai
