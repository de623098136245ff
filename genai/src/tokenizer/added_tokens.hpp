// tokenizer.json's "added_tokens": strings that become one id wherever they appear (the special
// tokens and any a fine-tune added), found before the normalizer runs as HF's AddedVocabulary
// finds them: the longest at the leftmost place, honouring single_word, lstrip and rstrip.
#pragma once

#include "tokenizer/normalizers.hpp"
#include "tokenizer/tokenizer_json.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace mosaic::genai::tokenizer {

struct AddedToken {
    std::string content;
    int64_t id = 0;
    bool single_word = false, lstrip = false, rstrip = false, normalized = true, special = false;
};

// A stretch of the input after added tokens were taken out: a token's id, or normalized text.
struct Segment {
    std::string text;
    std::optional<int64_t> id;
    bool first = false;  // the text begins where the input begins
};

class AddedVocabulary {
public:
    AddedVocabulary() = default;
    // `normalizer` (may be null) rewrites the tokens marked "normalized", which are then looked for
    // in normalized text.
    AddedVocabulary(const JsonNode& list, const Normalizer* normalizer);

    // HF's extract_and_normalize: the tokens not normalized are taken out of the input, the rest is
    // normalized piece by piece, then the normalized tokens are taken out of that. Empty text goes.
    std::vector<Segment> split(const std::string& text, const Normalizer* normalizer) const;

    const AddedToken* find(int64_t id) const;
    std::optional<int64_t> id_of(const std::string& content) const;
    bool is_special(const std::string& content) const { return special_.count(content) != 0; }
    std::optional<int64_t> max_id() const;

private:
    // A byte trie over the tokens' patterns, for the longest one starting at a place.
    struct Trie {
        struct Node {
            std::map<unsigned char, int> next;
            int token = -1;  // index into tokens_ of the pattern ending here
        };
        std::vector<Node> nodes{1};
        void insert(const std::string& pattern, int token);
        // The longest pattern starting at text[at]: (token, end), or token -1.
        std::pair<int, size_t> longest(const std::string& text, size_t at) const;
        bool empty() const { return nodes.size() == 1; }
    };
    struct Found {
        size_t begin, end;
        std::optional<int64_t> id;
    };
    std::vector<Found> find_all(const std::string& text, const Trie& trie) const;

    std::vector<AddedToken> tokens_;
    std::unordered_map<int64_t, size_t> by_id_;
    std::unordered_map<std::string, int64_t> by_content_;
    std::unordered_set<std::string> special_;
    Trie raw_, normalized_;
};

}  // namespace mosaic::genai::tokenizer
