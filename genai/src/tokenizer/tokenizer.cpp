// The pipeline of HF tokenizers' encode for one sequence: added tokens out, normalizer,
// pre-tokenizer, model, post-processor; and decode's tokens through the decoder.
#include <mosaic/genai/tokenizer.hpp>

#include "tokenizer/added_tokens.hpp"
#include "tokenizer/bpe.hpp"
#include "tokenizer/decoders.hpp"
#include "tokenizer/normalizers.hpp"
#include "tokenizer/post_processors.hpp"
#include "tokenizer/pre_tokenizers.hpp"
#include "tokenizer/tokenizer_json.hpp"
#include "tokenizer/utf8.hpp"

#include <cstdio>

namespace mosaic::genai {

using namespace tokenizer;

namespace {

// A component of tokenizer.json that may be absent or null.
template <class Make>
auto optional_component(const JsonNode& root, const std::string& key, Make make) -> decltype(make(root)) {
    if (!root.has(key)) return nullptr;
    return make(root[key]);
}

// bos_token and the like: "<s>", {"content": "<s>", ...} (an AddedToken), or null.
std::optional<std::string> special_token_of(const JsonNode& config, const std::string& key) {
    if (!config.has(key)) return std::nullopt;
    const JsonNode node = config[key];
    if (node.value().is_string()) return node.string();
    if (node.value().is_object()) return node["content"].string();
    node.fail("is neither a string nor {\"content\": ...}");
}

// chat_template: the template, or a list of {"name", "template"} of which "default" is the one.
std::optional<std::string> chat_template_of(const JsonNode& config) {
    if (!config.has("chat_template")) return std::nullopt;
    const JsonNode node = config["chat_template"];
    if (node.value().is_string()) return node.string();
    for (size_t i = 0; i < node.size(); ++i)
        if (node.at(i)["name"].string() == "default") return node.at(i)["template"].string();
    return std::nullopt;
}

}  // namespace

struct Tokenizer::Impl {
    std::unique_ptr<Normalizer> normalizer;
    std::unique_ptr<PreTokenizer> pre_tokenizer;
    std::unique_ptr<Bpe> model;
    AddedVocabulary added;
    std::unique_ptr<PostProcessor> post_processor;
    std::unique_ptr<Decoder> decoder;
    std::optional<std::string> bos, eos, pad, chat_template;

    std::optional<int64_t> id_of(const std::optional<std::string>& token) const {
        if (!token) return std::nullopt;
        if (auto id = added.id_of(*token)) return id;
        return model->token_to_id(*token);
    }
};

Tokenizer::Tokenizer(const std::filesystem::path& path) : impl_(std::make_unique<Impl>()) {
    namespace fs = std::filesystem;
    std::error_code error;
    if (!fs::exists(path, error))
        throw TokenizerError(
            path.string() +
            ": no such file or folder (a model folder holding tokenizer.json, or tokenizer.json itself)");
    const fs::path file = fs::is_directory(path, error) ? path / "tokenizer.json" : path;
    if (!fs::exists(file, error))
        throw TokenizerError(file.string() + ": no such file (the folder holds no tokenizer.json)");

    const json document = read_json_file(file);
    const JsonNode root(document, file.string(), "");
    if (!document.is_object()) root.fail("is not a JSON object");
    Impl& impl = *impl_;
    impl.normalizer = optional_component(root, "normalizer", make_normalizer);
    impl.pre_tokenizer = optional_component(root, "pre_tokenizer", make_pre_tokenizer);
    impl.model = std::make_unique<Bpe>(root["model"]);
    if (root.has("added_tokens")) impl.added = AddedVocabulary(root["added_tokens"], impl.normalizer.get());
    impl.post_processor = optional_component(root, "post_processor", make_post_processor);
    impl.decoder = optional_component(root, "decoder", make_decoder);

    const fs::path config_file = file.parent_path() / "tokenizer_config.json";
    if (fs::exists(config_file, error)) {
        const json config_document = read_json_file(config_file);
        const JsonNode config(config_document, config_file.string(), "");
        if (!config_document.is_object()) config.fail("is not a JSON object");
        impl.bos = special_token_of(config, "bos_token");
        impl.eos = special_token_of(config, "eos_token");
        impl.pad = special_token_of(config, "pad_token");
        impl.chat_template = chat_template_of(config);
    }
}

Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

std::vector<int64_t> Tokenizer::encode(const std::string& text, bool add_special_tokens) const {
    if (const auto offset = invalid_utf8_offset(text)) {
        char byte[8];
        std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[*offset]));
        throw TokenizerError("Tokenizer::encode: the text is not valid UTF-8 at byte offset " +
                             std::to_string(*offset) + " (byte " + byte + ")");
    }
    const Impl& impl = *impl_;
    std::vector<int64_t> ids;
    std::vector<Piece> pieces;
    try {
        for (Segment& segment : impl.added.split(text, impl.normalizer.get())) {
            if (segment.id) {
                ids.push_back(*segment.id);
                continue;
            }
            pieces.assign(1, Piece{std::move(segment.text), segment.first});
            if (impl.pre_tokenizer) impl.pre_tokenizer->pre_tokenize(pieces);
            for (const Piece& piece : pieces) impl.model->tokenize(piece.text, ids);
        }
    } catch (const TokenizerError&) {
        throw;
    } catch (const std::runtime_error& e) {  // a regex that gave up (PCRE2's match limits)
        throw TokenizerError(std::string("Tokenizer::encode: ") + e.what());
    }
    if (add_special_tokens && impl.post_processor) impl.post_processor->add_special_tokens(ids);
    return ids;
}

