#include "tokenizer/normalizers.hpp"

#include "tokenizer/pattern.hpp"
#include "tokenizer/unicode.hpp"

#include <vector>

namespace mosaic::genai::tokenizer {
namespace {

class UnicodeForm final : public Normalizer {
public:
    explicit UnicodeForm(NormalForm form) : form_(form) {}
    void normalize(std::string& text) const override { text = tokenizer::normalize(text, form_); }

private:
    NormalForm form_;
};

class Lowercase final : public Normalizer {
public:
    void normalize(std::string& text) const override { text = lowercase(text); }
};

class Strip final : public Normalizer {
public:
    Strip(bool left, bool right) : left_(left), right_(right) {}
    void normalize(std::string& text) const override {
        size_t begin = 0, end = text.size();
        if (left_) {
            while (begin < end) {
                size_t i = begin;
                if (!is_whitespace(next_code_point(text, i))) break;
                begin = i;
            }
        }
        if (right_) {
            while (end > begin) {
                size_t start = end - 1;
                while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
                size_t i = start;
                if (!is_whitespace(next_code_point(text, i))) break;
                end = start;
            }
        }
        text = text.substr(begin, end - begin);
    }

private:
    bool left_, right_;
};

class Prepend final : public Normalizer {
public:
    explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
    void normalize(std::string& text) const override {
        if (!text.empty()) text.insert(0, prefix_);
    }

private:
    std::string prefix_;
};

class Replace final : public Normalizer {
public:
    explicit Replace(const JsonNode& node)
        : pattern_(read_pattern(node["pattern"])), content_(node["content"].string()) {}
    void normalize(std::string& text) const override { text = pattern_.replace_all(text, content_); }

private:
    Regex pattern_;
    std::string content_;
};

class Sequence final : public Normalizer {
public:
    explicit Sequence(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
    void normalize(std::string& text) const override {
        for (const auto& step : steps_) step->normalize(text);
    }

private:
    std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace

std::unique_ptr<Normalizer> make_normalizer(const JsonNode& node) {
    if (node.is_null()) return nullptr;
    const std::string type = node.type();
    if (type == "NFC") return std::make_unique<UnicodeForm>(NormalForm::NFC);
    if (type == "NFD") return std::make_unique<UnicodeForm>(NormalForm::NFD);
    if (type == "NFKC") return std::make_unique<UnicodeForm>(NormalForm::NFKC);
    if (type == "NFKD") return std::make_unique<UnicodeForm>(NormalForm::NFKD);
    if (type == "Lowercase") return std::make_unique<Lowercase>();
    if (type == "Strip")
        return std::make_unique<Strip>(node.bool_or("strip_left", true), node.bool_or("strip_right", true));
    if (type == "Prepend") return std::make_unique<Prepend>(node["prepend"].string());
    if (type == "Replace") return std::make_unique<Replace>(node);
    if (type == "Sequence") {
        const JsonNode list = node["normalizers"];
        std::vector<std::unique_ptr<Normalizer>> steps;
        for (size_t i = 0; i < list.size(); ++i)
            if (auto step = make_normalizer(list.at(i))) steps.push_back(std::move(step));
        return std::make_unique<Sequence>(std::move(steps));
    }
    node.not_implemented("normalizer");
}

}  // namespace mosaic::genai::tokenizer
