#include "tokenizer/unicode.hpp"

#include "tokenizer/utf8.hpp"

#include <mosaic/genai/tokenizer.hpp>

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include <limits>
#include <stdexcept>
#include <vector>

namespace mosaic::genai::tokenizer {
namespace {

std::u16string to_utf16(std::string_view text) {
    std::u16string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const char32_t cp = next_code_point(text, i);
        if (cp < 0x10000) {
            out += static_cast<char16_t>(cp);
        } else {
            out += static_cast<char16_t>(0xD800 + ((cp - 0x10000) >> 10));
            out += static_cast<char16_t>(0xDC00 + ((cp - 0x10000) & 0x3FF));
        }
    }
    return out;
}

std::string to_utf8(const char16_t* text, size_t size) {
    std::string out;
    out.reserve(size);
    for (size_t i = 0; i < size; ++i) {
        char32_t cp = text[i];
        if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < size) cp = 0x10000 + ((cp - 0xD800) << 10) + (text[++i] - 0xDC00);
        append_utf8(out, cp);
    }
    return out;
}

void check(UErrorCode status, const char* what) {
    if (U_FAILURE(status)) throw std::runtime_error(std::string("ICU ") + what + ": " + u_errorName(status));
}

}  // namespace

bool is_whitespace(char32_t cp) { return u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_WHITE_SPACE); }

bool is_numeric(char32_t cp) {
    const auto type = u_charType(static_cast<UChar32>(cp));
    return type == U_DECIMAL_DIGIT_NUMBER || type == U_LETTER_NUMBER || type == U_OTHER_NUMBER;
}

bool is_word(char32_t cp) {
    const auto c = static_cast<UChar32>(cp);
    const auto mask = U_GET_GC_MASK(c);
    return u_hasBinaryProperty(c, UCHAR_ALPHABETIC) || (mask & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0 ||
           u_hasBinaryProperty(c, UCHAR_JOIN_CONTROL);
}

bool is_punctuation(char32_t cp) {
    const bool ascii = (cp >= 0x21 && cp <= 0x2F) || (cp >= 0x3A && cp <= 0x40) || (cp >= 0x5B && cp <= 0x60) ||
                       (cp >= 0x7B && cp <= 0x7E);
    return ascii || u_ispunct(static_cast<UChar32>(cp));
}

std::string normalize(std::string_view text, NormalForm form) {
    UErrorCode status = U_ZERO_ERROR;
    const UNormalizer2* normalizer = form == NormalForm::NFC    ? unorm2_getNFCInstance(&status)
                                     : form == NormalForm::NFD  ? unorm2_getNFDInstance(&status)
                                     : form == NormalForm::NFKC ? unorm2_getNFKCInstance(&status)
                                                                : unorm2_getNFKDInstance(&status);
    check(status, "normalizer");
    // ICU counts in int32_t, and the output may be three times the input.
    if (text.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max() / 4))
        throw mosaic::genai::TokenizerError("a text of " + std::to_string(text.size()) +
                                            " bytes is too long to normalize; split it");
    const std::u16string source = to_utf16(text);
    const auto* src = reinterpret_cast<const UChar*>(source.data());
    const auto length = static_cast<int32_t>(source.size());
    if (unorm2_isNormalized(normalizer, src, length, &status) && U_SUCCESS(status)) return std::string(text);
    status = U_ZERO_ERROR;
    // NFKD of one character grows to at most 18: enough room for one pass in practice, a retry
    // with the size asked for otherwise.
    std::vector<UChar> out(source.size() * 3 + 16);
    int32_t size = unorm2_normalize(normalizer, src, length, out.data(), static_cast<int32_t>(out.size()), &status);
    if (status == U_BUFFER_OVERFLOW_ERROR) {
        status = U_ZERO_ERROR;
        out.resize(static_cast<size_t>(size));
        size = unorm2_normalize(normalizer, src, length, out.data(), size, &status);
    }
    check(status, "normalization");
    return to_utf8(reinterpret_cast<const char16_t*>(out.data()), static_cast<size_t>(size));
}

std::string lowercase(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const char32_t cp = next_code_point(text, i);
        if (cp < 0x80) {
            out += static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
            continue;
        }
        std::string single;
        append_utf8(single, cp);
        const std::u16string source = to_utf16(single);
        UChar lowered[8];
        UErrorCode status = U_ZERO_ERROR;
        const int32_t size = u_strToLower(lowered, 8, reinterpret_cast<const UChar*>(source.data()),
                                          static_cast<int32_t>(source.size()), "", &status);
        check(status, "lowercase");
        out += to_utf8(reinterpret_cast<const char16_t*>(lowered), static_cast<size_t>(size));
    }
    return out;
}

}  // namespace mosaic::genai::tokenizer
