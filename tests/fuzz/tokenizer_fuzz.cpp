// The tokenizer (genai/src/tokenizer): an input is a tokenizer.json, a NUL byte, then text. A file
// it cannot use and text that is not UTF-8 are refused with TokenizerError; otherwise the ids it
// gives decode without error, and every id is in its vocabulary.
#include "fuzz_scratch.hpp"
#include "fuzz_targets.hpp"

#include <mosaic/genai/tokenizer.hpp>

#include <string>

namespace mosaic::fuzz {

void tokenizer(const uint8_t* data, size_t size) {
    const auto [json, text] = split_at_nul(data, size);
    std::optional<genai::Tokenizer> t;
    try {
        t.emplace(write_scratch("tokenizer/tokenizer.json", json));
    } catch (const genai::TokenizerError&) {
        return;  // the file, refused naming what is wrong with it
    }
    std::vector<int64_t> ids;
    try {
        ids = t->encode(std::string(text), true);
    } catch (const genai::TokenizerError&) {
        return;  // text that is not UTF-8, or a token the vocabulary lacks (no unk_token, no byte fallback)
    }
    for (int64_t id : ids)
        if (id < 0 || static_cast<size_t>(id) >= t->vocab_size())
            report_finding("tokenizer", "encode gave id " + std::to_string(id) + " of a vocabulary of " +
                                            std::to_string(t->vocab_size()));
    try {
        t->decode(ids, false);
        t->decode(ids, true);
    } catch (const genai::TokenizerError& e) {
        report_finding("tokenizer", std::string("the ids encode gave do not decode: ") + e.what());
    }
}

}  // namespace mosaic::fuzz
