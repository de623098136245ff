#include "tokenizer/byte_level.hpp"

#include "tokenizer/utf8.hpp"

#include <array>

namespace mosaic::genai::tokenizer {
namespace {

struct Table {
    std::array<std::string, 256> to_char;  // UTF-8 of each byte's character
    std::array<int, 512> to_byte{};        // characters are all below U+0200; -1: not a byte's
    Table() {
        to_byte.fill(-1);
        int next = 0;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            const char32_t cp = printable ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + next++);
            append_utf8(to_char[static_cast<size_t>(b)], cp);
            to_byte[cp] = b;
        }
    }
};

const Table& table() {
    static const Table t;
    return t;
}

}  // namespace

std::string bytes_to_chars(std::string_view text) {
    const Table& t = table();
    std::string out;
    out.reserve(text.size() * 2);
    for (const char c : text) out += t.to_char[static_cast<unsigned char>(c)];
    return out;
}

bool chars_to_bytes(std::string_view token, std::string& out) {
    const Table& t = table();
    const size_t start = out.size();
    for (size_t i = 0; i < token.size();) {
        const char32_t cp = next_code_point(token, i);
        if (cp >= t.to_byte.size() || t.to_byte[cp] < 0) {
            out.resize(start);
            return false;
        }
        out += static_cast<char>(t.to_byte[cp]);
    }
    return true;
}

}  // namespace mosaic::genai::tokenizer
