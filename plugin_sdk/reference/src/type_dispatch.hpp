// Runs a generic kernel body for the C++ type of a tensor's element type, so a kernel is written
// once as a template instead of once per type:
//
//   dispatch<kNumeric>(args.inputs[0].type, args.op_type, [&](auto tag) {
//       using T = typename decltype(tag)::type;
//       ...
//   });
//
// Only the type classes named in the template argument are instantiated, so a body may use
// operations that do not compile for the other classes (std::abs on bool, % on float...).
// Element type boolean maps to C++ bool (one byte, 0 or 1, as the tensor contract guarantees).
#pragma once

#include <mosaic/element_type.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace mosaic::reference {

template <typename T> struct Tag { using type = T; };

enum TypeClass : unsigned {
    kFloat = 1,      // f32, f64 (f16/bf16 are widened to f32 before a kernel runs)
    kSigned = 2,     // i8, i16, i32, i64
    kUnsigned = 4,   // u8, u16, u32, u64
    kBool = 8,       // boolean
    kInteger = kSigned | kUnsigned,
    kNumeric = kFloat | kInteger,
    kAnyType = kNumeric | kBool,
};

[[noreturn]] inline void unsupported_type(std::string_view op, ElementType t) {
    throw std::runtime_error(std::string(op) + ": element type " + to_string(t) + " is not supported");
}

template <unsigned Allowed, typename Fn>
void dispatch(ElementType t, std::string_view op, Fn&& fn) {
    switch (t) {
        case ElementType::f32: if constexpr ((Allowed & kFloat) != 0) return fn(Tag<float>{}); break;
        case ElementType::f64: if constexpr ((Allowed & kFloat) != 0) return fn(Tag<double>{}); break;
        case ElementType::i8: if constexpr ((Allowed & kSigned) != 0) return fn(Tag<int8_t>{}); break;
        case ElementType::i16: if constexpr ((Allowed & kSigned) != 0) return fn(Tag<int16_t>{}); break;
        case ElementType::i32: if constexpr ((Allowed & kSigned) != 0) return fn(Tag<int32_t>{}); break;
        case ElementType::i64: if constexpr ((Allowed & kSigned) != 0) return fn(Tag<int64_t>{}); break;
        case ElementType::u8: if constexpr ((Allowed & kUnsigned) != 0) return fn(Tag<uint8_t>{}); break;
        case ElementType::u16: if constexpr ((Allowed & kUnsigned) != 0) return fn(Tag<uint16_t>{}); break;
        case ElementType::u32: if constexpr ((Allowed & kUnsigned) != 0) return fn(Tag<uint32_t>{}); break;
        case ElementType::u64: if constexpr ((Allowed & kUnsigned) != 0) return fn(Tag<uint64_t>{}); break;
        case ElementType::boolean: if constexpr ((Allowed & kBool) != 0) return fn(Tag<bool>{}); break;
        default: break;
    }
    unsupported_type(op, t);
}

// A floating-point value converted to an integer type: truncated toward zero, saturated to the
// type's range, NaN -> 0. Used wherever a real result must land in an integer tensor.
template <typename T>
T saturate_to_integer(double v) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
    if (std::isnan(v)) return T{0};
    const double t = std::trunc(v);
    // (double)max may round up to 2^N; anything at or above it saturates.
    if (t >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    if (t <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    return static_cast<T>(t);
}

}  // namespace mosaic::reference
