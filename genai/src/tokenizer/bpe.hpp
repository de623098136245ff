// tokenizer.json's "model" of type BPE: a word's characters merged pair by pair, the pair of lowest
// rank first, as HF's Word::merge_all does (so ties and overlapping pairs come out the same).
#pragma once

#include "tokenizer/tokenizer_json.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mosaic::genai::tokenizer {

class Bpe {
public:
    // TokenizerError for a model type other than BPE, a dropout, or merges naming unknown tokens.
    explicit Bpe(const JsonNode& node);

    // Appends the ids of one pre-tokenized piece.
    void tokenize(std::string_view word, std::vector<int64_t>& ids) const;

    std::optional<int64_t> token_to_id(const std::string& token) const;
    const std::string* id_to_token(int64_t id) const;
    int64_t max_id() const { return static_cast<int64_t>(tokens_.size()) - 1; }

private:
    struct Merge {
        uint32_t rank, id;
    };
    static uint64_t pair_key(uint32_t a, uint32_t b) { return (static_cast<uint64_t>(a) << 32) | b; }
    const Merge* merge_of(uint32_t a, uint32_t b) const;
    // The word's characters (with the subword prefix and suffix) as ids, through byte fallback and
    // the unknown token.
    std::vector<uint32_t> characters(std::string_view word) const;

    std::unordered_map<std::string, uint32_t> vocab_;
    std::vector<std::string> tokens_;  // by id; vocabularies are dense in practice
    std::vector<bool> has_id_;
    std::unordered_map<uint64_t, Merge> merges_;
    std::optional<std::string> unk_token_, prefix_, suffix_;
    bool fuse_unk_ = false, byte_fallback_ = false, ignore_merges_ = false;
    std::vector<int64_t> byte_ids_;  // <0xXX> of each byte, -1 where the vocabulary lacks it
};

}  // namespace mosaic::genai::tokenizer
