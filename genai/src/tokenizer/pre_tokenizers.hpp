// tokenizer.json's "pre_tokenizer": cuts each normalized stretch into the pieces the model
// tokenizes one by one (words), rewriting them on the way (ByteLevel, Metaspace).
#pragma once

#include "tokenizer/tokenizer_json.hpp"

#include <memory>
#include <string>
#include <vector>

namespace mosaic::genai::tokenizer {

struct Piece {
    std::string text;
    // Begins where the input begins: Metaspace's prepend_scheme "first" adds its ▁ to this piece only.
    bool first = false;
};

class PreTokenizer {
public:
    virtual ~PreTokenizer() = default;
    virtual void pre_tokenize(std::vector<Piece>& pieces) const = 0;
};

// Null for a JSON null; TokenizerError for a type not implemented.
std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonNode& node);

}  // namespace mosaic::genai::tokenizer
