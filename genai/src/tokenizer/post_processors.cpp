#include "tokenizer/post_processors.hpp"

namespace mosaic::genai::tokenizer {
namespace {

// ids before and after the sequence: TemplateProcessing's "single" template, or Roberta's and
// Bert's cls ... sep.
class Surround final : public PostProcessor {
public:
    Surround(std::vector<int64_t> before, std::vector<int64_t> after)
        : before_(std::move(before)), after_(std::move(after)) {}
    void add_special_tokens(std::vector<int64_t>& ids) const override {
        ids.insert(ids.begin(), before_.begin(), before_.end());
        ids.insert(ids.end(), after_.begin(), after_.end());
    }

private:
    std::vector<int64_t> before_, after_;
};

class Sequence final : public PostProcessor {
public:
    explicit Sequence(std::vector<std::unique_ptr<PostProcessor>> steps) : steps_(std::move(steps)) {}
    void add_special_tokens(std::vector<int64_t>& ids) const override {
        for (const auto& step : steps_) step->add_special_tokens(ids);
    }

private:
    std::vector<std::unique_ptr<PostProcessor>> steps_;
};

// Adds nothing to the ids (ByteLevel only trims offsets).
class Nothing final : public PostProcessor {
public:
    void add_special_tokens(std::vector<int64_t>&) const override {}
};

std::unique_ptr<PostProcessor> template_processing(const JsonNode& node) {
    const JsonNode single = node["single"];
    const JsonNode special = node["special_tokens"];
    std::vector<int64_t> before, after;
    bool seen_sequence = false;
    for (size_t i = 0; i < single.size(); ++i) {
        const JsonNode piece = single.at(i);
        if (piece.has("Sequence")) {
            if (seen_sequence) piece.fail("is a second sequence in a single-sequence template");
            seen_sequence = true;
            continue;
        }
        if (!piece.has("SpecialToken")) piece.fail("is neither {\"Sequence\": ...} nor {\"SpecialToken\": ...}");
        const std::string name = piece["SpecialToken"]["id"].string();
        if (!special.has(name)) piece["SpecialToken"]["id"].fail("\"" + name + "\" is not in special_tokens");
        const JsonNode ids = special[name]["ids"];
        for (size_t k = 0; k < ids.size(); ++k) (seen_sequence ? after : before).push_back(ids.at(k).integer());
    }
    if (!seen_sequence) single.fail("has no {\"Sequence\": {\"id\": \"A\"}}");
    return std::make_unique<Surround>(std::move(before), std::move(after));
}

// Roberta's and Bert's ["token", id] pairs.
int64_t pair_id(const JsonNode& node) { return node.at(1).integer(); }

}  // namespace

std::unique_ptr<PostProcessor> make_post_processor(const JsonNode& node) {
    if (node.is_null()) return nullptr;
    const std::string type = node.type();
    if (type == "TemplateProcessing") return template_processing(node);
    if (type == "ByteLevel") return std::make_unique<Nothing>();
    if (type == "RobertaProcessing" || type == "BertProcessing")
        return std::make_unique<Surround>(std::vector<int64_t>{pair_id(node["cls"])},
                                          std::vector<int64_t>{pair_id(node["sep"])});
    if (type == "Sequence") {
        const JsonNode list = node["processors"];
        std::vector<std::unique_ptr<PostProcessor>> steps;
        for (size_t i = 0; i < list.size(); ++i)
            if (auto step = make_post_processor(list.at(i))) steps.push_back(std::move(step));
        return std::make_unique<Sequence>(std::move(steps));
    }
    node.not_implemented("post-processor");
}

}  // namespace mosaic::genai::tokenizer
