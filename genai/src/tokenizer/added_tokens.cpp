#include "tokenizer/added_tokens.hpp"

#include "tokenizer/unicode.hpp"
#include "tokenizer/utf8.hpp"

#include <algorithm>

namespace mosaic::genai::tokenizer {
namespace {

// The code point ending just before text[end].
char32_t code_point_before(const std::string& text, size_t end) {
    size_t start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    return next_code_point(text, start);
}

// Where the whitespace that ends text[0, end) begins (Rust regex `\s*$`).
size_t trailing_space_start(const std::string& text, size_t end) {
    while (end > 0 && is_whitespace(code_point_before(text, end))) {
        --end;
        while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    }
    return end;
}

// Where the whitespace that starts at text[begin] ends (Rust regex `^\s*`).
size_t leading_space_end(const std::string& text, size_t begin) {
    while (begin < text.size()) {
        size_t i = begin;
        if (!is_whitespace(next_code_point(text, i))) break;
        begin = i;
    }
    return begin;
}

}  // namespace

void AddedVocabulary::Trie::insert(const std::string& pattern, int token) {
    int node = 0;
    for (const char c : pattern) {
        const auto key = static_cast<unsigned char>(c);
        auto it = nodes[static_cast<size_t>(node)].next.find(key);
        if (it == nodes[static_cast<size_t>(node)].next.end()) {
            nodes.emplace_back();
            it = nodes[static_cast<size_t>(node)].next.emplace(key, static_cast<int>(nodes.size() - 1)).first;
        }
        node = it->second;
    }
    // As HF's aho-corasick, of two tokens with one pattern the first given wins.
    if (nodes[static_cast<size_t>(node)].token < 0) nodes[static_cast<size_t>(node)].token = token;
}

std::pair<int, size_t> AddedVocabulary::Trie::longest(const std::string& text, size_t at) const {
    std::pair<int, size_t> best{-1, at};
    size_t node = 0;
    for (size_t i = at; i < text.size(); ++i) {
        const auto& next = nodes[node].next;
        const auto it = next.find(static_cast<unsigned char>(text[i]));
        if (it == next.end()) break;
        node = static_cast<size_t>(it->second);
        if (nodes[node].token >= 0) best = {nodes[node].token, i + 1};
    }
    return best;
}

AddedVocabulary::AddedVocabulary(const JsonNode& list, const Normalizer* normalizer) {
    for (size_t i = 0; i < list.size(); ++i) {
        const JsonNode entry = list.at(i);
        AddedToken token;
        token.content = entry["content"].string();
        token.id = entry["id"].integer();
        if (token.id < 0 || token.id > kMaxTokenId)
            entry["id"].fail("is not an id (a whole number from 0 to " + std::to_string(kMaxTokenId) + ")");
        token.single_word = entry.bool_or("single_word", false);
        token.lstrip = entry.bool_or("lstrip", false);
        token.rstrip = entry.bool_or("rstrip", false);
        token.special = entry.bool_or("special", false);
        token.normalized = entry.bool_or("normalized", !token.special);
        if (token.content.empty()) continue;  // HF ignores these
        by_id_[token.id] = tokens_.size();
        by_content_[token.content] = token.id;
        if (token.special) special_.insert(token.content);
        tokens_.push_back(std::move(token));
    }
    for (size_t i = 0; i < tokens_.size(); ++i) {
        const AddedToken& token = tokens_[i];
        if (!token.normalized) {
            raw_.insert(token.content, static_cast<int>(i));
            continue;
        }
        std::string pattern = token.content;
        if (normalizer) normalizer->normalize(pattern);
        if (!pattern.empty()) normalized_.insert(pattern, static_cast<int>(i));
    }
}

std::vector<AddedVocabulary::Found> AddedVocabulary::find_all(const std::string& text, const Trie& trie) const {
    std::vector<Found> out;
    size_t done = 0;  // the end of what is already in `out`
    for (size_t at = 0; !trie.empty() && at < text.size();) {
        const auto [index, found_end] = trie.longest(text, at);
        if (index < 0) {
            ++at;
            continue;
        }
        size_t begin = at, end = found_end;
        at = found_end;  // a match left out below is not searched again, as HF's find_iter goes on past it
        const AddedToken& token = tokens_[static_cast<size_t>(index)];
        if (token.single_word) {
            const bool space_before = begin == 0 || !is_word(code_point_before(text, begin));
            size_t after = end;
            const bool space_after = end == text.size() || !is_word(next_code_point(text, after));
            if (!space_before || !space_after) continue;
        }
        if (token.lstrip) begin = std::max(trailing_space_start(text, begin), done);
        if (token.rstrip) end = leading_space_end(text, end);
        if (done < begin) out.push_back({done, begin, std::nullopt});
        out.push_back({begin, end, token.id});
        done = end;
    }
    if (done < text.size()) out.push_back({done, text.size(), std::nullopt});
    return out;
}

std::vector<Segment> AddedVocabulary::split(const std::string& text, const Normalizer* normalizer) const {
    std::vector<Segment> out;
    for (const Found& raw : find_all(text, raw_)) {
        if (raw.id) {
            out.push_back({text.substr(raw.begin, raw.end - raw.begin), raw.id, raw.begin == 0});
            continue;
        }
        std::string piece = text.substr(raw.begin, raw.end - raw.begin);
        if (normalizer) normalizer->normalize(piece);
        for (const Found& found : find_all(piece, normalized_)) {
            if (found.end == found.begin && !found.id) continue;
            out.push_back(
                {piece.substr(found.begin, found.end - found.begin), found.id, raw.begin == 0 && found.begin == 0});
        }
    }
    return out;
}

const AddedToken* AddedVocabulary::find(int64_t id) const {
    const auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : &tokens_[it->second];
}

std::optional<int64_t> AddedVocabulary::id_of(const std::string& content) const {
    const auto it = by_content_.find(content);
    if (it == by_content_.end()) return std::nullopt;
    return it->second;
}

std::optional<int64_t> AddedVocabulary::max_id() const {
    std::optional<int64_t> best;
    for (const AddedToken& t : tokens_) best = std::max(best.value_or(t.id), t.id);
    return best;
}

}  // namespace mosaic::genai::tokenizer