std::string Tokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
    const Impl& impl = *impl_;
    std::vector<std::string> tokens;
    tokens.reserve(ids.size());
    for (const int64_t id : ids) {
        if (id < 0)
            throw TokenizerError("Tokenizer::decode: id " + std::to_string(id) + " is negative (the vocabulary has " +
                                 std::to_string(vocab_size()) + " ids)");
        const AddedToken* added = impl.added.find(id);
        const std::string* token = added ? &added->content : impl.model->id_to_token(id);
        // As HF: an id the vocabulary lacks gives nothing. A model's output often has more rows than
        // its tokenizer has tokens (Qwen2.5: 151,936 for 151,665), and such a row may be sampled.
        if (!token) continue;
        // As HF: a token is skipped for its content being a special token's, whichever id it came from.
        if (skip_special_tokens && impl.added.is_special(*token)) continue;
        tokens.push_back(*token);
    }
    if (impl.decoder) impl.decoder->decode_chain(tokens);
    std::string text;
    for (size_t i = 0; i < tokens.size(); ++i) {
        if (i > 0 && !impl.decoder) text += ' ';  // HF joins with spaces when there is no decoder
        text += tokens[i];
    }
    return text;
}

size_t Tokenizer::vocab_size() const {
    const int64_t largest = std::max(impl_->model->max_id(), impl_->added.max_id().value_or(-1));
    return static_cast<size_t>(largest + 1);
}

std::optional<int64_t> Tokenizer::token_to_id(const std::string& token) const { return impl_->id_of(token); }

std::optional<std::string> Tokenizer::id_to_token(int64_t id) const {
    if (const AddedToken* added = impl_->added.find(id)) return added->content;
    if (const std::string* token = impl_->model->id_to_token(id)) return *token;
    return std::nullopt;
}

bool Tokenizer::is_special(int64_t id) const {
    const AddedToken* added = impl_->added.find(id);
    return added && added->special;
}

std::optional<int64_t> Tokenizer::bos_token_id() const { return impl_->id_of(impl_->bos); }
std::optional<int64_t> Tokenizer::eos_token_id() const { return impl_->id_of(impl_->eos); }
std::optional<int64_t> Tokenizer::pad_token_id() const { return impl_->id_of(impl_->pad); }
std::optional<std::string> Tokenizer::bos_token() const { return impl_->bos; }
std::optional<std::string> Tokenizer::eos_token() const { return impl_->eos; }
std::optional<std::string> Tokenizer::chat_template() const { return impl_->chat_template; }

}  // namespace mosaic::genai
