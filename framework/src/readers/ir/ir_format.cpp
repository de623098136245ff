#include "readers/ir/ir_format.hpp"

#include <charconv>
#include <utility>

namespace mosaic::ir {

namespace {

// {opset spelling, IR spelling}
constexpr std::pair<const char*, const char*> kLegacyTypeNames[] = {
    {"Constant", "Const"}, {"Relu", "ReLU"}, {"Softmax", "SoftMax"}, {"PRelu", "PReLU"}};

std::string_view trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) return {};
    const auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::optional<int64_t> parse_non_negative(std::string_view s) {
    int64_t v = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || v < 0) return std::nullopt;
    return v;
}

}  // namespace

std::string op_type_from_ir(const std::string& ir_type) {
    for (const auto& [op, ir] : kLegacyTypeNames)
        if (ir_type == ir) return op;
    return ir_type;
}

std::string op_type_to_ir(const std::string& op_type) {
    for (const auto& [op, ir] : kLegacyTypeNames)
        if (op_type == op) return ir;
    return op_type;
}

const char* precision_name(ElementType type) {
    switch (type) {
        case ElementType::f32: return "FP32";
        case ElementType::f16: return "FP16";
        case ElementType::bf16: return "BF16";
        case ElementType::f64: return "FP64";
        case ElementType::i8: return "I8";
        case ElementType::u8: return "U8";
        case ElementType::i16: return "I16";
        case ElementType::u16: return "U16";
        case ElementType::i32: return "I32";
        case ElementType::u32: return "U32";
        case ElementType::i64: return "I64";
        case ElementType::u64: return "U64";
        case ElementType::boolean: return "BOOL";
        case ElementType::undefined: return "UNSPECIFIED";
    }
    return "UNSPECIFIED";
}

bool is_unspecified_precision(std::string_view precision) {
    return precision == "UNSPECIFIED" || precision == "dynamic" || precision == "undefined";
}

std::optional<int64_t> parse_dim(std::string_view text) {
    const std::string_view s = trim(text);
    if (s == "?" || s == "-1") return kDynamicDim;
    const auto dots = s.find("..");
    if (dots == std::string_view::npos) return parse_non_negative(s);
    // A bounded dimension "lo..hi": either bound may be missing.
    const std::string_view lo = trim(s.substr(0, dots)), hi = trim(s.substr(dots + 2));
    const auto l = lo.empty() ? std::optional<int64_t>(0) : parse_non_negative(lo);
    const auto h = hi.empty() ? std::optional<int64_t>(0) : parse_non_negative(hi);
    if (!l || !h) return std::nullopt;
    if (!lo.empty() && !hi.empty() && *l == *h) return *l;  // "3..3" is the static dim 3
    return kDynamicDim;
}

std::optional<Shape> parse_shape_attr(const std::string& text, std::string* bad_item) {
    Shape shape;
    if (trim(text).empty()) return shape;
    size_t start = 0;
    while (true) {
        const size_t comma = text.find(',', start);
        const std::string item =
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto dim = parse_dim(item);
        if (!dim) {
            if (bad_item) *bad_item = item;
            return std::nullopt;
        }
        shape.push_back(*dim);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return shape;
}

std::vector<std::string> split_tensor_names(const std::string& text) {
    std::vector<std::string> names;
    std::string current;
    auto flush = [&] {
        if (!current.empty()) names.push_back(std::move(current));
        current.clear();
    };
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == ',') {
            current += ',';
            ++i;
        } else if (text[i] == ',') {
            flush();
        } else {
            current += text[i];
        }
    }
    flush();
    return names;
}

std::string join_tensor_names(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names) {
        if (!out.empty()) out += ',';
        for (char c : name) {
            if (c == ',') out += '\\';
            out += c;
        }
    }
    return out;
}

}  // namespace mosaic::ir
