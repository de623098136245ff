// GPT-2's bytes_to_unicode: every byte as a printable character, so that byte-level BPE vocabularies
// are strings.
#pragma once

#include <string>
#include <string_view>

namespace mosaic::genai::tokenizer {

// Each byte of `text` as its character.
std::string bytes_to_chars(std::string_view text);
// The bytes a token's characters stand for, appended to `out`; false (and nothing appended) when
// one of them is not a byte's character, as for an added token.
bool chars_to_bytes(std::string_view token, std::string& out);

}  // namespace mosaic::genai::tokenizer
