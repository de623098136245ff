#include "summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

namespace mosaic::cli {

namespace {

constexpr size_t kMaxRows = 8;  // rows of a classifier output shown with their argmax
constexpr size_t kTopK = 5;

std::string format_double(double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.6g", v);
    return buf;
}

}  // namespace

double element_as_double(const Tensor& t, size_t i) {
    switch (t.get_element_type()) {
        case ElementType::f32: return t.data<float>()[i];
        case ElementType::f64: return t.data<double>()[i];
        case ElementType::f16: return f16_to_f32(t.data<uint16_t>()[i]);
        case ElementType::bf16: return bf16_to_f32(t.data<uint16_t>()[i]);
        case ElementType::i8: return t.data<int8_t>()[i];
        case ElementType::u8: return t.data<uint8_t>()[i];
        case ElementType::i16: return t.data<int16_t>()[i];
        case ElementType::u16: return t.data<uint16_t>()[i];
        case ElementType::i32: return t.data<int32_t>()[i];
        case ElementType::u32: return t.data<uint32_t>()[i];
        case ElementType::i64: return static_cast<double>(t.data<int64_t>()[i]);
        case ElementType::u64: return static_cast<double>(t.data<uint64_t>()[i]);
        case ElementType::boolean: return t.data<uint8_t>()[i] ? 1.0 : 0.0;
        case ElementType::undefined: break;
    }
    return 0.0;
}

std::string element_as_text(const Tensor& t, size_t i) {
    switch (t.get_element_type()) {
        case ElementType::i64: return std::to_string(t.data<int64_t>()[i]);
        case ElementType::u64: return std::to_string(t.data<uint64_t>()[i]);
        case ElementType::boolean: return t.data<uint8_t>()[i] ? "true" : "false";
        default: break;
    }
    const double v = element_as_double(t, i);
    if (is_integral(t.get_element_type())) return std::to_string(static_cast<int64_t>(v));
    return format_double(v);
}

void print_tensor_summary(std::ostream& out, const std::string& name, const Tensor& t, size_t max_values) {
    const size_t n = t.get_size();
    out << "Output '" << name << "': " << to_string(t.get_element_type()) << " " << to_string(t.get_shape()) << "\n";
    if (n == 0) {
        out << "    (empty)\n";
        return;
    }

    out << "    values:";
    for (size_t i = 0; i < std::min(n, max_values); ++i) out << " " << element_as_text(t, i);
    if (n > max_values) out << " ... (" << n << " in all)";
    out << "\n";

    double lo = INFINITY, hi = -INFINITY;
    long double sum = 0;
    size_t nans = 0;
    for (size_t i = 0; i < n; ++i) {
        const double v = element_as_double(t, i);
        if (std::isnan(v)) {
            ++nans;
            continue;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
    }
    if (nans == n) {
        out << "    min: nan max: nan mean: nan\n";
    } else {
        out << "    min: " << format_double(lo) << " max: " << format_double(hi)
            << " mean: " << format_double(static_cast<double>(sum / static_cast<long double>(n - nans))) << "\n";
    }
    if (nans) out << "    NaN values: " << nans << "\n";

    const Shape& shape = t.get_shape();
    if (shape.size() != 2 || shape[1] < 2) return;
    const size_t rows = static_cast<size_t>(shape[0]), classes = static_cast<size_t>(shape[1]);
    for (size_t r = 0; r < std::min(rows, kMaxRows); ++r) {
        std::vector<size_t> order(classes);
        std::iota(order.begin(), order.end(), 0);
        auto value = [&](size_t c) {
            const double v = element_as_double(t, r * classes + c);
            return std::isnan(v) ? -INFINITY : v;
        };
        const size_t k = std::min(kTopK, classes);
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                          [&](size_t a, size_t b) { return value(a) > value(b) || (value(a) == value(b) && a < b); });
        const std::string row = rows > 1 ? "[row " + std::to_string(r) + "]" : "";
        out << "    argmax" << row << ": " << order[0] << " (" << element_as_text(t, r * classes + order[0]) << ")\n";
        out << "    top-" << k << row << ":";
        for (size_t i = 0; i < k; ++i)
            out << " " << order[i] << " (" << element_as_text(t, r * classes + order[i]) << ")";
        out << "\n";
    }
    if (rows > kMaxRows) out << "    (" << rows - kMaxRows << " more rows not shown)\n";
}

}  // namespace mosaic::cli
