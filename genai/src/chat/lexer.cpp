#include "chat/lexer.hpp"

#include "chat/error.hpp"
#include "chat/value.hpp"
#include "tokenizer/utf8.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace mosaic::genai::chat {

using tokenizer::append_utf8;  // Python's \x, \u and \U escapes in string literals

void template_error(int line, int column, const std::string& message) {
    throw ChatTemplateError("chat template line " + std::to_string(line) + ":" + std::to_string(column) + ": " +
                            message);
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }
bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

class Lexer {
public:
    explicit Lexer(const std::string& raw) {
        // jinja2 reads \r\n and \r as \n, and drops one final newline (keep_trailing_newline=False).
        src_.reserve(raw.size());
        for (size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] == '\r') {
                src_ += '\n';
                if (i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
            } else src_ += raw[i];
        }
        if (!src_.empty() && src_.back() == '\n') src_.pop_back();
        line_starts_.push_back(0);
        for (size_t i = 0; i < src_.size(); ++i)
            if (src_[i] == '\n') line_starts_.push_back(i + 1);
    }

    std::vector<Token> run() {
        size_t pos = 0;
        const size_t n = src_.size();
        while (pos < n) {
            size_t start = find_tag(pos);
            if (start == std::string::npos) {
                emit(Token::Kind::Data, src_.substr(pos), pos);
                break;
            }
            const char kind = src_[start + 1];
            size_t p = start + 2;
            const char sign = p < n && (src_[p] == '-' || src_[p] == '+') ? src_[p] : 0;
            if (sign) ++p;
            std::string text = src_.substr(pos, start - pos);
            size_t raw_body = 0;
            const bool raw = kind == '%' && raw_begin(p, raw_body);
            strip_before(text, sign, kind != '{');
            if (!text.empty()) emit(Token::Kind::Data, text, pos);
            if (kind == '#') pos = comment(start, p);
            else if (raw) pos = raw_block(start, raw_body);
            else pos = tag(start, p, kind == '%');
        }
        tokens_.push_back(Token{Token::Kind::End, "", 0, 0});
        locate(tokens_.back(), src_.size());
        return std::move(tokens_);
    }

