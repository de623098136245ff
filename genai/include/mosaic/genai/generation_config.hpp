// What one generate() call does: how many tokens, greedy or sampled, when to stop. Named as
// OpenVINO GenAI's ov::genai::GenerationConfig, so that code and JSON carry over; read from a model
// folder's generation_config.json (Hugging Face's) and updated by name.
#pragma once

#include <mosaic/properties.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace mosaic::genai {

// A generation parameter that is unknown, of the wrong type or out of range; the message names it.
class GenerationConfigError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

struct GenerationConfig {
    // Length. Generation ends at whichever comes first: max_new_tokens new tokens, or a sequence
    // (prompt included) of max_length tokens.
    size_t max_new_tokens = std::numeric_limits<size_t>::max();
    size_t max_length = std::numeric_limits<size_t>::max();
    size_t min_new_tokens = 0;  // end-of-sequence ids are not chosen before this many
    bool ignore_eos = false;

    // Stopping. eos_token_id (from generation_config.json or the tokenizer) and stop_token_ids end
    // the generation when chosen (the id is returned, its text is not); a stop string ends it when
    // the text generated so far contains it.
    std::optional<int64_t> eos_token_id;
    std::set<int64_t> stop_token_ids;
    std::set<std::string> stop_strings;
    bool include_stop_str_in_output = false;

    // Choosing: greedy (the largest logit, the first on ties) unless do_sample. Sampling applies, in
    // this order as Hugging Face's generate does, the repetition penalty, the temperature, top_k,
    // top_p, then draws from the softmax with a generator seeded by rng_seed.
    bool do_sample = false;
    float temperature = 1.0f;
    size_t top_k = 0;   // 0: every token
    float top_p = 1.0f;
    float repetition_penalty = 1.0f;  // > 1 makes tokens already in the sequence less likely
    float presence_penalty = 0.0f;    // subtracted once from each token already generated
    float frequency_penalty = 0.0f;   // subtracted per occurrence in what was generated
    uint64_t rng_seed = 0;

    size_t num_return_sequences = 1;  // only 1 (one sequence per prompt)
    size_t num_beams = 1;             // only 1: beam search is not implemented

    bool is_greedy_decoding() const { return !do_sample && num_beams == 1; }

    // Throws GenerationConfigError naming the parameter and the allowed values.
    void validate() const;

    // Sets parameters by their names above (OpenVINO GenAI's keys and those of Hugging Face's
    // generation_config.json; eos_token_id may be a list, whose first id becomes eos_token_id and
    // every id a stop id). An unknown name, or a value of the wrong type, throws
    // GenerationConfigError; `source` prefixes the message (a file name).
    void update(const AnyMap& parameters, const std::string& source = "generation parameters");

    // A model folder's generation_config.json; the defaults when the file is absent. Its keys named
    // above are read as update() reads them; the others transformers writes (transformers_version,
    // bos_token_id, pad_token_id, settings of decoding strategies Mosaic does not have) are ignored.
    static GenerationConfig from_folder(const std::filesystem::path& folder);
};

}  // namespace mosaic::genai
