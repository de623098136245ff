// Unary arithmetic kernels: exact ones (Abs, Negative, Sign, Floor, Ceiling, Round) and real
// functions (Exp, Log, Sqrt, Erf, Sigmoid, Tanh and the trigonometric family).
//
// Real functions are evaluated in double. For integer tensors the result is rounded to the
// nearest integer (halves away from zero) and saturated to the type's range, as the OpenVINO
// specifications state for integer inputs ("rounded (half up) to the nearest integer").
#include "elementwise_kernels.hpp"

#include <cctype>
#include <cmath>
#include <type_traits>

namespace mosaic::reference {

namespace {

enum class Real { exp, log, sqrt, erf, sigmoid, tanh, sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh };

template <Real F> double evaluate(double x) {
    if constexpr (F == Real::exp) return std::exp(x);
    if constexpr (F == Real::log) return std::log(x);
    if constexpr (F == Real::sqrt) return std::sqrt(x);
    if constexpr (F == Real::erf) return std::erf(x);
    if constexpr (F == Real::sigmoid) return 1.0 / (1.0 + std::exp(-x));
    if constexpr (F == Real::tanh) return std::tanh(x);
    if constexpr (F == Real::sin) return std::sin(x);
    if constexpr (F == Real::cos) return std::cos(x);
    if constexpr (F == Real::tan) return std::tan(x);
    if constexpr (F == Real::asin) return std::asin(x);
    if constexpr (F == Real::acos) return std::acos(x);
    if constexpr (F == Real::atan) return std::atan(x);
    if constexpr (F == Real::sinh) return std::sinh(x);
    if constexpr (F == Real::cosh) return std::cosh(x);
    if constexpr (F == Real::asinh) return std::asinh(x);
    if constexpr (F == Real::acosh) return std::acosh(x);
    if constexpr (F == Real::atanh) return std::atanh(x);
}

template <Real F>
void real_kernel(const KernelArgs& args) {
    require_io(args, 1, 1, 1);
    dispatch<kNumeric>(args.inputs[0].type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        unary_map<T, T>(args, [](T x) -> T {
            const double y = evaluate<F>(static_cast<double>(x));
            if constexpr (std::is_integral_v<T>) return saturate_to_integer<T>(std::round(y));
            else return static_cast<T>(y);
        });
    });
}

enum class Exact { abs, negative, sign, floor, ceiling };

// -x, wrapping for integers (the negation of the minimum integer is itself).
template <typename T> T negate(T x) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(uint64_t{0} - static_cast<uint64_t>(x));
    else return -x;
}

template <Exact F>
void exact_kernel(const KernelArgs& args) {
    require_io(args, 1, 1, 1);
    dispatch<kNumeric>(args.inputs[0].type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        unary_map<T, T>(args, [](T x) -> T {
            if constexpr (F == Exact::abs) {
                if constexpr (std::is_unsigned_v<T>) return x;
                else return x < T{0} ? negate(x) : x;
            }
            if constexpr (F == Exact::negative) return negate(x);
            if constexpr (F == Exact::sign) return static_cast<T>((T{0} < x) - (x < T{0}));
            if constexpr (F == Exact::floor) {
                if constexpr (std::is_integral_v<T>) return x;
                else return std::floor(x);
            }
            if constexpr (F == Exact::ceiling) {
                if constexpr (std::is_integral_v<T>) return x;
                else return std::ceil(x);
            }
        });
    });
}

double round_half_to_even(double x) {
    if (std::fabs(x - std::trunc(x)) == 0.5) return 2.0 * std::round(x / 2.0);
    return std::round(x);
}

void round_kernel(const KernelArgs& args) {
    require_io(args, 1, 1, 1);
    std::string mode = args.attrs.get_string("mode", "half_to_even");
    for (char& c : mode) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (mode != "half_to_even" && mode != "half_away_from_zero")
        throw std::runtime_error("Round: mode '" + mode + "' is not half_to_even or half_away_from_zero");
    const bool to_even = mode == "half_to_even";
    dispatch<kNumeric>(args.inputs[0].type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        unary_map<T, T>(args, [to_even](T x) -> T {
            if constexpr (std::is_integral_v<T>) return x;
            else return static_cast<T>(to_even ? round_half_to_even(x) : std::round(x));
        });
    });
}

}  // namespace

void register_unary_math_kernels(KernelRegistry& r) {
    r.add("Abs", {"opset1"}, exact_kernel<Exact::abs>);
    r.add("Negative", {"opset1"}, exact_kernel<Exact::negative>);
    r.add("Sign", {"opset1"}, exact_kernel<Exact::sign>);
    r.add("Floor", {"opset1"}, exact_kernel<Exact::floor>);
    r.add("Ceiling", {"opset1"}, exact_kernel<Exact::ceiling>);
    r.add("Round", {"opset5"}, round_kernel);
    r.add("Exp", {"opset1"}, real_kernel<Real::exp>);
    r.add("Log", {"opset1"}, real_kernel<Real::log>);
    r.add("Sqrt", {"opset1"}, real_kernel<Real::sqrt>);
    r.add("Erf", {"opset1"}, real_kernel<Real::erf>);
    r.add("Sigmoid", {"opset1"}, real_kernel<Real::sigmoid>);
    r.add("Tanh", {"opset1"}, real_kernel<Real::tanh>);
    r.add("Sin", {"opset1"}, real_kernel<Real::sin>);
    r.add("Cos", {"opset1"}, real_kernel<Real::cos>);
    r.add("Tan", {"opset1"}, real_kernel<Real::tan>);
    r.add("Asin", {"opset1"}, real_kernel<Real::asin>);
    r.add("Acos", {"opset1"}, real_kernel<Real::acos>);
    r.add("Atan", {"opset1"}, real_kernel<Real::atan>);
    r.add("Sinh", {"opset1"}, real_kernel<Real::sinh>);
    r.add("Cosh", {"opset1"}, real_kernel<Real::cosh>);
    // Specified as Asinh-3 etc., but OpenVINO writes these ops with version "opset4" in IR.
    r.add("Asinh", {"opset3", "opset4"}, real_kernel<Real::asinh>);
    r.add("Acosh", {"opset3", "opset4"}, real_kernel<Real::acosh>);
    r.add("Atanh", {"opset3", "opset4"}, real_kernel<Real::atanh>);
}

}  // namespace mosaic::reference
