// Row-major GEMMs through CLBlast on a request's queue, as the MatMul and convolution executors
// use them: C = A * B (no accumulation), batches strided, the event kept for profiling.
#pragma once

#include "executor.hpp"

namespace mosaic::gpu_plugin {

struct GemmShape {
    size_t m = 0, n = 0, k = 0;
    bool transpose_a = false, transpose_b = false;
    size_t batch = 1;
    size_t a_stride = 0, b_stride = 0, c_stride = 0;  // elements between batches
};

// Enqueues C[b] = op(A[b]) * op(B[b]) for b < batch; offsets in elements. Throws sdk::Error
// naming CLBlast's status.
void enqueue_gemm(const ExecContext& ctx, const GemmShape& s, const cl::Buffer& a, size_t a_offset, const cl::Buffer& b,
                  size_t b_offset, const cl::Buffer& c, size_t c_offset);

}  // namespace mosaic::gpu_plugin
