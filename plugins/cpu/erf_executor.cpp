#include "erf_executor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace mosaic::cpu_plugin {

namespace {

// e^x for x <= 0 (erf's tail needs e^(-x^2)), clamped at -87 where it underflows anyway (a NaN
// too, as the comparison fails: n stays an integer in [-126, 0]; the NaN comes back through erf's
// t): x = n ln2 + r with |r| <= ln2 / 2 (ln2 in two parts, so r keeps its bits), e^r by its Taylor
// polynomial to r^6, 2^n by the exponent bits. Written for the compiler to vectorise.
inline float exp_nonpositive(float x) {
    x = x >= -87.0f ? x : -87.0f;
    const float n = std::nearbyint(x * 1.44269504088896341f);
    const float r = std::fma(n, -0.693145751953125f, std::fma(n, -1.428606765330187e-06f, x));
    float p = 1.0f / 720;
    p = std::fma(p, r, 1.0f / 120);
    p = std::fma(p, r, 1.0f / 24);
    p = std::fma(p, r, 1.0f / 6);
    p = std::fma(p, r, 0.5f);
    p = std::fma(p, r, 1.0f);
    p = std::fma(p, r, 1.0f);
    const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

// Below 0.5 the odd series (exact relative to erf's size near 0, where 1 - tail would cancel), else
// Abramowitz and Stegun's 7.1.26 (absolute error 1.5e-7); both computed, one kept, so the loop
// has no branch.
inline float erf_one(float x) {
    const float a = std::fabs(x), s = a * a;
    float series = -1.0f / 1320;
    series = std::fma(series, s, 1.0f / 216);
    series = std::fma(series, s, -1.0f / 42);
    series = std::fma(series, s, 1.0f / 10);
    series = std::fma(series, s, -1.0f / 3);
    series = std::fma(series, s, 1.0f);
    series *= a * 1.12837916709551257f;  // 2 / sqrt(pi)
    const float t = 1.0f / std::fma(0.3275911f, a, 1.0f);
    float q = 1.061405429f;
    q = std::fma(q, t, -1.453152027f);
    q = std::fma(q, t, 1.421413741f);
    q = std::fma(q, t, -0.284496736f);
    q = std::fma(q, t, 0.254829592f);
    const float tail = 1.0f - q * t * exp_nonpositive(-s);
    return std::copysign(a < 0.5f ? series : tail, x);
}

// arch=haswell: AVX2 with FMA (GCC's "avx2" clone has no FMA, and calls fmaf per element).
__attribute__((target_clones("avx512f", "arch=haswell", "default"))) void erf_block(const float* x, float* y, size_t count) {
#pragma omp simd
    for (size_t i = 0; i < count; ++i) y[i] = erf_one(x[i]);
}

}  // namespace

void erf_f32(const float* x, float* y, size_t count) {
    constexpr size_t kBlock = 4096;
    const int64_t blocks = static_cast<int64_t>((count + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < blocks; ++b) {
        const size_t begin = static_cast<size_t>(b) * kBlock;
        erf_block(x + begin, y + begin, std::min(kBlock, count - begin));
    }
}

std::unique_ptr<Executor> ErfExecutor::create(const BuildContext& ctx, size_t node) {
    if (ctx.graph.type(node) != "Erf" || ctx.graph.input_count(node) != 1 || ctx.graph.output_count(node) != 1)
        return nullptr;
    const ValueId x = ctx.values.input(node, 0), y = ctx.values.output(node, 0);
    const Value& in = ctx.values[x];
    if (in.type != ElementType::f32 || ctx.values[y].type != ElementType::f32 || !in.is_plain()) return nullptr;
    std::unique_ptr<ErfExecutor> e(new ErfExecutor(ctx.graph.node_name(node), "Erf", {x}, {y}));
    e->count_ = static_cast<size_t>(shape_size(in.shape));
    return e;
}

void ErfExecutor::execute(const ExecContext& ctx) const {
    erf_f32(static_cast<const float*>(ctx[inputs()[0]]), static_cast<float*>(ctx[outputs()[0]]), count_);
}

}  // namespace mosaic::cpu_plugin
