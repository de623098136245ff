#include "tokenizer/decoders.hpp"

#include "tokenizer/byte_level.hpp"
#include "tokenizer/pattern.hpp"
#include "tokenizer/utf8.hpp"

#include <algorithm>

namespace mosaic::genai::tokenizer {
namespace {

constexpr const char* kReplacementCharacter = "\xEF\xBF\xBD";

// All tokens' bytes as one text; a token with a character that stands for no byte (an added
// token's) counts as its own UTF-8.
class ByteLevel final : public Decoder {
public:
    void decode_chain(std::vector<std::string>& tokens) const override {
        std::string bytes;
        for (const std::string& token : tokens)
            if (!chars_to_bytes(token, bytes)) bytes += token;
        tokens.assign(1, utf8_lossy(bytes));
    }
};

class Replace final : public Decoder {
public:
    explicit Replace(const JsonNode& node)
        : pattern_(read_pattern(node["pattern"])), content_(node["content"].string()) {}
    void decode_chain(std::vector<std::string>& tokens) const override {
        for (std::string& token : tokens) token = pattern_.replace_all(token, content_);
    }

private:
    Regex pattern_;
    std::string content_;
};

// <0xXX> tokens as their bytes: a run that is not UTF-8 gives one U+FFFD per byte (not lossy's
// one per subpart), as HF does.
class ByteFallback final : public Decoder {
public:
    void decode_chain(std::vector<std::string>& tokens) const override {
        std::vector<std::string> out;
        out.reserve(tokens.size());
        std::string bytes;
        const auto flush = [&] {
            if (bytes.empty()) return;
            if (!invalid_utf8_offset(bytes))
                out.push_back(bytes);
            else
                for (size_t i = 0; i < bytes.size(); ++i) out.emplace_back(kReplacementCharacter);
            bytes.clear();
        };
        for (std::string& token : tokens) {
            if (const int byte = byte_of(token); byte >= 0) {
                bytes += static_cast<char>(byte);
                continue;
            }
            flush();
            out.push_back(std::move(token));
        }
        flush();
        tokens = std::move(out);
    }

private:
    // Rust's u8::from_str_radix(&token[3..5], 16) on "<0x..>": it takes a leading '+' too.
    static int byte_of(const std::string& token) {
        if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return -1;
        const auto digit = [](char c) {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            if (c >= 'A' && c <= 'F') return c - 'A' + 10;
            return -1;
        };
        const int hi = digit(token[3]), lo = digit(token[4]);
        if (token[3] == '+' && lo >= 0) return lo;
        return hi >= 0 && lo >= 0 ? hi * 16 + lo : -1;
    }
};

class Fuse final : public Decoder {
public:
    void decode_chain(std::vector<std::string>& tokens) const override {
        std::string all;
        for (const std::string& token : tokens) all += token;
        tokens.assign(1, std::move(all));
    }
};

// Up to `start` leading and `stop` trailing `content` characters off each token.
class Strip final : public Decoder {
public:
    explicit Strip(const JsonNode& node)
        : start_(static_cast<size_t>(std::max<int64_t>(0, node["start"].integer()))),
          stop_(static_cast<size_t>(std::max<int64_t>(0, node["stop"].integer()))) {
        append_utf8(content_, node["content"].character());
    }
    void decode_chain(std::vector<std::string>& tokens) const override {
        for (std::string& token : tokens) {
            size_t begin = 0, end = token.size();
            for (size_t i = 0; i < start_ && token.compare(begin, content_.size(), content_) == 0 && begin < end; ++i)
                begin += content_.size();
            for (size_t i = 0; i < stop_ && end >= begin + content_.size() &&
                               token.compare(end - content_.size(), content_.size(), content_) == 0;
                 ++i)
                end -= content_.size();
            token = token.substr(begin, end - begin);
        }
    }

private:
    size_t start_, stop_;
    std::string content_;
};

// The replacement character back to spaces; the first token loses its replacement characters
// (the ones a prepend_scheme other than "never" added), as HF's Metaspace decoder does.
class Metaspace final : public Decoder {
public:
    explicit Metaspace(const JsonNode& node) {
        append_utf8(replacement_, node["replacement"].character());
        std::string scheme = node.string_or("prepend_scheme", "always");
        if (node.has("add_prefix_space") && !node["add_prefix_space"].boolean()) scheme = "never";
        strip_first_ = scheme != "never";
    }
    void decode_chain(std::vector<std::string>& tokens) const override {
        for (size_t i = 0; i < tokens.size(); ++i) {
            std::string out;
            const std::string& token = tokens[i];
            for (size_t at = 0; at < token.size();) {
                if (token.compare(at, replacement_.size(), replacement_) == 0) {
                    if (!(i == 0 && strip_first_)) out += ' ';
                    at += replacement_.size();
                } else {
                    out += token[at++];
                }
            }
            tokens[i] = std::move(out);
        }
    }

private:
    std::string replacement_;
    bool strip_first_ = true;
};

class Sequence final : public Decoder {
public:
    explicit Sequence(std::vector<std::unique_ptr<Decoder>> steps) : steps_(std::move(steps)) {}
    void decode_chain(std::vector<std::string>& tokens) const override {
        for (const auto& step : steps_) step->decode_chain(tokens);
    }

private:
    std::vector<std::unique_ptr<Decoder>> steps_;
};

}  // namespace

std::unique_ptr<Decoder> make_decoder(const JsonNode& node) {
    if (node.is_null()) return nullptr;
    const std::string type = node.type();
    if (type == "ByteLevel") return std::make_unique<ByteLevel>();
    if (type == "Replace") return std::make_unique<Replace>(node);
    if (type == "ByteFallback") return std::make_unique<ByteFallback>();
    if (type == "Fuse") return std::make_unique<Fuse>();
    if (type == "Strip") return std::make_unique<Strip>(node);
    if (type == "Metaspace") return std::make_unique<Metaspace>(node);
    if (type == "Sequence") {
        const JsonNode list = node["decoders"];
        std::vector<std::unique_ptr<Decoder>> steps;
        for (size_t i = 0; i < list.size(); ++i)
            if (auto step = make_decoder(list.at(i))) steps.push_back(std::move(step));
        return std::make_unique<Sequence>(std::move(steps));
    }
    node.not_implemented("decoder");
}

}  // namespace mosaic::genai::tokenizer
