#include "quantized_add_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace mosaic::cpu_plugin {

namespace {

// Written for the compiler's vectoriser (this file is built with -O3 -fno-math-errno: see
// CMakeLists.txt): the zero points folded into one offset, the rounding a rint (half to even in
// the default rounding mode, one instruction per vector). Compiled for AVX-512 and AVX2 besides
// the baseline.
template <typename A, typename B, typename Y>
__attribute__((target_clones("avx512f", "avx2", "default"))) void add_block(const A* a, float sa, const B* b, float sb,
                                                                            float offset, Y* y, float inverse, int zy,
                                                                            float floor, size_t n) {
    // Saturated in float before the conversion: a sum far outside the range (a huge scale ratio)
    // must not overflow int.
    const float low = (std::is_signed_v<Y> ? -128.0f : 0.0f) - static_cast<float>(zy), high = low + 255.0f;
    for (size_t i = 0; i < n; ++i) {
        float v = sa * static_cast<float>(a[i]) + sb * static_cast<float>(b[i]) + offset;
        v = v < floor ? floor : v;
        float r = __builtin_rintf(v * inverse);
        r = r < low ? low : r;
        r = r > high ? high : r;
        y[i] = static_cast<Y>(static_cast<int>(r) + zy);
    }
}

template <typename A, typename B, typename Y>
void add_all(const QuantizedAddArgs& p) {
    const auto* a = static_cast<const A*>(p.a.data);
    const auto* b = static_cast<const B*>(p.b.data);
    auto* y = static_cast<Y*>(p.y);
    const float offset = -p.a.scale * static_cast<float>(p.a.zero_point) - p.b.scale * static_cast<float>(p.b.zero_point);
    const float floor = p.relu ? 0.0f : -INFINITY;
    constexpr size_t block = 16384;
#pragma omp parallel for schedule(static)
    for (size_t begin = 0; begin < p.count; begin += block)
        add_block(a + begin, p.a.scale, b + begin, p.b.scale, offset, y + begin, p.inverse_scale, p.zero_point, floor,
                  std::min(block, p.count - begin));
}

template <typename A, typename B>
void add_to(const QuantizedAddArgs& p) {
    if (p.y_signed)
        add_all<A, B, int8_t>(p);
    else
        add_all<A, B, uint8_t>(p);
}

template <typename A>
void add_with(const QuantizedAddArgs& p) {
    if (p.b.is_signed)
        add_to<A, int8_t>(p);
    else
        add_to<A, uint8_t>(p);
}

}  // namespace

void quantized_add(const QuantizedAddArgs& p) {
    if (p.a.is_signed)
        add_with<int8_t>(p);
    else
        add_with<uint8_t>(p);
}

}  // namespace mosaic::cpu_plugin
