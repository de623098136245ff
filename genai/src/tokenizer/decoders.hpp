// tokenizer.json's "decoder": turns the tokens of ids back into text, each step rewriting the list
// of tokens as HF's decode_chain does; the result is their concatenation.
#pragma once

#include "tokenizer/tokenizer_json.hpp"

#include <memory>
#include <string>
#include <vector>

namespace mosaic::genai::tokenizer {

class Decoder {
public:
    virtual ~Decoder() = default;
    virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
};

// Null for a JSON null; TokenizerError for a type not implemented.
std::unique_ptr<Decoder> make_decoder(const JsonNode& node);

}  // namespace mosaic::genai::tokenizer
