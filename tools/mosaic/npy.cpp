// The .npy format: the magic "\x93NUMPY", a major and minor version byte, the header length
// (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), then a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 32, 32), }
// padded with spaces and a newline so that the data starts on a 64-byte boundary.
#include "npy.hpp"

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

namespace mosaic::npy {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kAlignment = 64;

struct DtypeName {
    const char* code;  // without the byte-order character
    ElementType type;
};

constexpr DtypeName kDtypes[] = {
    {"f4", ElementType::f32}, {"f8", ElementType::f64}, {"f2", ElementType::f16}, {"i1", ElementType::i8},
    {"u1", ElementType::u8},  {"i2", ElementType::i16}, {"u2", ElementType::u16}, {"i4", ElementType::i32},
    {"u4", ElementType::u32}, {"i8", ElementType::i64}, {"u8", ElementType::u64}, {"b1", ElementType::boolean},
};

const char* supported_list() { return "<f4 <f8 <f2 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 |b1"; }

// The header dict, parsed by a small recursive-descent reader of the Python literal subset
// NumPy writes: string keys, string / True / False / tuple-of-int values.
struct Header {
    std::string descr;
    bool fortran_order = false;
    Shape shape;
};

class HeaderParser {
public:
    HeaderParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

    Header parse() {
        Header h;
        bool have_descr = false, have_order = false, have_shape = false;
        expect('{');
        while (true) {
            skip_space();
            if (peek() == '}') {
                ++pos_;
                break;
            }
            const std::string key = string_literal();
            expect(':');
            if (key == "descr") {
                skip_space();
                if (peek() == '[') fail("structured dtypes (a list 'descr') are not supported; save a plain array");
                h.descr = string_literal();
                have_descr = true;
            } else if (key == "fortran_order") {
                h.fortran_order = boolean();
                have_order = true;
            } else if (key == "shape") {
                h.shape = tuple();
                have_shape = true;
            } else {
                fail("unexpected key '" + key + "' in the header");
            }
            skip_space();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            expect('}');
            break;
        }
        skip_space();
        if (pos_ != text_.size()) fail("unexpected text after the header dict");
        if (!have_descr) fail("the header has no 'descr'");
        if (!have_order) fail("the header has no 'fortran_order'");
        if (!have_shape) fail("the header has no 'shape'");
        return h;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw NpyError(source_ + ": malformed .npy header: " + what);
    }

    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

    void skip_space() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }

    void expect(char c) {
        skip_space();
        if (peek() != c) {
            const std::string found = pos_ < text_.size() ? "'" + std::string(1, text_[pos_]) + "'" : "the end";
            fail("expected '" + std::string(1, c) + "' at offset " + std::to_string(pos_) + ", found " + found);
        }
        ++pos_;
    }

    std::string string_literal() {
        skip_space();
        const char quote = peek();
        if (quote != '\'' && quote != '"') fail("expected a quoted string at offset " + std::to_string(pos_));
        ++pos_;
        std::string out;
        while (pos_ < text_.size() && text_[pos_] != quote) out += text_[pos_++];
        if (pos_ >= text_.size()) fail("unterminated string");
        ++pos_;
        return out;
    }

    bool boolean() {
        skip_space();
        for (const auto& [word, value] : {std::pair<std::string_view, bool>{"True", true}, {"False", false}}) {
            if (text_.substr(pos_, word.size()) == word) {
                pos_ += word.size();
                return value;
            }
        }
        fail("expected True or False at offset " + std::to_string(pos_));
    }

    int64_t integer() {
        skip_space();
        if (peek() == '-') fail("negative dimension in 'shape'");
        if (!std::isdigit(static_cast<unsigned char>(peek())))
            fail("expected a dimension in 'shape' at offset " + std::to_string(pos_));
        int64_t v = 0;
        while (std::isdigit(static_cast<unsigned char>(peek()))) {
            const int digit = text_[pos_++] - '0';
            if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) fail("dimension in 'shape' is too large");
            v = v * 10 + digit;
        }
        if (peek() == 'L') ++pos_;  // Python 2 long literal
        return v;
    }

    Shape tuple() {
        expect('(');
        Shape out;
        while (true) {
            skip_space();
            if (peek() == ')') {
                ++pos_;
                break;
            }
            out.push_back(integer());
            skip_space();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            expect(')');
            break;
        }
        return out;
    }

    std::string_view text_;
    const std::string& source_;
    size_t pos_ = 0;
};

uint32_t read_le(std::string_view bytes, size_t offset, size_t width) {
    uint32_t v = 0;
    for (size_t i = 0; i < width; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
    return v;
}

ElementType checked_type(const std::string& descr, const std::string& source) {
    if (!descr.empty() && descr[0] == '>' && element_type_of("<" + descr.substr(1)) != ElementType::undefined)
        throw NpyError(source + ": big-endian dtype '" + descr + "' is not supported; convert with a.astype('<" +
                       descr.substr(1) + "')");
    const ElementType t = element_type_of(descr);
    if (t == ElementType::undefined)
        throw NpyError(source + ": unsupported dtype '" + descr + "'; supported: " + supported_list());
    return t;
}

std::string shape_tuple(const Shape& shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    if (shape.size() == 1) s += ",";
    return s + ")";
}

}  // namespace

