#include "gemv.hpp"

#include <omp.h>

// GCC 12 reports the "undefined" vectors AVX-512's reductions start from as used uninitialized
// (as in compressed_matmul_kernel.cpp).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>

namespace mosaic::cpu_plugin {

namespace {

// One column block of V x 16 columns: the rows stream through, x[k] broadcast against each row.
template <int V>
__attribute__((target("avx512f"))) void column_block(const BlockedWeights& w, const float* block, const float* x,
                                                     float* y, int64_t columns) {
    __m512 acc[V];
    for (int v = 0; v < V; ++v) acc[v] = _mm512_setzero_ps();
    const int64_t row_blocks = w.padded_rows / w.row_block;
    for (int64_t rb = 0; rb < row_blocks; ++rb) {
        const float* rows = block + rb * w.row_block_stride;
        const float* xs = x + rb * w.row_block;
        for (int64_t r = 0; r < w.row_block; ++r) {
            const __m512 xr = _mm512_set1_ps(xs[r]);
            const float* row = rows + r * w.column_block;
            for (int v = 0; v < V; ++v) acc[v] = _mm512_fmadd_ps(xr, _mm512_loadu_ps(row + 16 * v), acc[v]);
        }
    }
    alignas(64) float out[16 * V];
    for (int v = 0; v < V; ++v) _mm512_store_ps(out + 16 * v, acc[v]);
    std::copy(out, out + std::min<int64_t>(columns, 16 * V), y);
}

template <int V>
void run(const BlockedWeights& w, const float* weights, const float* x, float* y) {
    const int64_t blocks = (w.columns + w.column_block - 1) / w.column_block;
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < blocks; ++b)
        column_block<V>(w, weights + b * w.column_block_stride, x, y + b * w.column_block,
                        w.columns - b * w.column_block);
}

// Columns [first, last) of a [K, N] row-major matrix: four rows at a time, each read as one
// contiguous run over the whole range (a thread's part of a row is a stream the prefetchers follow;
// shorter runs, a row's 1 KiB then a jump to the next row, halved the bandwidth), y kept in L1/L2.
__attribute__((target("avx512f"))) void plain_columns(const PlainWeights& w, const float* weights, const float* x,
                                                      float* y, int64_t first, int64_t last) {
    const int64_t full = first + (last - first) / 16 * 16;
    const __mmask16 tail = static_cast<__mmask16>((1u << (last - full)) - 1u);
    std::fill(y + first, y + last, 0.0f);
    int64_t k = 0;
    for (; k + 4 <= w.rows; k += 4) {
        const float* r0 = weights + k * w.columns;
        const float* r1 = r0 + w.columns;
        const float* r2 = r1 + w.columns;
        const float* r3 = r2 + w.columns;
        const __m512 x0 = _mm512_set1_ps(x[k]), x1 = _mm512_set1_ps(x[k + 1]), x2 = _mm512_set1_ps(x[k + 2]),
                     x3 = _mm512_set1_ps(x[k + 3]);
        for (int64_t c = first; c < full; c += 16) {
            __m512 acc = _mm512_fmadd_ps(x0, _mm512_loadu_ps(r0 + c), _mm512_loadu_ps(y + c));
            acc = _mm512_fmadd_ps(x1, _mm512_loadu_ps(r1 + c), acc);
            acc = _mm512_fmadd_ps(x2, _mm512_loadu_ps(r2 + c), acc);
            _mm512_storeu_ps(y + c, _mm512_fmadd_ps(x3, _mm512_loadu_ps(r3 + c), acc));
        }
        if (tail) {
            __m512 acc = _mm512_fmadd_ps(x0, _mm512_maskz_loadu_ps(tail, r0 + full), _mm512_maskz_loadu_ps(tail, y + full));
            acc = _mm512_fmadd_ps(x1, _mm512_maskz_loadu_ps(tail, r1 + full), acc);
            acc = _mm512_fmadd_ps(x2, _mm512_maskz_loadu_ps(tail, r2 + full), acc);
            _mm512_mask_storeu_ps(y + full, tail, _mm512_fmadd_ps(x3, _mm512_maskz_loadu_ps(tail, r3 + full), acc));
        }
    }
    for (; k < w.rows; ++k) {
        const float* r = weights + k * w.columns;
        const __m512 xk = _mm512_set1_ps(x[k]);
        for (int64_t c = first; c < full; c += 16)
            _mm512_storeu_ps(y + c, _mm512_fmadd_ps(xk, _mm512_loadu_ps(r + c), _mm512_loadu_ps(y + c)));
        if (tail)
            _mm512_mask_storeu_ps(y + full, tail,
                                  _mm512_fmadd_ps(xk, _mm512_maskz_loadu_ps(tail, r + full), _mm512_maskz_loadu_ps(tail, y + full)));
    }
}

// One dot product of x with a row of K values, four accumulators keeping the FMAs independent.
__attribute__((target("avx512f"))) float dot(const float* x, const float* row, int64_t k_size) {
    const int64_t k_full = k_size / 64 * 64, k_vectors = k_size / 16 * 16;
    const __mmask16 tail = static_cast<__mmask16>((1u << (k_size - k_vectors)) - 1u);
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
    int64_t k = 0;
    for (; k < k_full; k += 64) {
        a0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k), _mm512_loadu_ps(row + k), a0);
        a1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k + 16), _mm512_loadu_ps(row + k + 16), a1);
        a2 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k + 32), _mm512_loadu_ps(row + k + 32), a2);
        a3 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k + 48), _mm512_loadu_ps(row + k + 48), a3);
    }
    for (; k < k_vectors; k += 16) a0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + k), _mm512_loadu_ps(row + k), a0);
    if (tail) a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, x + k), _mm512_maskz_loadu_ps(tail, row + k), a1);
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

