#include "tokenizer/utf8.hpp"

namespace mosaic::genai::tokenizer {
namespace {

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the well-formed sequence at text[i] (> 0), or minus the length of the ill-formed
// subpart there, following the Unicode "maximal subpart" practice that Rust's Utf8Chunks uses.
int sequence_at(std::string_view text, size_t i) {
    const auto at = [&](size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0; };
    const unsigned char b = at(0);
    if (b < 0x80) return 1;
    if (b >= 0xC2 && b <= 0xDF) return continuation(at(1)) ? 2 : -1;
    if (b >= 0xE0 && b <= 0xEF) {
        const unsigned char lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
        if (at(1) < lo || at(1) > hi) return -1;
        return continuation(at(2)) ? 3 : -2;
    }
    if (b >= 0xF0 && b <= 0xF4) {
        const unsigned char lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
        if (at(1) < lo || at(1) > hi) return -1;
        if (!continuation(at(2))) return -2;
        return continuation(at(3)) ? 4 : -3;
    }
    return -1;
}

}  // namespace

std::optional<size_t> invalid_utf8_offset(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        const int n = sequence_at(text, i);
        if (n < 0) return i;
        i += static_cast<size_t>(n);
    }
    return std::nullopt;
}

std::string utf8_lossy(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    for (size_t i = 0; i < bytes.size();) {
        const int n = sequence_at(bytes, i);
        if (n > 0) {
            out.append(bytes.substr(i, static_cast<size_t>(n)));
            i += static_cast<size_t>(n);
        } else {
            out += "\xEF\xBF\xBD";
            i += static_cast<size_t>(-n);
        }
    }
    return out;
}

size_t utf8_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if (lead < 0xE0) return 2;
    if (lead < 0xF0) return 3;
    return 4;
}

char32_t next_code_point(std::string_view text, size_t& i) {
    const auto b = static_cast<unsigned char>(text[i]);
    const size_t n = utf8_length(b);
    char32_t cp = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
    for (size_t k = 1; k < n && i + k < text.size(); ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    i += n;
    return cp;
}

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace mosaic::genai::tokenizer
