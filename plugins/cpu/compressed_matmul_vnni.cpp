#include "compressed_matmul_vnni.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

// GCC 12 reports the "undefined" vectors AVX-512's intrinsics start from as used uninitialized
// when inlined into a target("avx512f") function (see compressed_matmul_kernel.cpp).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

namespace mosaic::cpu_plugin {

namespace {

constexpr int64_t kChunk = 32;    // values under one activation scale at least; codes per 4-bit chunk
constexpr int64_t kRows = CompressedMatrix::kTileRows;  // rows of W streamed together (one tile)
constexpr size_t kAlign = 64;
constexpr int64_t kPrefetch = 1024;  // bytes ahead in the codes' stream (4-bit codes)

size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// One row of x quantized, in the scratch: the int8 values in the codes' order (a 4-bit block's
// 128 as the low halves' 64 then the high halves'), padded with zeros to whole blocks; per block
// the scale of each int32 lane of a dot product (the chunk its four codes are from); per group of W
// the sum over its chunks of s_x * sum q (for the zero points).
struct Activations {
    int8_t* q = nullptr;
    float* lane_scale = nullptr;
    float* group_sum = nullptr;
};

size_t activation_bytes(const CompressedMatrix& w) {
    const auto b = static_cast<size_t>(w.blocks());
    return aligned(b * static_cast<size_t>(w.block_codes())) + aligned(b * 16 * sizeof(float)) +
           aligned(static_cast<size_t>(w.groups_per_row()) * sizeof(float));
}

Activations activations_at(const CompressedMatrix& w, uint8_t* base) {
    const auto b = static_cast<size_t>(w.blocks());
    Activations a;
    a.q = reinterpret_cast<int8_t*>(base);
    a.lane_scale = reinterpret_cast<float*>(base + aligned(b * static_cast<size_t>(w.block_codes())));
    a.group_sum = reinterpret_cast<float*>(base + aligned(b * static_cast<size_t>(w.block_codes())) +
                                           aligned(b * 16 * sizeof(float)));
    return a;
}

// Where value k of a row goes in Activations::q.
int64_t position(const CompressedMatrix& w, int64_t k) {
    if (w.bits != 4) return k;
    const int64_t block = k / 128, chunk = (k % 128) / kChunk, j = k % kChunk;
    return block * 128 + (j < 16 ? 0 : 64) + chunk * 16 + j % 16;
}

void quantize_row(const CompressedMatrix& w, const float* x, int64_t group, Activations a) {
    const int64_t k = w.columns, nblocks = w.blocks();
    std::memset(a.q, 0, static_cast<size_t>(nblocks * w.block_codes()));
    std::fill(a.lane_scale, a.lane_scale + nblocks * 16, 0.0f);
    std::fill(a.group_sum, a.group_sum + w.groups_per_row(), 0.0f);
    const int lanes_per_chunk = w.bits == 4 ? 4 : 8;  // int32 lanes a chunk's codes fill in a block
    for (int64_t g0 = 0; g0 < k; g0 += group) {
        const int64_t g1 = std::min(k, g0 + group);
        float amax = 0;
        for (int64_t i = g0; i < g1; ++i) amax = std::max(amax, std::fabs(x[i]));
        const float scale = amax / 127.0f, inverse = amax > 0 ? 127.0f / amax : 0.0f;
        for (int64_t c0 = g0; c0 < g1; c0 += kChunk) {
            int32_t sum = 0;
            for (int64_t i = c0; i < std::min(g1, c0 + kChunk); ++i) {
                const auto q = static_cast<int32_t>(std::nearbyint(x[i] * inverse));
                a.q[position(w, i)] = static_cast<int8_t>(q);
                sum += q;
            }
            const int64_t chunk = c0 / kChunk, per_block = w.block_codes() / kChunk;
            float* lanes = a.lane_scale + (chunk / per_block) * 16 + (chunk % per_block) * lanes_per_chunk;
            std::fill(lanes, lanes + lanes_per_chunk, scale);
            a.group_sum[c0 / w.group] += scale * static_cast<float>(sum);
        }
    }
}

// The zero points' part of row n: sum_g s_w(g) z(g) group_sum(g). A few groups (a row of 896
// codes in groups of 128, one group per row) are summed without vectors.
__attribute__((target("avx512f"), always_inline)) inline float zero_point_term(const CompressedMatrix& w, int64_t n,
                                                                               const float* group_sum) {
    const int64_t groups = w.groups_per_row();
    const float* s = w.scale.data() + n * groups;
    const float* z = w.zero_point.data() + n * groups;
    float total = 0;
    int64_t g = 0;
    if (groups >= 16) {
        __m512 acc = _mm512_setzero_ps();
        for (; g + 16 <= groups; g += 16)
            acc = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_loadu_ps(s + g), _mm512_loadu_ps(z + g)),
                                  _mm512_loadu_ps(group_sum + g), acc);
        total = _mm512_reduce_add_ps(acc);
    }
    for (; g < groups; ++g) total += s[g] * z[g] * group_sum[g];
    return total;
}

// Which of the (up to four) group scales loaded at a block's first group each int32 lane takes.
__attribute__((target("avx512f"))) __m512i lane_groups(const CompressedMatrix& w) {
    const int lanes_per_chunk = w.bits == 4 ? 4 : 8;
    const auto chunks_per_group = static_cast<int>(w.group / kChunk);
    alignas(64) int32_t index[16];
    for (int l = 0; l < 16; ++l) index[l] = (l / lanes_per_chunk) / chunks_per_group;
    return _mm512_load_si512(index);
}