// Columns [first, last) of a [N, K] row-major matrix: the range's two halves at once, row i of each
// together, so that a core keeps two sequential streams far apart in flight. One stream read the
// 24-layer Qwen2.5-0.5B-shaped model's weights ~10% slower than the packed layout on one core,
// two adjacent rows (streams K values apart) slower still; two far apart match it.
__attribute__((target("avx512f"))) void transposed_columns(const PlainWeights& w, const float* weights,
                                                           const float* x, float* y, int64_t first, int64_t last) {
    const int64_t k_size = w.rows, k_pairs = k_size / 32 * 32, half = (last - first) / 2;
    for (int64_t i = 0; i < half; ++i) {
        const int64_t n = first + i, m = first + half + i;
        const float* r = weights + n * k_size;
        const float* s = weights + m * k_size;
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), b0 = _mm512_setzero_ps(), b1 = _mm512_setzero_ps();
        int64_t k = 0;
        for (; k < k_pairs; k += 32) {
            const __m512 x0 = _mm512_loadu_ps(x + k), x1 = _mm512_loadu_ps(x + k + 16);
            a0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(r + k), a0);
            a1 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(r + k + 16), a1);
            b0 = _mm512_fmadd_ps(x0, _mm512_loadu_ps(s + k), b0);
            b1 = _mm512_fmadd_ps(x1, _mm512_loadu_ps(s + k + 16), b1);
        }
        // The last 0-31 values of both rows.
        for (; k < k_size; k += 16) {
            const __mmask16 mask = k + 16 <= k_size ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << (k_size - k)) - 1u);
            const __m512 xv = _mm512_maskz_loadu_ps(mask, x + k);
            a0 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(mask, r + k), a0);
            b0 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(mask, s + k), b0);
        }
        y[n] = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
        y[m] = _mm512_reduce_add_ps(_mm512_add_ps(b0, b1));
    }
    for (int64_t n = first + 2 * half; n < last; ++n) y[n] = dot(x, weights + n * k_size, k_size);
}

}  // namespace

std::optional<BlockedWeights> blocked_weights_of(const dnnl::memory::desc& packed) {
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    const dnnl_memory_desc_t& d = packed.data;
    if (!avx512 || d.ndims != 2 || d.data_type != dnnl_f32 || d.format_kind != dnnl_blocked || d.offset0 != 0 ||
        d.extra.flags != 0)
        return std::nullopt;
    const dnnl_blocking_desc_t& b = d.format_desc.blocking;
    // Inner blocks: rows (dim 0) outside columns (dim 1), the column block a whole number of vectors.
    if (b.inner_nblks != 2 || b.inner_idxs[0] != 0 || b.inner_idxs[1] != 1) return std::nullopt;
    BlockedWeights w;
    w.rows = d.dims[0];
    w.columns = d.dims[1];
    w.padded_rows = d.padded_dims[0];
    w.row_block = b.inner_blks[0];
    w.column_block = b.inner_blks[1];
    w.row_block_stride = b.strides[0];
    w.column_block_stride = b.strides[1];
    if (w.column_block % 16 != 0 || w.column_block > 64 || w.padded_rows % w.row_block != 0 ||
        d.padded_dims[1] % w.column_block != 0 || w.row_block_stride < w.row_block * w.column_block)
        return std::nullopt;
    return w;
}

std::optional<PlainWeights> plain_weights_of(const dnnl::memory::desc& plain) {
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    const dnnl_memory_desc_t& d = plain.data;
    if (!avx512 || d.ndims != 2 || d.data_type != dnnl_f32 || d.format_kind != dnnl_blocked || d.offset0 != 0 ||
        d.extra.flags != 0 || d.format_desc.blocking.inner_nblks != 0)
        return std::nullopt;
    const dnnl_dims_t& strides = d.format_desc.blocking.strides;
    PlainWeights w{d.dims[0], d.dims[1], false};
    if (strides[1] == 1 && strides[0] == w.columns) return w;
    if (strides[0] == 1 && strides[1] == w.rows) {
        w.transposed = true;
        return w;
    }
    return std::nullopt;
}

void gemv(const PlainWeights& w, const float* weights, const float* x, float* y) {
    // Each thread one contiguous range of columns, a multiple of 16 so that only the last has a tail.
#pragma omp parallel
    {
        const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
        const int64_t per = (w.columns + 16 * threads - 1) / (16 * threads) * 16;
        const int64_t first = std::min(w.columns, t * per), last = std::min(w.columns, first + per);
        if (first < last) {
            if (w.transposed) transposed_columns(w, weights, x, y, first, last);
            else plain_columns(w, weights, x, y, first, last);
        }
    }
}

void gemv(const BlockedWeights& w, const float* weights, const float* x, float* y) {
    switch (w.column_block / 16) {
        case 1: return run<1>(w, weights, x, y);
        case 2: return run<2>(w, weights, x, y);
        case 3: return run<3>(w, weights, x, y);
        default: return run<4>(w, weights, x, y);
    }
}

}  // namespace mosaic::cpu_plugin
