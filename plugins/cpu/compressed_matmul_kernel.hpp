// A MatMul by weights that stay compressed in memory (sdk/compressed_weights.hpp): an LLM's int8 and
// int4 weights as NNCF and ONNX Runtime write them. A decode step multiplies one row by every weight
// of the model, so it takes as long as reading them: codes of 4 bits are an eighth of the f32 bytes.
//
// Each row of W (an output column) is kept as unsigned codes with, per group of G consecutive codes,
// a scale s and a zero point z: w = (code - z) * s. A row times x is then, group by group,
//
//   sum_k x[k] w[k] = sum_g s_g (sum_{k in g} x[k] code[k]) - sum_g s_g z_g (sum_{k in g} x[k])
//
// so the codes are converted to floats in registers and multiplied by x, the scale applied once
// per group and the zero points once per row (through x's group sums), never written as floats.
// Up to a few rows of x (decode, speculative steps) run so; more rows (a prompt) dequantize a tile of
// W's rows at a time into the thread's scratch and multiply it with oneDNN's sgemm.
#pragma once

#include <mosaic/element_type.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mosaic::cpu_plugin {

struct CompressedMatrix {
    // Rows are stored in tiles of this many, their codes interleaved block by block, so that a
    // kernel reading a tile's rows together reads one sequential stream (separate rows, each a
    // short stream of its own, leave the hardware prefetchers untrained: a third of the bandwidth).
    static constexpr int64_t kTileRows = 4;
    static constexpr int64_t kBlockBytes = 64;  // one vector load

    int64_t rows = 0, columns = 0;  // N (outputs) and K
    int64_t group = 0;              // G: codes per scale, dividing K
    // 8: a byte per code. 4: half a byte; each chunk of 32 codes as 16 bytes, byte j holding code j
    // in its low half and code 16 + j in its high half (one 16-byte load widens to the chunk's two
    // vectors), when G is a multiple of 32 and every code fits.
    int bits = 8;
    // Blocks of 64 bytes (128 codes of 4 bits, 64 of 8; K padded with zero codes to whole blocks):
    // tile t holds, for each block b, the block of each of its rows in turn. Rows past N in the last
    // tile are zeros.
    std::vector<uint8_t> codes;
    std::vector<float> scale, zero_point;  // per group, rows x (K / G)

    int64_t groups_per_row() const { return columns / group; }
    int64_t block_codes() const { return bits == 4 ? 128 : 64; }
    int64_t blocks() const { return (columns + block_codes() - 1) / block_codes(); }
    // Row n's first block; its block b is b * kRowStride bytes further.
    const uint8_t* row_codes(int64_t n) const {
        return codes.data() + ((n / kTileRows) * blocks() * kTileRows + n % kTileRows) * kBlockBytes;
    }
    static constexpr int64_t kRowStride = kTileRows * kBlockBytes;
    size_t byte_size() const { return codes.size() + (scale.size() + zero_point.size()) * sizeof(float); }
};

// The matrix of `rows` x `columns` u8 or i8 `codes` (row-major) with one scale and zero point per
// group of `group` codes of a row (rows x columns / group each, in row order), in the layout above.
std::shared_ptr<CompressedMatrix> compress_matrix(const void* codes, ElementType type, int64_t rows, int64_t columns,
                                                  int64_t group, const std::vector<float>& scale,
                                                  const std::vector<float>& zero_point);

// Scratch bytes compressed_matmul needs for `m` rows of x on `threads` threads.
size_t compressed_matmul_scratch(const CompressedMatrix& w, int64_t m, int threads);

// y[m, N] = x[m, K] . W^T, or y += it with `accumulate`; `threads` as given to the scratch size.
// With `activation_group` (a multiple of 32; 0: none) rows of x are quantized to int8 in groups of
// that many values where this CPU can then use integer dot products (compressed_matmul_vnni.hpp).
void compressed_matmul(const CompressedMatrix& w, const float* x, int64_t m, float* y, bool accumulate, int threads,
                       int64_t activation_group, uint8_t* scratch);

// The implementation compressed_matmul runs for `m` rows: "compressed_4bit:avx512", ...
std::string compressed_matmul_impl(const CompressedMatrix& w, int64_t m, int64_t activation_group);

// Row `row` of W as floats, (code - zero point) * scale, into out[0, K).
void dequantize_row(const CompressedMatrix& w, int64_t row, float* out);

}  // namespace mosaic::cpu_plugin
