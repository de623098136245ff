// UTF-8 as Rust's str holds it: HF tokenizers never sees invalid UTF-8, so the input is checked
// once up front and everything after can trust it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mosaic::genai::tokenizer {

// The byte offset of the first byte that does not start a well-formed UTF-8 sequence (overlong
// forms, surrogates and code points past U+10FFFF are ill-formed), or nullopt.
std::optional<size_t> invalid_utf8_offset(std::string_view text);

// Rust's String::from_utf8_lossy: each maximal ill-formed subpart becomes one U+FFFD.
std::string utf8_lossy(std::string_view bytes);

// The code point starting at text[i] of well-formed UTF-8; advances i past it.
char32_t next_code_point(std::string_view text, size_t& i);
// The length in bytes of the well-formed character starting with `lead`.
size_t utf8_length(unsigned char lead);

void append_utf8(std::string& out, char32_t cp);

}  // namespace mosaic::genai::tokenizer
