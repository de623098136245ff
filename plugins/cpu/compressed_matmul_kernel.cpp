#include "compressed_matmul_kernel.hpp"

#include "compressed_matmul_vnni.hpp"

#include <oneapi/dnnl/dnnl.h>
#include <omp.h>

// GCC 12 reports the "undefined" vectors AVX-512's intrinsics start from (their headers'
// _mm512_undefined_*) as used uninitialized when inlined into a target("avx512f") function.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <string>

namespace mosaic::cpu_plugin {

namespace {

constexpr int64_t kChunk = 32;           // codes per 16 bytes of the 4-bit layout
constexpr int64_t kRows = CompressedMatrix::kTileRows;
constexpr int64_t kTileRows = 64;        // rows of W dequantized per sgemm when x has many rows
constexpr int64_t kMaxStreamedRows = 8;  // rows of x the streaming kernel takes; more go to tiles
constexpr int64_t kPrefetch = 1024;      // bytes ahead in the codes' stream (4-bit codes)

// Where code k of a row starting at `row` (CompressedMatrix::row_codes) is: its byte, and for 4-bit
// codes whether it is the byte's high half.
const uint8_t* code_byte(const CompressedMatrix& w, const uint8_t* row, int64_t k, bool& high) {
    const int64_t in_block = k % w.block_codes();
    const uint8_t* block = row + (k / w.block_codes()) * CompressedMatrix::kRowStride;
    high = w.bits == 4 && in_block % kChunk >= kChunk / 2;
    if (w.bits == 8) return block + in_block;
    return block + (in_block / kChunk) * (kChunk / 2) + in_block % (kChunk / 2);
}

int code_at(const CompressedMatrix& w, const uint8_t* row, int64_t k) {
    bool high = false;
    const uint8_t byte = *code_byte(w, row, k, high);
    return w.bits == 8 ? byte : high ? byte >> 4 : byte & 15;
}

// Row n of W times x, on any CPU: the formula of the header, group by group.
float row_product(const CompressedMatrix& w, int64_t n, const float* x, const float* xsum) {
    const int64_t groups = w.groups_per_row();
    const uint8_t* row = w.row_codes(n);
    const float* s = w.scale.data() + n * groups;
    const float* z = w.zero_point.data() + n * groups;
    float total = 0;
    for (int64_t g = 0; g < groups; ++g) {
        float acc = 0;
        for (int64_t k = g * w.group; k < (g + 1) * w.group; ++k) acc += x[k] * static_cast<float>(code_at(w, row, k));
        total += s[g] * (acc - z[g] * xsum[g]);
    }
    return total;
}

// 16 bytes widened to 16 int32 lanes.
__attribute__((target("avx512f"), always_inline)) inline __m512i widen16(const uint8_t* p) {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// Rows n0 .. n0 + R of W times x on AVX-512, into y[0, R). Each row accumulates a group's products
// in two vectors (two chains of FMAs per row keep the FMA units busy), then adds them times the
// group's scale; the zero points' part comes from x's group sums at the end. Groups are a multiple
// of 16 codes (32 for 4-bit codes), so no vector straddles two groups or two blocks.
template <int R, int Bits>
__attribute__((target("avx512f"))) void rows_avx512(const CompressedMatrix& w, int64_t n0, const float* x,
                                                    const float* xsum, float* y) {
    const int64_t groups = w.groups_per_row(), group = w.group;
    const uint8_t* rows[R];
    _Pragma("GCC unroll 16") for (int r = 0; r < R; ++r) rows[r] = w.row_codes(n0 + r);
    __m512 total[R];
    _Pragma("GCC unroll 16") for (int r = 0; r < R; ++r) total[r] = _mm512_setzero_ps();
    const __m512i low_half = _mm512_set1_epi32(15);
    constexpr int64_t codes_per_block = Bits == 4 ? 128 : 64;  // per 64 bytes
    for (int64_t g = 0; g < groups; ++g) {
        __m512 acc0[R], acc1[R];
        _Pragma("GCC unroll 16") for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = _mm512_setzero_ps();
        // The 16 bytes holding codes k.. (16 of 8 bits, a chunk of 32 of 4 bits): their block, then
        // their place in it.
        auto offset = [&](int64_t k) {
            return (k / codes_per_block) * CompressedMatrix::kRowStride + (k % codes_per_block) * Bits / 8;
        };
        const int64_t end = (g + 1) * group;
        int64_t k = g * group;
        for (; k + kChunk <= end; k += kChunk) {
            const __m512 x0 = _mm512_loadu_ps(x + k), x1 = _mm512_loadu_ps(x + k + 16);
            _Pragma("GCC unroll 16") for (int r = 0; r < R; ++r) {
                if constexpr (Bits == 4)  // as in compressed_matmul_vnni.cpp: the prefetcher alone falls behind
                    _mm_prefetch(reinterpret_cast<const char*>(rows[r] + offset(k) + kPrefetch), _MM_HINT_T0);
                if constexpr (Bits == 8) {
                    acc0[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(widen16(rows[r] + offset(k))), x0, acc0[r]);
                    acc1[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(widen16(rows[r] + offset(k + 16))), x1, acc1[r]);
                } else {
                    const __m512i c = widen16(rows[r] + offset(k));
                    acc0[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_and_si512(c, low_half)), x0, acc0[r]);
                    acc1[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32(c, 4)), x1, acc1[r]);
                }
            }
        }
        if constexpr (Bits == 8)
            for (; k < end; k += 16) {  // a group of 16 times an odd number
                const __m512 x0 = _mm512_loadu_ps(x + k);
                _Pragma("GCC unroll 16") for (int r = 0; r < R; ++r)
                    acc0[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(widen16(rows[r] + offset(k))), x0, acc0[r]);
            }
        _Pragma("GCC unroll 16") for (int r = 0; r < R; ++r) total[r] = _mm512_fmadd_ps(
            _mm512_add_ps(acc0[r], acc1[r]), _mm512_set1_ps(w.scale[(n0 + r) * groups + g]), total[r]);
    }
    _Pragma("GCC unroll 16") for (int r = 0; r < R; ++r) {
        const float* s = w.scale.data() + (n0 + r) * groups;
        const float* z = w.zero_point.data() + (n0 + r) * groups;
        float zero_points = 0;
        for (int64_t g = 0; g < groups; ++g) zero_points += s[g] * z[g] * xsum[g];
        y[r] = _mm512_reduce_add_ps(total[r]) - zero_points;
    }
}

bool use_avx512(const CompressedMatrix& w) {
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    return avx512 && w.group % 16 == 0;
}

// Rows n0 .. n0 + count of W times x into y[0, count): a whole tile together, else row by row.
void row_block(const CompressedMatrix& w, int64_t n0, int64_t count, const float* x, const float* xsum, float* y) {
    if (use_avx512(w) && count == kRows) {
        if (w.bits == 4) return rows_avx512<kRows, 4>(w, n0, x, xsum, y);
        return rows_avx512<kRows, 8>(w, n0, x, xsum, y);
    }
    for (int64_t r = 0; r < count; ++r) {
        if (use_avx512(w) && w.bits == 4)
            rows_avx512<1, 4>(w, n0 + r, x, xsum, y + r);
        else if (use_avx512(w))
            rows_avx512<1, 8>(w, n0 + r, x, xsum, y + r);
        else
            y[r] = row_product(w, n0 + r, x, xsum);
    }
}

}  // namespace

