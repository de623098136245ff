// The tokenizer of a Hugging Face model folder, read from its tokenizer.json (and
// tokenizer_config.json beside it): ids identical to HF `tokenizers` for the families LLMs use —
// byte-level BPE (GPT-2, Llama-3, Qwen2, SmolLM) and SentencePiece-style BPE with byte fallback
// (Llama-2, TinyLlama, Mistral).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic::genai {

// A tokenizer file that cannot be used: it names the file, the JSON key or the input at fault and
// what to do.
class TokenizerError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Tokenizer {
public:
    // `path`: a model folder holding tokenizer.json (and optionally tokenizer_config.json), or the
    // tokenizer.json file itself. Throws TokenizerError for a missing or malformed file, or a
    // normalizer, pre-tokenizer, model, post-processor or decoder type it does not implement.
    explicit Tokenizer(const std::filesystem::path& path);
    ~Tokenizer();
    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;

    // `text` must be UTF-8 (TokenizerError names the byte offset otherwise). With
    // `add_special_tokens`, the post-processor's template adds what the model expects (a BOS id).
    // Thread-safe: encode and decode may run from many threads at once.
    std::vector<int64_t> encode(const std::string& text, bool add_special_tokens = true) const;
    // Ids past the vocabulary give nothing, as in HF; a negative id throws TokenizerError. Bytes
    // that do not yet form a whole UTF-8 character (a streamed token in the middle of one) come out
    // as U+FFFD, as HF decodes them.
    std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = true) const;

    size_t vocab_size() const;  // the largest id + 1, added tokens included
    std::optional<int64_t> token_to_id(const std::string& token) const;
    std::optional<std::string> id_to_token(int64_t id) const;
    bool is_special(int64_t id) const;  // an added token marked "special"

    // From tokenizer_config.json where present (bos_token, eos_token, pad_token, chat_template);
    // an absent entry is std::nullopt.
    std::optional<int64_t> bos_token_id() const;
    std::optional<int64_t> eos_token_id() const;
    std::optional<int64_t> pad_token_id() const;
    std::optional<std::string> bos_token() const;
    std::optional<std::string> eos_token() const;
    std::optional<std::string> chat_template() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace mosaic::genai
