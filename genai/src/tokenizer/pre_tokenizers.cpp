#include "tokenizer/pre_tokenizers.hpp"

#include "tokenizer/byte_level.hpp"
#include "tokenizer/pattern.hpp"
#include "tokenizer/unicode.hpp"

namespace mosaic::genai::tokenizer {
namespace {

enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

Behavior read_behavior(const JsonNode& node) {
    const std::string name = node.string();
    if (name == "Removed") return Behavior::Removed;
    if (name == "Isolated") return Behavior::Isolated;
    if (name == "MergedWithPrevious") return Behavior::MergedWithPrevious;
    if (name == "MergedWithNext") return Behavior::MergedWithNext;
    if (name == "Contiguous") return Behavior::Contiguous;
    node.fail("\"" + name +
              "\" is not a split behavior (Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous)");
}

// HF's NormalizedString::split: what each behavior makes of the matches and the stretches between
// them. In the result, is_match marks a stretch to remove.
Matches apply_behavior(Matches matches, Behavior behavior) {
    Matches out;
    switch (behavior) {
        case Behavior::Removed:
            return matches;
        case Behavior::Isolated:
            for (Match& m : matches) m.is_match = false;
            return matches;
        case Behavior::Contiguous: {
            bool previous = false;
            for (const Match& m : matches) {
                if (m.is_match == previous && !out.empty())
                    out.back().end = m.end;
                else
                    out.push_back({m.begin, m.end, false});
                previous = m.is_match;
            }
            return out;
        }
        case Behavior::MergedWithPrevious: {
            bool previous = false;
            for (const Match& m : matches) {
                if (m.is_match && !previous && !out.empty())
                    out.back().end = m.end;
                else
                    out.push_back({m.begin, m.end, false});
                previous = m.is_match;
            }
            return out;
        }
        case Behavior::MergedWithNext: {
            bool previous = false;
            for (auto it = matches.rbegin(); it != matches.rend(); ++it) {
                if (it->is_match && !previous && !out.empty())
                    out.back().begin = it->begin;
                else
                    out.push_back({it->begin, it->end, false});
                previous = it->is_match;
            }
            return Matches(out.rbegin(), out.rend());
        }
    }
    return matches;
}

// Cuts every piece where `cut(piece)` says (after it rewrote the piece if it wants to); empty pieces
// go, as HF's PreTokenizedString::split drops them.
template <class Cut>
void split_each(std::vector<Piece>& pieces, Cut cut) {
    std::vector<Piece> out;
    out.reserve(pieces.size());
    for (Piece& piece : pieces) {
        const Matches stretches = cut(piece);
        for (const Match& s : stretches) {
            if (s.is_match || s.end == s.begin) continue;
            out.push_back({piece.text.substr(s.begin, s.end - s.begin), piece.first && s.begin == 0});
        }
    }
    pieces = std::move(out);
}

class ByteLevel final : public PreTokenizer {
public:
    explicit ByteLevel(const JsonNode& node)
        : add_prefix_space_(node.bool_or("add_prefix_space", true)), use_regex_(node.bool_or("use_regex", true)) {}
    void pre_tokenize(std::vector<Piece>& pieces) const override {
        split_each(pieces, [&](Piece& piece) {
            if (add_prefix_space_ && piece.text.rfind(' ', 0) != 0) piece.text.insert(0, " ");
            if (use_regex_) return apply_behavior(gpt2().find_matches(piece.text), Behavior::Isolated);
            return Matches{{0, piece.text.size(), false}};
        });
        for (Piece& piece : pieces) piece.text = bytes_to_chars(piece.text);
    }

private:
    static const Regex& gpt2() {
        static const Regex regex =
            Regex::from_pattern(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)");
        return regex;
    }
    bool add_prefix_space_, use_regex_;
};

class Split final : public PreTokenizer {
public:
    explicit Split(const JsonNode& node)
        : pattern_(read_pattern(node["pattern"])),
          behavior_(read_behavior(node["behavior"])),
          invert_(node.bool_or("invert", false)) {}
    void pre_tokenize(std::vector<Piece>& pieces) const override {
        split_each(pieces, [&](Piece& piece) {
            Matches matches = pattern_.find_matches(piece.text);
            if (invert_)
                for (Match& m : matches) m.is_match = !m.is_match;
            return apply_behavior(std::move(matches), behavior_);
        });
    }

private:
    Regex pattern_;
    Behavior behavior_;
    bool invert_;
};

// Splits on the characters `Predicate` picks (Digits, WhitespaceSplit, Punctuation).
template <bool (*Predicate)(char32_t)>
class CharSplit final : public PreTokenizer {
public:
    explicit CharSplit(Behavior behavior) : behavior_(behavior) {}
    void pre_tokenize(std::vector<Piece>& pieces) const override {
        split_each(pieces,
                   [&](Piece& piece) { return apply_behavior(find_char_matches(piece.text, Predicate), behavior_); });
    }

private:
    Behavior behavior_;
};

class Whitespace final : public PreTokenizer {
public:
    void pre_tokenize(std::vector<Piece>& pieces) const override {
        static const Regex words = Regex::from_pattern(R"(\w+|[^\w\s]+)");
        split_each(pieces, [&](Piece& piece) {
            Matches matches = words.find_matches(piece.text);
            for (Match& m : matches) m.is_match = !m.is_match;  // the stretches between words go
            return matches;
        });
    }
};

class Metaspace final : public PreTokenizer {
public:
    explicit Metaspace(const JsonNode& node)
        : replacement_(read_replacement(node)),
          split_(node.bool_or("split", true)),
          at_replacement_(Regex::literal(replacement_)) {
        // Older files say add_prefix_space instead of prepend_scheme.
        scheme_ = node.string_or("prepend_scheme", "always");
        if (node.has("add_prefix_space") && !node["add_prefix_space"].boolean()) {
            if (scheme_ != "never" && node.has("prepend_scheme"))
                node["add_prefix_space"].fail("does not match prepend_scheme \"" + scheme_ + "\"");
            scheme_ = "never";
        }
        if (scheme_ != "always" && scheme_ != "never" && scheme_ != "first")
            node["prepend_scheme"].fail("\"" + scheme_ + "\" is not always, never or first");
    }
    void pre_tokenize(std::vector<Piece>& pieces) const override {
        static const Regex space = Regex::literal(" ");
        split_each(pieces, [&](Piece& piece) {
            piece.text = space.replace_all(piece.text, replacement_);
            const bool prepend = scheme_ == "always" || (scheme_ == "first" && piece.first);
            if (prepend && piece.text.rfind(replacement_, 0) != 0) piece.text.insert(0, replacement_);
            if (split_) return apply_behavior(at_replacement_.find_matches(piece.text), Behavior::MergedWithNext);
            return Matches{{0, piece.text.size(), false}};
        });
    }

private:
    static std::string read_replacement(const JsonNode& node) {
        std::string s;
        append_utf8(s, node["replacement"].character());
        return s;
    }
    std::string replacement_, scheme_;
    bool split_;
    Regex at_replacement_;
};

class Sequence final : public PreTokenizer {
public:
    explicit Sequence(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
    void pre_tokenize(std::vector<Piece>& pieces) const override {
        for (const auto& step : steps_) step->pre_tokenize(pieces);
    }

private:
    std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

}  // namespace

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonNode& node) {
    if (node.is_null()) return nullptr;
    const std::string type = node.type();
    if (type == "ByteLevel") return std::make_unique<ByteLevel>(node);
    if (type == "Split") return std::make_unique<Split>(node);
    if (type == "Metaspace") return std::make_unique<Metaspace>(node);
    if (type == "Whitespace") return std::make_unique<Whitespace>();
    if (type == "WhitespaceSplit") return std::make_unique<CharSplit<is_whitespace>>(Behavior::Removed);
    if (type == "Digits")
        return std::make_unique<CharSplit<is_numeric>>(node.bool_or("individual_digits", false) ? Behavior::Isolated
                                                                                                : Behavior::Contiguous);
    if (type == "Punctuation")
        return std::make_unique<CharSplit<is_punctuation>>(node.has("behavior") ? read_behavior(node["behavior"])
                                                                                : Behavior::Isolated);
    if (type == "BertPreTokenizer") {
        std::vector<std::unique_ptr<PreTokenizer>> steps;
        steps.push_back(std::make_unique<CharSplit<is_whitespace>>(Behavior::Removed));
        steps.push_back(std::make_unique<CharSplit<is_punctuation>>(Behavior::Isolated));
        return std::make_unique<Sequence>(std::move(steps));
    }
    if (type == "Sequence") {
        const JsonNode list = node["pretokenizers"];
        std::vector<std::unique_ptr<PreTokenizer>> steps;
        for (size_t i = 0; i < list.size(); ++i)
            if (auto step = make_pre_tokenizer(list.at(i))) steps.push_back(std::move(step));
        return std::make_unique<Sequence>(std::move(steps));
    }
    node.not_implemented("pre-tokenizer");
}

}  // namespace mosaic::genai::tokenizer
