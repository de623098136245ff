// tokenizer.json's "normalizer": rewrites each stretch of text between added tokens before it is
// pre-tokenized. Only the text matters here (HF also keeps offsets, which encode does not return).
#pragma once

#include "tokenizer/tokenizer_json.hpp"

#include <memory>
#include <string>

namespace mosaic::genai::tokenizer {

class Normalizer {
public:
    virtual ~Normalizer() = default;
    virtual void normalize(std::string& text) const = 0;
};

// Null for a JSON null; TokenizerError for a type not implemented.
std::unique_ptr<Normalizer> make_normalizer(const JsonNode& node);

}  // namespace mosaic::genai::tokenizer
