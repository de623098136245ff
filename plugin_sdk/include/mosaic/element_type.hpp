// Element types shared by the framework, the C++ plugin layer and the reference kernels.
// The numeric values equal the C ABI's mosaic_element_type so conversion is a cast.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mosaic {

enum class ElementType : uint32_t {
    undefined = 0,
    f32 = 1,
    f16 = 2,
    bf16 = 3,
    f64 = 4,
    i8 = 5,
    u8 = 6,
    i16 = 7,
    u16 = 8,
    i32 = 9,
    u32 = 10,
    i64 = 11,
    u64 = 12,
    boolean = 13,  // one byte per element, 0 or 1
};

// A dimension of -1 is dynamic; a shape with one cannot be compiled until reshaped.
using Shape = std::vector<int64_t>;
constexpr int64_t kDynamicDim = -1;

inline size_t element_size(ElementType t) {
    switch (t) {
        case ElementType::f64: case ElementType::i64: case ElementType::u64: return 8;
        case ElementType::f32: case ElementType::i32: case ElementType::u32: return 4;
        case ElementType::f16: case ElementType::bf16: case ElementType::i16: case ElementType::u16: return 2;
        case ElementType::i8: case ElementType::u8: case ElementType::boolean: return 1;
        case ElementType::undefined: return 0;
    }
    return 0;
}

inline bool is_floating(ElementType t) {
    return t == ElementType::f32 || t == ElementType::f16 || t == ElementType::bf16 || t == ElementType::f64;
}

inline bool is_integral(ElementType t) {
    return !is_floating(t) && t != ElementType::undefined && t != ElementType::boolean;
}

// Names as OpenVINO IR writes them in `element_type` attributes.
inline const char* to_string(ElementType t) {
    switch (t) {
        case ElementType::f32: return "f32";
        case ElementType::f16: return "f16";
        case ElementType::bf16: return "bf16";
        case ElementType::f64: return "f64";
        case ElementType::i8: return "i8";
        case ElementType::u8: return "u8";
        case ElementType::i16: return "i16";
        case ElementType::u16: return "u16";
        case ElementType::i32: return "i32";
        case ElementType::u32: return "u32";
        case ElementType::i64: return "i64";
        case ElementType::u64: return "u64";
        case ElementType::boolean: return "boolean";
        case ElementType::undefined: return "undefined";
    }
    return "undefined";
}

// Accepts IR v11 names ("f32") and the IR v10 port precisions ("FP32", "I64", "BOOL").
// Returns undefined for an unknown name so callers can report it with their own context.
inline ElementType element_type_from_string(std::string_view s) {
    static const struct { const char* name; ElementType type; } kNames[] = {
        {"f32", ElementType::f32},   {"FP32", ElementType::f32},   {"f16", ElementType::f16},
        {"FP16", ElementType::f16},  {"bf16", ElementType::bf16},  {"BF16", ElementType::bf16},
        {"f64", ElementType::f64},   {"FP64", ElementType::f64},   {"i8", ElementType::i8},
        {"I8", ElementType::i8},     {"u8", ElementType::u8},      {"U8", ElementType::u8},
        {"i16", ElementType::i16},   {"I16", ElementType::i16},    {"u16", ElementType::u16},
        {"U16", ElementType::u16},   {"i32", ElementType::i32},    {"I32", ElementType::i32},
        {"u32", ElementType::u32},   {"U32", ElementType::u32},    {"i64", ElementType::i64},
        {"I64", ElementType::i64},   {"u64", ElementType::u64},    {"U64", ElementType::u64},
        {"boolean", ElementType::boolean}, {"BOOL", ElementType::boolean},
        {"bool", ElementType::boolean},
    };
    for (const auto& n : kNames)
        if (s == n.name) return n.type;
    return ElementType::undefined;
}

inline int64_t shape_size(const Shape& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
}

// The byte size of a tensor, or false when it does not fit in 63 bits (a malformed model).
inline bool checked_byte_size(const Shape& s, ElementType t, int64_t& bytes) {
    int64_t n = static_cast<int64_t>(element_size(t));
    for (int64_t d : s)
        if (d < 0 || __builtin_mul_overflow(n, d, &n)) return false;
    bytes = n;
    return true;
}

inline bool is_static(const Shape& s) {
    for (int64_t d : s)
        if (d < 0) return false;
    return true;
}

inline std::string to_string(const Shape& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) {
        if (i) out += ",";
        out += s[i] < 0 ? std::string("?") : std::to_string(s[i]);
    }
    return out + "]";
}

// IEEE half and bfloat16 conversions (round to nearest even), used wherever a 16-bit float is
// widened for computation or narrowed for storage.
inline float f16_to_f32(uint16_t h) {
    uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {  // subnormal: normalise
            exp = 127 - 15 + 1;
            while (!(mant & 0x400)) { mant <<= 1; --exp; }
            bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

inline uint16_t f32_to_f16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
    if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
    if (absx < 0x38800000u) {  // result is subnormal or zero
        if (absx < 0x33000000u) return static_cast<uint16_t>(sign);
        uint32_t e = absx >> 23, m = (absx & 0x7fffff) | 0x800000;
        uint32_t shift = 126 - e;  // 14 + (113 - e)
        uint32_t half = m >> shift, rem = m & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) ++half;
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = ((absx - 0x38000000u) >> 13);
    uint32_t rem = absx & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
}

inline float bf16_to_f32(uint16_t b) {
    uint32_t bits = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

inline uint16_t f32_to_bf16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
    x += 0x7fff + ((x >> 16) & 1);
    return static_cast<uint16_t>(x >> 16);
}

}  // namespace mosaic