namespace {

// dequantize_row on AVX-512: 16 codes at a time (groups of a multiple of 16 codes).
template <int Bits>
__attribute__((target("avx512f"))) void dequantize_row_avx512(const CompressedMatrix& w, int64_t n, float* out) {
    constexpr int64_t codes_per_block = Bits == 4 ? 128 : 64;
    const int64_t groups = w.groups_per_row();
    const uint8_t* row = w.row_codes(n);
    const __m512i low_half = _mm512_set1_epi32(15);
    for (int64_t g = 0; g < groups; ++g) {
        const __m512 s = _mm512_set1_ps(w.scale[n * groups + g]), z = _mm512_set1_ps(w.zero_point[n * groups + g]);
        for (int64_t k = g * w.group; k < (g + 1) * w.group; k += Bits == 4 ? kChunk : 16) {
            const __m512i c = widen16(row + (k / codes_per_block) * CompressedMatrix::kRowStride + (k % codes_per_block) * Bits / 8);
            if constexpr (Bits == 8) {
                _mm512_storeu_ps(out + k, _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(c), z), s));
            } else {
                _mm512_storeu_ps(out + k, _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(_mm512_and_si512(c, low_half)), z), s));
                _mm512_storeu_ps(out + k + 16, _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32(c, 4)), z), s));
            }
        }
    }
}

}  // namespace

void dequantize_row(const CompressedMatrix& w, int64_t n, float* out) {
    if (use_avx512(w)) return w.bits == 4 ? dequantize_row_avx512<4>(w, n, out) : dequantize_row_avx512<8>(w, n, out);
    const int64_t groups = w.groups_per_row();
    const uint8_t* row = w.row_codes(n);
    for (int64_t g = 0; g < groups; ++g) {
        const float s = w.scale[n * groups + g], z = w.zero_point[n * groups + g];
        for (int64_t k = g * w.group; k < (g + 1) * w.group; ++k) out[k] = (static_cast<float>(code_at(w, row, k)) - z) * s;
    }
}

