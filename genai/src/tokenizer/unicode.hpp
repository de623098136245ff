// The character classes and case and normalization forms HF tokenizers takes from Rust's char
// methods and crates, answered by ICU.
#pragma once

#include <string>
#include <string_view>

namespace mosaic::genai::tokenizer {

bool is_whitespace(char32_t cp);   // Rust char::is_whitespace: White_Space
bool is_numeric(char32_t cp);      // Rust char::is_numeric: Nd, Nl, No
bool is_word(char32_t cp);         // Rust regex's \w: Alphabetic, marks, Nd, Pc, Join_Control
bool is_punctuation(char32_t cp);  // HF's is_bert_punc: ASCII punctuation or a P* category

enum class NormalForm { NFC, NFD, NFKC, NFKD };
std::string normalize(std::string_view text, NormalForm form);

// Rust char::to_lowercase one character at a time: full mappings (İ becomes two characters) but
// no context (a final Σ stays σ, unlike str::to_lowercase).
std::string lowercase(std::string_view text);

}  // namespace mosaic::genai::tokenizer
