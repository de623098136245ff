// What HF tokenizers splits and replaces on: regexes in Oniguruma's syntax (run by PCRE2),
// literal strings and character predicates, each cutting a text the way its Pattern::find_matches
// does.
#pragma once

#include "tokenizer/tokenizer_json.hpp"
#include "tokenizer/utf8.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mosaic::genai::tokenizer {

// A stretch of a text in bytes: a match of the pattern or what lies between two.
struct Match {
    size_t begin = 0, end = 0;
    bool is_match = false;
};
using Matches = std::vector<Match>;

class Regex {
public:
    // `pattern` as HF writes it (Oniguruma's Ruby syntax: \s and \w are Unicode's, ^ and $ match at
    // lines). Throws std::invalid_argument with PCRE2's complaint.
    static Regex from_pattern(const std::string& pattern);
    static Regex literal(const std::string& text);

    // The whole text cut into matches and the stretches between them; an empty match right after
    // another is skipped, as the onig crate's find_iter does. Safe from many threads at once.
    Matches find_matches(std::string_view text) const;
    std::string replace_all(std::string_view text, std::string_view with) const;

private:
    explicit Regex(const std::string& pattern, uint32_t options);
    std::shared_ptr<void> code_;  // pcre2_code_8, compiled (and JIT-compiled) once
};

// A tokenizer.json pattern: {"String": literal} or {"Regex": pattern}.
Regex read_pattern(const JsonNode& node);

// HF's Pattern for Fn(char) -> bool: every character for which `matches` holds is a match of its
// own.
template <class Predicate>
Matches find_char_matches(std::string_view text, Predicate matches) {
    if (text.empty()) return {{0, 0, false}};
    Matches out;
    size_t last = 0;
    for (size_t i = 0; i < text.size();) {
        const size_t begin = i;
        if (!matches(next_code_point(text, i))) continue;
        if (last < begin) out.push_back({last, begin, false});
        out.push_back({begin, i, true});
        last = i;
    }
    if (last < text.size()) out.push_back({last, text.size(), false});
    return out;
}

}  // namespace mosaic::genai::tokenizer