std::shared_ptr<CompressedMatrix> compress_matrix(const void* codes, ElementType type, int64_t rows, int64_t columns,
                                                  int64_t group, const std::vector<float>& scale,
                                                  const std::vector<float>& zero_point) {
    auto w = std::make_shared<CompressedMatrix>();
    w->rows = rows;
    w->columns = columns;
    w->group = group;
    const size_t count = static_cast<size_t>(rows * columns);
    const bool is_signed = type == ElementType::i8;
    auto code = [&](size_t i) -> int {
        return is_signed ? static_cast<const int8_t*>(codes)[i] : static_cast<const uint8_t*>(codes)[i];
    };
    // Codes of 4 bits (an IR's u4 and i4, MatMulNBits' 4-bit codes) pack two to a byte; other codes
    // are made unsigned. Shifting a code shifts its zero point alike.
    const int low4 = is_signed ? -8 : 0;
    bool fits4 = group % kChunk == 0;
    for (size_t i = 0; fits4 && i < count; ++i) fits4 = code(i) >= low4 && code(i) <= low4 + 15;
    const int shift = fits4 ? -low4 : is_signed ? 128 : 0;
    w->bits = fits4 ? 4 : 8;
    const int64_t tiles = (rows + kRows - 1) / kRows;
    w->codes.assign(static_cast<size_t>(tiles * w->blocks() * CompressedMatrix::kRowStride), 0);
    for (int64_t r = 0; r < rows; ++r) {
        auto* row = const_cast<uint8_t*>(w->row_codes(r));
        for (int64_t k = 0; k < columns; ++k) {
            bool high = false;
            auto* byte = const_cast<uint8_t*>(code_byte(*w, row, k, high));
            const auto unsigned_code = static_cast<uint8_t>(code(static_cast<size_t>(r * columns + k)) + shift);
            *byte = static_cast<uint8_t>(high ? *byte | unsigned_code << 4 : *byte | unsigned_code);
        }
    }
    w->scale = scale;
    w->zero_point.resize(zero_point.size());
    for (size_t i = 0; i < zero_point.size(); ++i) w->zero_point[i] = zero_point[i] + static_cast<float>(shift);
    return w;
}

size_t compressed_matmul_scratch(const CompressedMatrix& w, int64_t m, int threads) {
    if (m <= kMaxStreamedRows)
        return std::max(static_cast<size_t>(m * w.groups_per_row()) * sizeof(float), vnni_scratch(w, m));
    return static_cast<size_t>(threads) * static_cast<size_t>(kTileRows * w.columns) * sizeof(float);
}

std::string compressed_matmul_impl(const CompressedMatrix& w, int64_t m, int64_t activation_group) {
    const std::string codes = w.bits == 4 ? "compressed_4bit" : "compressed_8bit";
    if (m > kMaxStreamedRows) return codes + ":sgemm";
    if (activation_group > 0 && vnni_applies(w)) return codes + ":avx512_vnni_I8";
    return codes + (use_avx512(w) ? ":avx512" : ":generic");
}

void compressed_matmul(const CompressedMatrix& w, const float* x, int64_t m, float* y, bool accumulate, int threads,
                       int64_t activation_group, uint8_t* scratch) {
    const int64_t n = w.rows, k = w.columns;
    if (m <= kMaxStreamedRows && activation_group > 0 && vnni_applies(w))
        return vnni_matmul(w, x, m, y, accumulate, threads, activation_group, scratch);
    if (m > kMaxStreamedRows) {
        // A prompt: sgemm over tiles of W's rows, each dequantized once into its thread's scratch.
        auto* tiles = reinterpret_cast<float*>(scratch);
        const int64_t count = (n + kTileRows - 1) / kTileRows;
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t t = 0; t < count; ++t) {
            const int64_t n0 = t * kTileRows, rows = std::min(kTileRows, n - n0);
            float* tile = tiles + static_cast<size_t>(omp_get_thread_num()) * static_cast<size_t>(kTileRows * k);
            for (int64_t r = 0; r < rows; ++r) dequantize_row(w, n0 + r, tile + r * k);
            // Valid arguments by construction; sgemm runs on this thread alone inside the parallel loop.
            dnnl_sgemm('N', 'T', m, rows, k, 1.0f, x, k, tile, k, accumulate ? 1.0f : 0.0f, y + n0, n);
        }
        return;
    }
    // Decode: the codes stream through once per row of x, a tile of W's rows at a time.
    const int64_t groups = w.groups_per_row();
    auto* xsum = reinterpret_cast<float*>(scratch);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t g = 0; g < groups; ++g) {
            float s = 0;
            for (int64_t c = g * w.group; c < (g + 1) * w.group; ++c) s += x[i * k + c];
            xsum[i * groups + g] = s;
        }
    const int64_t blocks = (n + kRows - 1) / kRows;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t n0 = b * kRows, rows = std::min(kRows, n - n0);
        for (int64_t i = 0; i < m; ++i) {  // the tile's codes stay in cache for the next row of x
            float out[kRows];
            row_block(w, n0, rows, x + i * k, xsum + i * groups, out);
            float* dst = y + i * n + n0;
            for (int64_t r = 0; r < rows; ++r) dst[r] = accumulate ? dst[r] + out[r] : out[r];
        }
    }
}

}  // namespace mosaic::cpu_plugin