private:
    std::string src_;
    std::vector<size_t> line_starts_;
    std::vector<Token> tokens_;
    // jinja2's line_starting: whether the last match ended a line (lstrip_blocks then applies to
    // text without a newline of its own).
    bool line_starting_ = true;

    void locate(Token& t, size_t offset) const {
        auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
        const size_t line = static_cast<size_t>(it - line_starts_.begin());
        t.line = static_cast<int>(line);
        t.column = static_cast<int>(offset - line_starts_[line - 1] + 1);
    }

    [[noreturn]] void error(size_t offset, const std::string& message) const {
        Token t;
        locate(t, offset);
        template_error(t.line, t.column, message);
    }

    void emit(Token::Kind kind, std::string text, size_t offset) {
        Token t{kind, std::move(text), 0, 0};
        locate(t, offset);
        tokens_.push_back(std::move(t));
    }

    bool starts(size_t p, const char* s) const { return src_.compare(p, std::strlen(s), s) == 0; }

    size_t find_tag(size_t pos) const {
        for (size_t i = src_.find('{', pos); i != std::string::npos; i = src_.find('{', i + 1))
            if (i + 1 < src_.size() && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#')) return i;
        return std::string::npos;
    }

    // Python's \s*, Unicode whitespace included.
    size_t skip_space(size_t p) const {
        while (p < src_.size()) {
            auto cps = code_points(src_.substr(p, 4));
            const std::string& cp = cps.front();
            uint32_t v = static_cast<unsigned char>(cp[0]);
            if (cp.size() > 1) {
                v = cp.size() == 2 ? (v & 0x1F) : cp.size() == 3 ? (v & 0x0F) : (v & 0x07);
                for (size_t k = 1; k < cp.size(); ++k) v = (v << 6) | (static_cast<unsigned char>(cp[k]) & 0x3F);
            }
            if (!is_py_space(v)) break;
            p += cp.size();
        }
        return p;
    }

    void strip_before(std::string& text, char sign, bool lstrip) const {
        if (sign == '-') {
            text = py_strip(text, Value(), false, true);
        } else if (sign != '+' && lstrip) {
            const size_t nl = text.rfind('\n');
            const size_t l_pos = nl == std::string::npos ? 0 : nl + 1;
            if (l_pos > 0 || line_starting_) {
                const std::string tail = text.substr(l_pos);
                if (!tail.empty() && py_strip(tail, Value(), true, false).empty()) text.resize(l_pos);
            }
        }
    }

    // `{% raw %}`: p is past `{%` and its sign; sets body to where the raw text starts.
    bool raw_begin(size_t p, size_t& body) {
        size_t q = skip_space(p);
        if (!starts(q, "raw")) return false;
        q = skip_space(q + 3);
        if (starts(q, "-%}")) body = skip_space(q + 3);
        else if (starts(q, "%}")) body = q + 2;
        else return false;
        return true;
    }

    // The end of a block tag: `+%}`, `-%}` and following whitespace, or `%}` and (trim_blocks) one newline.
    size_t block_end(size_t q, char kind) const {
        if (src_[q] == '+') return q + 3;
        if (src_[q] == '-') return skip_space(q + 3);
        size_t end = q + 2;
        (void)kind;
        if (end < src_.size() && src_[end] == '\n') ++end;
        return end;
    }

    size_t comment(size_t start, size_t p) {
        size_t e = src_.find("#}", p);
        if (e == std::string::npos) error(start, "Missing end of comment tag");
        size_t q = e;
        if (e > p && (src_[e - 1] == '-' || src_[e - 1] == '+')) q = e - 1;
        size_t end = src_[q] == '#' ? block_end(q, '#') : block_end(q, '#');
        line_starting_ = src_[end - 1] == '\n';
        return end;
    }

    size_t raw_block(size_t start, size_t body) {
        line_starting_ = src_[body - 1] == '\n';
        for (size_t i = src_.find("{%", body); i != std::string::npos; i = src_.find("{%", i + 1)) {
            size_t q = i + 2;
            const char sign = q < src_.size() && (src_[q] == '-' || src_[q] == '+') ? src_[q] : 0;
            if (sign) ++q;
            q = skip_space(q);
            if (!starts(q, "endraw")) continue;
            q = skip_space(q + 6);
            if (!(starts(q, "+%}") || starts(q, "-%}") || starts(q, "%}"))) continue;
            std::string text = src_.substr(body, i - body);
            strip_before(text, sign, true);
            if (!text.empty()) emit(Token::Kind::Data, text, body);
            size_t end = block_end(q, '%');
            line_starting_ = src_[end - 1] == '\n';
            return end;
        }
        error(start, "Missing end of raw directive");
    }

    size_t digits(size_t p) const {
        // (\d+_)*\d+
        while (p < src_.size() && is_digit(src_[p])) {
            ++p;
            if (p + 1 < src_.size() && src_[p] == '_' && is_digit(src_[p + 1])) ++p;
        }
        return p;
    }

    size_t tag(size_t start, size_t p, bool block) {
        emit(block ? Token::Kind::BlockBegin : Token::Kind::VarBegin, src_.substr(start, p - start), start);
        std::vector<char> balance;
        size_t q = p;
        const size_t n = src_.size();
        while (true) {
            if (q >= n)
                error(start, std::string("unexpected end of template, expected '") +
                                 (block ? "end of statement block" : "end of print statement") + "'");
            if (balance.empty()) {
                if (block && (starts(q, "+%}") || starts(q, "-%}") || starts(q, "%}"))) {
                    size_t end = block_end(q, '%');
                    emit(Token::Kind::BlockEnd, src_.substr(q, end - q), q);
                    line_starting_ = src_[end - 1] == '\n';
                    return end;
                }
                if (!block && (starts(q, "-}}") || starts(q, "}}"))) {
                    size_t end = src_[q] == '-' ? skip_space(q + 3) : q + 2;
                    emit(Token::Kind::VarEnd, src_.substr(q, end - q), q);
                    line_starting_ = src_[end - 1] == '\n';
                    return end;
                }
            }
            const char c = src_[q];
            if (is_ascii_space(c)) {
                ++q;
                continue;
            }
            if (is_digit(c)) {
                size_t r = digits(q);
                size_t t = r;
                bool frac = false, exp = false;
                if (t + 1 < n && src_[t] == '.' && is_digit(src_[t + 1]) && (q == 0 || src_[q - 1] != '.')) {
                    t = digits(t + 1);
                    frac = true;
                }
                size_t u = t;
                if (u < n && (src_[u] == 'e' || src_[u] == 'E') && (q == 0 || src_[q - 1] != '.')) {
                    size_t v = u + 1;
                    if (v < n && (src_[v] == '+' || src_[v] == '-')) ++v;
                    if (v < n && is_digit(src_[v])) {
                        u = digits(v);
                        exp = true;
                    }
                }
                const size_t end = exp ? u : frac ? t : r;
                std::string text = src_.substr(q, end - q);
                text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
                emit(frac || exp ? Token::Kind::Float : Token::Kind::Integer, text, q);
                q = end;
                continue;
            }
            if (is_name_start(c)) {
                size_t r = q;
                while (r < n && is_name_char(src_[r])) ++r;
                emit(Token::Kind::Name, src_.substr(q, r - q), q);
                q = r;
                continue;
            }
            if (c == '\'' || c == '"') {
                q = string(q);
                continue;
            }
            static const char* const ops[] = {"//", "**", "==", "!=", ">=", "<=", "+", "-", "/", "*", "%", "~", "[",
                                              "]", "(", ")", "{", "}", ">", "<", "=", ".", ":", "|", ",", ";"};
            const char* op = nullptr;
            for (const char* o : ops)
                if (starts(q, o)) {
                    op = o;
                    break;
                }
            if (!op) error(q, std::string("unexpected char '") + c + "'");
            if (*op == '{' || *op == '(' || *op == '[') balance.push_back(*op == '{' ? '}' : *op == '(' ? ')' : ']');
            if (*op == '}' || *op == ')' || *op == ']') {
                if (balance.empty()) error(q, std::string("unexpected '") + op + "'");
                if (balance.back() != *op)
                    error(q, std::string("unexpected '") + op + "', expected '" + balance.back() + "'");
                balance.pop_back();
            }
            emit(Token::Kind::Operator, op, q);
            q += std::strlen(op);
        }
    }

    // Python's string escapes (jinja2 decodes with "unicode-escape"); unknown ones stay as written.
    size_t string(size_t q) {
        const char quote = src_[q];
        std::string out;
        size_t i = q + 1;
        const size_t n = src_.size();
        while (true) {
            if (i >= n) error(q, "unexpected end of string");
            char c = src_[i];
            if (c == quote) break;
            if (c != '\\') {
                out += c;
                ++i;
                continue;
            }
            if (i + 1 >= n) error(q, "unexpected end of string");
            char e = src_[i + 1];
            i += 2;
            auto hex = [&](int count) {
                uint32_t v = 0;
                for (int k = 0; k < count; ++k, ++i) {
                    if (i >= n || !std::isxdigit(static_cast<unsigned char>(src_[i])))
                        error(q, "truncated \\x/\\u escape in string");
                    char h = src_[i];
                    v = v * 16 + static_cast<uint32_t>(is_digit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
                }
                return v;
            };
            switch (e) {
            case '\n': break;
            case '\\': out += '\\'; break;
            case '\'': out += '\''; break;
            case '"': out += '"'; break;
            case 'a': out += '\a'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'v': out += '\v'; break;
            case 'x': append_utf8(out, hex(2)); break;
            case 'u': append_utf8(out, hex(4)); break;
            case 'U': {
                uint32_t v = hex(8);
                if (v > 0x10FFFF) error(q, "illegal Unicode character in string");
                append_utf8(out, v);
                break;
            }
            default:
                if (e >= '0' && e <= '7') {
                    uint32_t v = static_cast<uint32_t>(e - '0');
                    for (int k = 0; k < 2 && i < n && src_[i] >= '0' && src_[i] <= '7'; ++k, ++i)
                        v = v * 8 + static_cast<uint32_t>(src_[i] - '0');
                    append_utf8(out, v);
                } else {
                    out += '\\';
                    out += e;
                }
            }
        }
        emit(Token::Kind::String, out, q);
        return i + 1;
    }
};

}  // namespace

std::vector<Token> tokenize(const std::string& source) { return Lexer(source).run(); }

}  // namespace mosaic::genai::chat
