// Binary arithmetic kernels (Add, Subtract, Multiply, Divide, Power, Maximum, Minimum,
// SquaredDifference, FloorMod, Mod), numpy broadcasting, for floating-point and integer types.
//
// Integer arithmetic wraps around modulo 2^N, as the integer units of real devices do; it is done
// in uint64_t so that signed overflow never happens in C++. Integer division or modulo by zero,
// undefined in the op specifications, throws.
#include "elementwise_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace mosaic::reference {

namespace {

template <typename T> constexpr bool is_int = std::is_integral_v<T>;

template <typename T> T wrap_add(T a, T b) {
    if constexpr (is_int<T>) return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    else return a + b;
}
template <typename T> T wrap_sub(T a, T b) {
    if constexpr (is_int<T>) return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
    else return a - b;
}
template <typename T> T wrap_mul(T a, T b) {
    if constexpr (is_int<T>) return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    else return a * b;
}

template <typename T> void check_divisor(T b, std::string_view op) {
    if (b == T{0}) throw std::runtime_error(std::string(op) + ": integer division by zero");
}

// Integer division, truncating (C) or flooring (Python); floats divide normally.
template <typename T> T divide(T a, T b, bool floor_division, std::string_view op) {
    if constexpr (!is_int<T>) {
        return a / b;
    } else {
        check_divisor(b, op);
        if constexpr (std::is_signed_v<T>)
            if (b == T{-1}) return wrap_sub(T{0}, a);  // INT_MIN / -1 would overflow
        T q = static_cast<T>(a / b);
        if constexpr (std::is_signed_v<T>)
            if (floor_division && a % b != 0 && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
        return q;
    }
}

// Remainder of truncated division: the sign follows the dividend (C's % and fmod).
template <typename T> T trunc_mod(T a, T b, std::string_view op) {
    if constexpr (!is_int<T>) {
        return std::fmod(a, b);
    } else {
        check_divisor(b, op);
        if constexpr (std::is_signed_v<T>)
            if (b == T{-1}) return T{0};
        return static_cast<T>(a % b);
    }
}

// Remainder of floored division: the sign follows the divisor (Python's %).
template <typename T> T floor_mod(T a, T b, std::string_view op) {
    T r = trunc_mod(a, b, op);
    if constexpr (std::is_signed_v<T> || !is_int<T>)
        if (r != T{0} && ((r < T{0}) != (b < T{0}))) r = static_cast<T>(r + b);
    return r;
}

template <typename T> T power(T base, T exponent, std::string_view op) {
    if constexpr (!is_int<T>) {
        return std::pow(base, exponent);
    } else {
        if constexpr (std::is_signed_v<T>) {
            if (exponent < 0) {  // |result| < 1 except for bases 1 and -1
                if (base == 0) throw std::runtime_error(std::string(op) + ": 0 raised to a negative power");
                if (base == 1) return T{1};
                if (base == -1) return (exponent % 2 == 0) ? T{1} : T{-1};
                return T{0};
            }
        }
        uint64_t result = 1, b = static_cast<uint64_t>(base), e = static_cast<uint64_t>(exponent);
        for (; e != 0; e >>= 1, b *= b)
            if (e & 1) result *= b;
        return static_cast<T>(result);
    }
}

bool python_division(const Attributes& attrs) {
    // The IR name is m_pythondiv; accept the spellings other tools have used.
    for (const char* name : {"m_pythondiv", "pythondivision", "m_pythondivision"})
        if (attrs.has(name)) return attrs.get_bool(name);
    return true;
}

enum class Arith { add, sub, mul, div, pow, max, min, sqdiff, floormod, mod };

template <Arith A>
void arithmetic_kernel(const KernelArgs& args) {
    const std::string_view op = args.op_type;
    const bool floor_div = A == Arith::div && python_division(args.attrs);
    dispatch<kNumeric>(args.inputs.at(0).type, op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        binary_map<T, T>(args, [&](T a, T b) -> T {
            if constexpr (A == Arith::add) return wrap_add(a, b);
            if constexpr (A == Arith::sub) return wrap_sub(a, b);
            if constexpr (A == Arith::mul) return wrap_mul(a, b);
            if constexpr (A == Arith::div) return divide(a, b, floor_div, op);
            if constexpr (A == Arith::pow) return power(a, b, op);
            if constexpr (A == Arith::max) return std::max(a, b);
            if constexpr (A == Arith::min) return std::min(a, b);
            if constexpr (A == Arith::sqdiff) return wrap_mul(wrap_sub(a, b), wrap_sub(a, b));
            if constexpr (A == Arith::floormod) return floor_mod(a, b, op);
            if constexpr (A == Arith::mod) return trunc_mod(a, b, op);
        });
    });
}

}  // namespace

void register_binary_arithmetic_kernels(KernelRegistry& r) {
    r.add("Add", {"opset1"}, arithmetic_kernel<Arith::add>);
    r.add("Subtract", {"opset1"}, arithmetic_kernel<Arith::sub>);
    r.add("Multiply", {"opset1"}, arithmetic_kernel<Arith::mul>);
    r.add("Divide", {"opset1"}, arithmetic_kernel<Arith::div>);
    r.add("Power", {"opset1"}, arithmetic_kernel<Arith::pow>);
    r.add("Maximum", {"opset1"}, arithmetic_kernel<Arith::max>);
    r.add("Minimum", {"opset1"}, arithmetic_kernel<Arith::min>);
    r.add("SquaredDifference", {"opset1"}, arithmetic_kernel<Arith::sqdiff>);
    r.add("FloorMod", {"opset1"}, arithmetic_kernel<Arith::floormod>);
    r.add("Mod", {"opset1"}, arithmetic_kernel<Arith::mod>);
}

}  // namespace mosaic::reference