// Rows n0 .. n0 + R of W times one quantized row of x, into y[0, R). `index`: lane_groups(w).
template <int R, int Bits>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) void rows_vnni(const CompressedMatrix& w, int64_t n0,
                                                                              const Activations& a, const __m512i& index,
                                                                              float* y) {
    const int64_t groups = w.groups_per_row(), nblocks = w.blocks(), codes_per_block = w.block_codes();
    const bool one_group = w.group % codes_per_block == 0;  // a block's codes share one scale
    // The block's first group, counted along (no division in the loop): one group spans
    // `blocks_per_group` blocks, or a block holds `groups_per_block` groups.
    const int64_t blocks_per_group = one_group ? w.group / codes_per_block : 1;
    const int64_t groups_per_block = one_group ? 1 : codes_per_block / w.group;
    int64_t g0 = 0, in_group = 0;
    const __m512i low = _mm512_set1_epi8(0x0f);
    const uint8_t* codes[R];
    const float* scales[R];
    _Pragma("GCC unroll 16") for (int r = 0; r < R; ++r) {
        codes[r] = w.row_codes(n0 + r);
        scales[r] = w.scale.data() + (n0 + r) * groups;
    }
    __m512 total[R];
    _Pragma("GCC unroll 16") for (int r = 0; r < R; ++r) total[r] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nblocks; ++b) {
        const __mmask8 scale_mask = static_cast<__mmask8>((1u << std::min<int64_t>(4, groups - g0)) - 1);
        const __m512 lane_scale = _mm512_load_ps(a.lane_scale + b * 16);
        const __m512i x0 = _mm512_load_si512(a.q + b * codes_per_block);
        __m512i x1 = _mm512_setzero_si512();
        if constexpr (Bits == 4) x1 = _mm512_load_si512(a.q + b * codes_per_block + 64);
        _Pragma("GCC unroll 16") for (int r = 0; r < R; ++r) {
            if constexpr (Bits == 4)  // twice the work per byte: the hardware prefetcher alone falls behind
                _mm_prefetch(reinterpret_cast<const char*>(codes[r] + b * CompressedMatrix::kRowStride + kPrefetch),
                             _MM_HINT_T0);
            // The block's codes past K are zeros: a whole load.
            const __m512i v = _mm512_loadu_si512(codes[r] + b * CompressedMatrix::kRowStride);
            __m512i acc;
            if constexpr (Bits == 4) {
                acc = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_and_si512(v, low), x0);
                acc = _mm512_dpbusd_epi32(acc, _mm512_and_si512(_mm512_srli_epi16(v, 4), low), x1);
            } else {
                acc = _mm512_dpbusd_epi32(_mm512_setzero_si512(), v, x0);
            }
            const __m512 s = one_group ? _mm512_set1_ps(scales[r][g0])
                                       : _mm512_permutexvar_ps(index, _mm512_castps128_ps512(
                                                                          _mm_maskz_loadu_ps(scale_mask, scales[r] + g0)));
            total[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc), _mm512_mul_ps(s, lane_scale), total[r]);
        }
        if (++in_group == blocks_per_group) {
            in_group = 0;
            g0 += groups_per_block;
        }
    }
    _Pragma("GCC unroll 16") for (int r = 0; r < R; ++r) y[r] = _mm512_reduce_add_ps(total[r]) - zero_point_term(w, n0 + r, a.group_sum);
}

template <int Bits>
void row_block(const CompressedMatrix& w, int64_t n0, int64_t count, const Activations& a, const __m512i& index,
               float* y) {
    if (count == kRows) return rows_vnni<kRows, Bits>(w, n0, a, index, y);
    for (int64_t r = 0; r < count; ++r) rows_vnni<1, Bits>(w, n0 + r, a, index, y + r);
}

}  // namespace

bool vnni_applies(const CompressedMatrix& w) {
    static const bool vnni = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
                             __builtin_cpu_supports("avx512vl");
    if (!vnni || w.group % kChunk != 0) return false;
    return w.group == 32 || w.group == 64 || w.group % w.block_codes() == 0;
}

size_t vnni_scratch(const CompressedMatrix& w, int64_t m) { return static_cast<size_t>(m) * activation_bytes(w); }

__attribute__((target("avx512f"))) void vnni_matmul(const CompressedMatrix& w, const float* x, int64_t m, float* y,
                                                    bool accumulate, int threads, int64_t activation_group,
                                                    uint8_t* scratch) {
    const int64_t n = w.rows, k = w.columns;
    for (int64_t i = 0; i < m; ++i)
        quantize_row(w, x + i * k, activation_group, activations_at(w, scratch + static_cast<size_t>(i) * activation_bytes(w)));
    const int64_t row_blocks = (n + kRows - 1) / kRows;
    const size_t per_row = activation_bytes(w);
    const __m512i index = lane_groups(w);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t b = 0; b < row_blocks; ++b) {
        const int64_t n0 = b * kRows, rows = std::min(kRows, n - n0);
        for (int64_t i = 0; i < m; ++i) {
            const Activations a = activations_at(w, scratch + static_cast<size_t>(i) * per_row);
            float out[kRows];
            if (w.bits == 4)
                row_block<4>(w, n0, rows, a, index, out);
            else
                row_block<8>(w, n0, rows, a, index, out);
            float* dst = y + i * n + n0;
            for (int64_t r = 0; r < rows; ++r) dst[r] = accumulate ? dst[r] + out[r] : out[r];
        }
    }
}

}  // namespace mosaic::cpu_plugin