std::string dtype_of(ElementType type) {
    for (const auto& d : kDtypes)
        if (d.type == type) return std::string(element_size(type) == 1 ? "|" : "<") + d.code;
    throw NpyError(std::string("element type ") + to_string(type) + " has no .npy dtype");
}

ElementType element_type_of(std::string_view dtype) {
    if (dtype.size() != 3) return ElementType::undefined;
    const char order = dtype[0];
    for (const auto& d : kDtypes) {
        if (dtype.substr(1) != d.code) continue;
        // '=' is native order, little-endian on every host Mosaic builds for; '|' means "not
        // applicable" and NumPy writes it only for one-byte types.
        const bool one_byte = element_size(d.type) == 1;
        if (order == '<' || order == '=' || (order == '|' && one_byte)) return d.type;
        return ElementType::undefined;
    }
    return ElementType::undefined;
}

Tensor parse(std::string_view bytes, const std::string& source) {
    if (bytes.size() < kMagicSize + 2 || bytes.substr(0, kMagicSize) != std::string_view(kMagic, kMagicSize))
        throw NpyError(source + ": not a .npy file (the magic string \\x93NUMPY is missing)");
    const int major = static_cast<unsigned char>(bytes[kMagicSize]);
    const int minor = static_cast<unsigned char>(bytes[kMagicSize + 1]);
    if ((major != 1 && major != 2 && major != 3) || minor != 0)
        throw NpyError(source + ": unsupported .npy format version " + std::to_string(major) + "." +
                       std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
    const size_t len_width = major == 1 ? 2 : 4;
    const size_t prefix = kMagicSize + 2 + len_width;
    if (bytes.size() < prefix) throw NpyError(source + ": truncated .npy file: the header length is missing");
    const size_t header_len = read_le(bytes, kMagicSize + 2, len_width);
    if (bytes.size() - prefix < header_len)
        throw NpyError(source + ": truncated .npy file: the header says " + std::to_string(header_len) +
                       " bytes, the file has " + std::to_string(bytes.size() - prefix) + " after the prefix");

    const Header h = HeaderParser(bytes.substr(prefix, header_len), source).parse();
    const ElementType type = checked_type(h.descr, source);
    if (h.fortran_order)
        throw NpyError(source + ": Fortran-order arrays are not supported; save a C-order array "
                                "(np.save(path, np.ascontiguousarray(a)))");

    uint64_t count = 1;
    for (int64_t d : h.shape) {
        if (d != 0 && count > std::numeric_limits<uint64_t>::max() / element_size(type) / static_cast<uint64_t>(d))
            throw NpyError(source + ": shape " + to_string(h.shape) + " is too large");
        count *= static_cast<uint64_t>(d);
    }
    const uint64_t data_bytes = count * element_size(type);
    const size_t available = bytes.size() - prefix - header_len;
    if (available != data_bytes)
        throw NpyError(source + ": the data of a " + h.descr + " array of shape " + to_string(h.shape) + " takes " +
                       std::to_string(data_bytes) + " bytes, the file holds " + std::to_string(available) +
                       (available < data_bytes ? " (truncated)" : ""));

    Tensor t(type, h.shape);
    if (data_bytes) std::memcpy(t.data(), bytes.data() + prefix + header_len, data_bytes);
    return t;
}

std::string serialize(const Tensor& tensor) {
    std::string dict = "{'descr': '" + dtype_of(tensor.get_element_type()) +
                       "', 'fortran_order': False, 'shape': " + shape_tuple(tensor.get_shape()) + ", }";
    // Pad with spaces and a final newline so that the data starts on a 64-byte boundary.
    size_t len_width = 2;
    size_t total = kMagicSize + 2 + len_width + dict.size() + 1;
    size_t padded = (total + kAlignment - 1) / kAlignment * kAlignment;
    if (padded - kMagicSize - 2 - len_width > 0xffff) {
        len_width = 4;
        total = kMagicSize + 2 + len_width + dict.size() + 1;
        padded = (total + kAlignment - 1) / kAlignment * kAlignment;
    }
    const size_t header_len = padded - kMagicSize - 2 - len_width;
    dict.append(header_len - dict.size() - 1, ' ');
    dict += '\n';

    std::string out(kMagic, kMagicSize);
    out += static_cast<char>(len_width == 2 ? 1 : 2);
    out += '\0';
    for (size_t i = 0; i < len_width; ++i) out += static_cast<char>((header_len >> (8 * i)) & 0xff);
    out += dict;
    out.append(static_cast<const char*>(tensor.data()), tensor.get_byte_size());
    return out;
}

Tensor read(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw NpyError("'" + path + "' does not exist");
    if (std::filesystem::is_directory(path, ec)) throw NpyError("'" + path + "' is a directory, not a .npy file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw NpyError("cannot open '" + path + "' for reading");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) throw NpyError("error reading '" + path + "'");
    return parse(buffer.str(), path);
}

void write(const std::string& path, const Tensor& tensor) {
    const std::string bytes = serialize(tensor);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw NpyError("cannot open '" + path + "' for writing");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw NpyError("error writing '" + path + "'");
}

}  // namespace mosaic::npy
