// The choice of the next token from one position's logits, as GenerationConfig says: greedy, or
// sampled after the penalties, the temperature, top_k and top_p, in Hugging Face's order.
#pragma once

#include <mosaic/genai/generation_config.hpp>

#include <cstdint>
#include <random>
#include <vector>

namespace mosaic::genai {

class Sampler {
public:
    // `config` must be valid (GenerationConfig::validate); the generator is seeded by its rng_seed.
    explicit Sampler(const GenerationConfig& config);

    // The next token. `logits` (one per vocabulary entry) is changed in place by the penalties and
    // the temperature. `context` is the sequence so far (prompt and generated), which the repetition
    // penalty reads; `generated` the tokens generated so far, which presence and frequency penalties
    // read and min_new_tokens counts.
    int64_t next(std::vector<float>& logits, const std::vector<int64_t>& context, const std::vector<int64_t>& generated);

private:
    void apply_penalties(std::vector<float>& logits, const std::vector<int64_t>& context,
                         const std::vector<int64_t>& generated) const;
    int64_t draw(const std::vector<float>& logits);

    GenerationConfig config_;
    std::mt19937_64 random_;
};

}  // namespace mosaic::genai
