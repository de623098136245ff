// One row times a constant matrix (an LLM's decode step: every projection is [1, K] x [K, N]),
// read straight from the weights oneDNN packed for its matmul, so prefill and decode share one copy.
// oneDNN's brgemm runs a single row at about half the memory bandwidth a streaming kernel reaches
// (15 against 30 GB/s on one AVX-512 core), and a decode step is nothing but reading the weights.
//
// The layout is oneDNN's blocked one for matmul weights on AVX-512 ("BA16a64b": 64-column blocks,
// each a run of 16-row blocks of 16 x 64 values, columns innermost, zero-padded): each column block
// is one contiguous stream. Other layouts (AVX2 machines) are not taken: oneDNN runs those.
// With CPU_WEIGHTS_IN_PLACE the weights stay as the model stores them, and the same row runs over
// that plain layout (the second gemv below).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <optional>

namespace mosaic::cpu_plugin {

struct BlockedWeights {
    int64_t rows = 0, columns = 0;          // K and N, unpadded
    int64_t padded_rows = 0;                // K rounded up to row_block
    int64_t row_block = 0, column_block = 0;  // 16 and 64 on AVX-512
    int64_t row_block_stride = 0, column_block_stride = 0;  // in floats, between consecutive blocks
};

// `packed` described as above, when it is an f32 [K, N] layout with one row block outside one
// column block (columns innermost, a multiple of 16 of them, at most 64) and this CPU has AVX-512.
std::optional<BlockedWeights> blocked_weights_of(const dnnl::memory::desc& packed);

// y[0, N) = x[0, padded_rows) . W, threaded over column blocks (OpenMP, the caller's thread count).
// x holds padded_rows values, zero past rows.
void gemv(const BlockedWeights& w, const float* weights, const float* x, float* y);

// Weights read where the model holds them (CPU_WEIGHTS_IN_PLACE): [K, N] row-major, or [N, K] when
// transposed (OpenVINO's transpose_b, as every torch Linear converted by OpenVINO is written).
struct PlainWeights {
    int64_t rows = 0, columns = 0;  // K and N
    bool transposed = false;
};

// `plain` described as above, when it is a dense f32 [K, N] with either stride order and this CPU
// has AVX-512.
std::optional<PlainWeights> plain_weights_of(const dnnl::memory::desc& plain);

// y[0, N) = x[0, K) . W, threaded over columns: [K, N] streams rows of a column range, [N, K] one
// dot product of contiguous K values per column.
void gemv(const PlainWeights& w, const float* weights, const float* x, float* y);

}  // namespace mosaic::cpu_plugin
