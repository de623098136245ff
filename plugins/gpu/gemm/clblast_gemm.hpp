// Row-major GEMMs through CLBlast on a request's queue (gemm.hpp chooses it on GPUs): C = A * B (no
// accumulation), batches strided, the event kept for profiling.
#pragma once

#include "gemm/gemm.hpp"

namespace mosaic::gpu_plugin {

// Enqueues C[b] = op(A[b]) * op(B[b]) for b < batch; offsets in elements; a b_stride of 0 shares B
// between batches. Throws sdk::Error naming CLBlast's status.
void enqueue_clblast_gemm(const ExecContext& ctx, const GemmShape& s, const cl::Buffer& a, size_t a_offset,
                          const cl::Buffer& b, size_t b_offset, const cl::Buffer& c, size_t c_offset);

}  // namespace mosaic::gpu_plugin
