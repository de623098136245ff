// The GEMMs of the convolution and MatMul executors, C = op(A) * op(B) row-major with strided
// batches, on one of two implementations chosen per device when the model compiles:
//   - Mosaic's register-tiled kernel (tiled_gemm.hpp) on OpenCL CPU devices (PoCL), where it runs
//     several times faster than CLBlast's GPU-shaped kernels (docs/benchmarks.md);
//   - CLBlast (clblast_gemm.hpp) on GPUs, whose vendors' tuning it carries.
// The property GPU_GEMM_KERNEL (AUTO, TILED, CLBLAST) overrides the choice.
#pragma once

#include "runtime/executor.hpp"
#include "kernels/kernel_args.hpp"

#include <memory>
#include <string>

namespace mosaic::gpu_plugin {

struct BuildContext;
struct ClDeviceInfo;

struct GemmShape {
    size_t m = 0, n = 0, k = 0;
    bool transpose_a = false, transpose_b = false;
    size_t batch = 1;
    size_t a_stride = 0, b_stride = 0, c_stride = 0;  // elements between batches; 0: one matrix for all
    // Elements between the stored rows of each operand (of Aᵀ when transpose_a, of Bᵀ when
    // transpose_b); 0: rows that follow each other (matrix_layout.hpp sets others).
    size_t lda = 0, ldb = 0, ldc = 0;

    size_t a_ld() const { return lda ? lda : transpose_a ? m : k; }
    size_t b_ld() const { return ldb ? ldb : transpose_b ? k : n; }
    size_t c_ld() const { return ldc ? ldc : n; }
};

// An epilogue (fusion.hpp: bias, activations, residual) applied as C is stored, with its operands.
struct GemmEpilogue {
    const EpilogueArgs* args = nullptr;  // null: none
    const cl::Buffer* bias = nullptr;
    const cl::Buffer* residual = nullptr;
};

enum class GemmKernel { tiled, clblast };

// The kernel GPU_GEMM_KERNEL (`choice`: AUTO, TILED or CLBLAST) picks on `device`; `half`: f16 storage.
GemmKernel choose_gemm_kernel(const std::string& choice, const ClDeviceInfo& device, bool half);

class TiledGemm;

class Gemm {
public:
    // `a`, `b`: the operands' values (kNoValue: one the executor computes); a constant one is
    // packed for the tiled kernel now, once. `a_host`: A's values where the executor changed a
    // constant's (filters scaled by a folded BatchNorm), packed instead of `a`'s.
    Gemm(BuildContext& ctx, const GemmShape& s, ValueId a, ValueId b, const float* a_host = nullptr);
    ~Gemm();
    Gemm(Gemm&&) noexcept;
    Gemm& operator=(Gemm&&) noexcept;

    // Enqueues C = op(A) * op(B) for every batch; offsets in elements. The tiled kernel packs the
    // operands that are not constant into the request's scratch buffer from `scratch_offset`
    // (elements) on, and applies `epilogue` (only where applies_epilogue() said so). Throws
    // sdk::Error naming CLBlast's status when it fails.
    void enqueue(const ExecContext& ctx, const cl::Buffer& a, size_t a_offset, const cl::Buffer& b, size_t b_offset,
                 const cl::Buffer& c, size_t c_offset, size_t scratch_offset = 0, const GemmEpilogue& epilogue = {}) const;
    // Whether enqueue() can apply `e` as it stores C, sparing the executor a pass over the output.
    bool applies_epilogue(const EpilogueArgs& e) const;
    // Scratch elements enqueue() needs from scratch_offset on.
    size_t scratch_elements() const;
    // Profiling's execType: "gemm_tiled_f32" or "clblast_gemm".
    std::string exec_type() const;
    // The tiled kernel, for an executor that writes B in its packed form itself; null with CLBlast.
    const TiledGemm* tiled() const { return tiled_.get(); }

private:
    GemmShape s_;
    std::unique_ptr<TiledGemm> tiled_;  // null: CLBlast
};

}  // namespace mosaic::gpu_plugin
