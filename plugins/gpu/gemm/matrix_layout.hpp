// Transposes that a MatMul reads or writes through strides, so that they never run. An attention
// block transposes its queries, keys and values to [batch, heads, tokens, head size] and its result
// back; each Transpose is a pass over the tensor in device memory, which a GEMM walking the
// untransposed tensor with other strides does without (on PoCL 2% of BERT-base; more on a GPU,
// where the GEMMs are fast and a copy costs its bandwidth).
#pragma once

#include "runtime/value_table.hpp"

#include <mosaic/sdk/graph.hpp>

#include <optional>
#include <vector>

namespace mosaic::gpu_plugin {

// How a GEMM walks a batch of matrices: row-major with `ld` elements between rows, or stored
// transposed (column-major: `ld` between columns); batches `batch_stride` apart.
struct MatrixLayout {
    bool transposed = false;
    size_t ld = 0;
    size_t batch_stride = 0;
};

// The layout of a tensor of `shape` ([batch..., rows, columns]) whose element (i_0, i_1, ...) lies
// at the sum of i_d * strides[d], when a GEMM can walk it: one of its last two dims contiguous, and
// its batch dims flattening to one stride. Nothing otherwise.
std::optional<MatrixLayout> matrix_layout(const Shape& shape, const std::vector<int64_t>& strides);

// A Transpose a MatMul reads through strides: its only reader, running here, reads it as input
// `port`, walking the Transpose's input `source` as `layout` (the layout of the operand as the
// MatMul sees it, before its own transpose_a/transpose_b).
struct TransposeRead {
    size_t matmul = 0, port = 0;
    ValueId source = kNoValue;
    MatrixLayout layout;
};
std::optional<TransposeRead> transpose_read_by_matmul(const sdk::GraphView& g, const ValueTable& values, size_t transpose);

// The Transpose that MatMul `matmul` writes through strides: the only reader of its result,
// running here; `layout` is where the MatMul's result [batch..., m, n] lies in the Transpose's
// output (rows `ld` apart, never stored transposed).
struct TransposeWrite {
    size_t transpose = 0;
    MatrixLayout layout;
};
std::optional<TransposeWrite> transpose_written_by_matmul(const sdk::GraphView& g, const ValueTable& values, size_t matmul);

}  // namespace mosaic::gpu_plugin
