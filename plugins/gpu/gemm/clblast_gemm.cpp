#include "gemm/clblast_gemm.hpp"

#include <mosaic/sdk/status.hpp>

#include <clblast.h>

namespace mosaic::gpu_plugin {

void enqueue_clblast_gemm(const ExecContext& ctx, const GemmShape& s, const cl::Buffer& a, size_t a_offset,
                          const cl::Buffer& b, size_t b_offset, const cl::Buffer& c, size_t c_offset) {
    if (s.batch > 1 && (s.a_stride == 0 || s.b_stride == 0)) {  // CLBlast's strided batches want distinct matrices
        GemmShape one = s;
        one.batch = 1;
        for (size_t i = 0; i < s.batch; ++i)
            enqueue_clblast_gemm(ctx, one, a, a_offset + i * s.a_stride, b, b_offset + i * s.b_stride, c,
                                 c_offset + i * s.c_stride);
        return;
    }
    using clblast::Transpose;
    const Transpose ta = s.transpose_a ? Transpose::kYes : Transpose::kNo;
    const Transpose tb = s.transpose_b ? Transpose::kYes : Transpose::kNo;
    // Row-major leading dimensions: the elements between each operand's stored rows.
    const size_t lda = s.a_ld(), ldb = s.b_ld(), ldc = s.c_ld();
    cl_command_queue queue = ctx.queue()();
    cl_event event = nullptr;
    cl::Event* record = ctx.next_event();
    clblast::StatusCode status;
    if (s.batch == 1) {
        status = clblast::Gemm<float>(clblast::Layout::kRowMajor, ta, tb, s.m, s.n, s.k, 1.0f, a(), a_offset, lda, b(),
                                      b_offset, ldb, 0.0f, c(), c_offset, ldc, &queue, record ? &event : nullptr);
    } else {
        status = clblast::GemmStridedBatched<float>(clblast::Layout::kRowMajor, ta, tb, s.m, s.n, s.k, 1.0f, a(), a_offset,
                                                    lda, s.a_stride, b(), b_offset, ldb, s.b_stride, 0.0f, c(), c_offset,
                                                    ldc, s.c_stride, s.batch, &queue, record ? &event : nullptr);
    }
    if (record && event) *record = cl::Event(event);  // takes the reference CLBlast returned
    if (status != clblast::StatusCode::kSuccess)
        throw sdk::Error(MOSAIC_ERROR_DEVICE, "CLBlast GEMM " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                                                  std::to_string(s.k) + " (batch " + std::to_string(s.batch) +
                                                  ") failed with status " + std::to_string(static_cast<int>(status)));
}

}  // namespace mosaic::gpu_plugin
