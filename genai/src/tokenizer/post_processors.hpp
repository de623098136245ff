// tokenizer.json's "post_processor": what encode adds around a single sequence's ids when asked for
// special tokens (a BOS id, a CLS and SEP pair). Offsets and type ids, which HF also sets, are not
// returned here.
#pragma once

#include "tokenizer/tokenizer_json.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace mosaic::genai::tokenizer {

class PostProcessor {
public:
    virtual ~PostProcessor() = default;
    // Only called with add_special_tokens: without them every processor leaves ids as they are.
    virtual void add_special_tokens(std::vector<int64_t>& ids) const = 0;
};

// Null for a JSON null; TokenizerError for a type not implemented.
std::unique_ptr<PostProcessor> make_post_processor(const JsonNode& node);

}  // namespace mosaic::genai::tokenizer
