#include "tokenizer/pattern.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdexcept>

namespace mosaic::genai::tokenizer {
namespace {

// Oniguruma's \w (Unicode's word characters); PCRE2's UCP \w leaves out marks and some letters.
constexpr const char* kWordClass = R"(\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D})";

// Rewrites what means something else in PCRE2: \s (PCRE2 also counts U+180E), \w, and \h (a hex
// digit in Oniguruma, horizontal space in PCRE2).
std::string to_pcre2(const std::string& pattern) {
    std::string out;
    bool in_class = false;
    for (size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '\\' && i + 1 < pattern.size()) {
            const char e = pattern[++i];
            const std::string word = in_class ? kWordClass : std::string("[") + kWordClass + "]";
            const std::string hex = in_class ? "0-9a-fA-F" : "[0-9a-fA-F]";
            switch (e) {
                case 's':
                    out += "\\p{White_Space}";
                    break;
                case 'S':
                    out += "\\P{White_Space}";
                    break;
                case 'w':
                    out += word;
                    break;
                case 'h':
                    out += hex;
                    break;
                case 'W':
                case 'H':
                    if (in_class)
                        throw std::invalid_argument(std::string("\\") + e +
                                                    " inside a character class is not supported");
                    out += std::string("[^") + (e == 'W' ? kWordClass : "0-9a-fA-F") + "]";
                    break;
                default:
                    out += c;
                    out += e;
            }
            continue;
        }
        if (c == '[' && !in_class) {
            in_class = true;
            out += c;
            // A ']' first (or after '^') is a member, not the end.
            if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
            if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
            continue;
        }
        if (c == ']' && in_class) in_class = false;
        out += c;
    }
    return out;
}

pcre2_code* code_of(const std::shared_ptr<void>& code) { return static_cast<pcre2_code*>(code.get()); }

}  // namespace

Regex::Regex(const std::string& pattern, uint32_t options) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options | PCRE2_UTF,
                                     &error, &offset, nullptr);
    if (!code) {
        PCRE2_UCHAR message[256];
        pcre2_get_error_message(error, message, sizeof message);
        throw std::invalid_argument(std::string(reinterpret_cast<const char*>(message)) + " at offset " +
                                    std::to_string(offset));
    }
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // the interpreter runs it where there is no JIT
    code_ = std::shared_ptr<void>(code, [](void* p) { pcre2_code_free(static_cast<pcre2_code*>(p)); });
}

Regex Regex::from_pattern(const std::string& pattern) { return Regex(to_pcre2(pattern), PCRE2_MULTILINE | PCRE2_UCP); }

Regex Regex::literal(const std::string& text) { return Regex(text, PCRE2_LITERAL); }

Regex read_pattern(const JsonNode& node) {
    if (node.has("String")) return Regex::literal(node["String"].string());
    if (!node.has("Regex")) node.fail("has neither \"String\" nor \"Regex\"");
    const JsonNode regex = node["Regex"];
    try {
        return Regex::from_pattern(regex.string());
    } catch (const std::invalid_argument& e) {
        regex.fail("is not a regex Mosaic can run: " + std::string(e.what()));
    }
}

Matches Regex::find_matches(std::string_view text) const {
    if (text.empty()) return {{0, 0, false}};
    pcre2_code* code = code_of(code_);
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
        pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
    if (!data) throw std::bad_alloc();
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    Matches out;
    size_t prev = 0, search_from = 0;
    bool matched_before = false;
    size_t last_match_end = 0;
    while (search_from <= text.size()) {
        // The text was checked to be UTF-8 when it came in.
        int rc = pcre2_match(code, subject, text.size(), search_from, PCRE2_NO_UTF_CHECK, data.get(), nullptr);
        if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
            rc = pcre2_match(code, subject, text.size(), search_from, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, data.get(),
                             nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(rc, message, sizeof message);
            throw std::runtime_error(std::string("regex match: ") + reinterpret_cast<const char*>(message));
        }
        const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data.get());
        const size_t begin = ovector[0], end = ovector[1];
        if (begin == end && matched_before && last_match_end == end) {
            search_from += search_from < text.size() ? utf8_length(static_cast<unsigned char>(text[search_from])) : 1;
            continue;
        }
        search_from = end;
        matched_before = true;
        last_match_end = end;
        if (prev != begin) out.push_back({prev, begin, false});
        out.push_back({begin, end, true});
        prev = end;
    }
    if (prev != text.size()) out.push_back({prev, text.size(), false});
    return out;
}

std::string Regex::replace_all(std::string_view text, std::string_view with) const {
    std::string out;
    out.reserve(text.size());
    for (const Match& m : find_matches(text)) {
        if (m.is_match)
            out += with;
        else
            out.append(text.substr(m.begin, m.end - m.begin));
    }
    return out;
}

}  // namespace mosaic::genai::tokenizer
