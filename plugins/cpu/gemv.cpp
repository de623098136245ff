#include "gemv.hpp"

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

void gemv(const BlockedWeights& w, const float* weights, const float* x, float* y) {
    switch (w.column_block / 16) {
        case 1: return run<1>(w, weights, x, y);
        case 2: return run<2>(w, weights, x, y);
        case 3: return run<3>(w, weights, x, y);
        default: return run<4>(w, weights, x, y);
    }
}

}  // namespace mosaic::cpu_plugin
