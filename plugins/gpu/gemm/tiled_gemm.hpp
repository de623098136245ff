// Mosaic's register-tiled GEMM (kernels/gemm.cl), for OpenCL CPU devices: each operand is packed
// into tiles (once at compile time when it is a constant, else by a pack kernel per inference into
// the request's scratch buffer), then one kernel multiplies the tiles.
#pragma once

#include "gemm/gemm.hpp"

#include <functional>
#include <string>
#include <vector>

namespace mosaic::gpu_plugin {

class TiledGemm {
public:
    explicit TiledGemm(const GemmShape& s);

    // Packs constant operands on the host (every batch, as the shape lays them out); `upload`
    // makes the device buffer. Once packed, an operand is no longer read at run time.
    void pack_constant_a(const float* a, const std::function<cl::Buffer(const float*, size_t)>& upload);
    void pack_constant_b(const float* b, const std::function<cl::Buffer(const float*, size_t)>& upload);

    void enqueue(const ExecContext& ctx, const cl::Buffer& a, size_t a_offset, const cl::Buffer& b, size_t b_offset,
                 const cl::Buffer& c, size_t c_offset, size_t scratch_offset, const GemmEpilogue& epilogue = {}) const;
    // The same with B already packed (gemm_pack_b_f32's layout, every batch) in the scratch buffer
    // at `packed_b_offset`: written there by a kernel producing B, such as im2col_packed_f32.
    void enqueue_packed_b(const ExecContext& ctx, const cl::Buffer& a, size_t a_offset, size_t packed_b_offset,
                          const cl::Buffer& c, size_t c_offset, size_t scratch_offset,
                          const GemmEpilogue& epilogue = {}) const;
    // The same with a kernel that packs each panel of B itself, into local memory, before it
    // multiplies every tile of A by it (gemm_conv.cl's conv_gemm_tiled_f32): `k` has its own
    // arguments before `first`, gemm_tiled_f32's from `first` on (B's unused), then the panel's
    // local memory. A must be constant. Global size (panels of B, batch).
    void enqueue_packing_b(const ExecContext& ctx, cl::Kernel& k, cl_uint first, const cl::Buffer& c, size_t c_offset,
                           const GemmEpilogue& epilogue = {}) const;
    size_t panel_bytes() const;  // one packed panel of B: enqueue_packing_b's local memory
    // Whether the kernel can apply `e` as it stores: where a 16-wide run of a row of C has one bias
    // (a row is one of the bias's channels, as a convolution's output) or a bias per column (a
    // MatMul's last axis).
    bool applies_epilogue(const EpilogueArgs& e) const;
    // Scratch elements enqueue() needs; enqueue_packed_b() needs packed_b_elements() fewer.
    size_t scratch_elements() const;
    size_t packed_b_elements() const;  // every batch
    size_t packed_b_panels() const { return b_.tiles; }  // of one batch

private:
    // One operand's packed form: `tiles` tiles of `tile` rows (A) or columns (B), k-major.
    struct Packing {
        size_t tile = 0, tiles = 0;
        // Element (i, kk) of A, or (kk, i) of B, lies at i * tile_stride + kk * k_stride.
        size_t tile_stride = 0, k_stride = 0;
        size_t batches = 1;                     // 1 when one matrix serves every batch
        size_t source_batch_stride = 0;
        bool constant = false;
        cl::Buffer packed;  // a constant's, made at compile time
        size_t elements() const;  // of one batch
    };
    std::vector<float> pack_on_host(const Packing& p, const float* src, size_t extent) const;
    void enqueue_pack(const ExecContext& ctx, const char* kernel, const Packing& p, size_t extent, const cl::Buffer& src,
                      size_t src_offset, size_t dst_offset) const;
    // Where gemm_tiled_f32 reads B: its buffer and offset, batches, panels and k steps apart.
    struct BRead {
        const cl::Buffer* buffer;
        size_t offset, batch_stride, panel_stride, step;
    };
    BRead packed_b(const ExecContext& ctx, size_t b_at) const;  // in the scratch buffer unless constant
    // Whether B is read where it lies rather than packed (gemm.cl's gemm_tiled_f32 says when it can).
    bool reads_b_in_place() const;
    // Sets gemm_tiled_f32's arguments on `k` from argument `first` on: packed A at a_at (in the
    // scratch buffer unless constant), B where `b` says. Returns the index after the last.
    cl_uint set_multiply_args(const ExecContext& ctx, cl::Kernel& k, cl_uint first, size_t a_at, const BRead& b,
                           const cl::Buffer& c, size_t c_offset, const GemmEpilogue& epilogue) const;
    // Packs A unless constant (at scratch_offset), then multiplies by B.
    void multiply(const ExecContext& ctx, const cl::Buffer& a, size_t a_offset, const BRead& b, const cl::Buffer& c,
                  size_t c_offset, size_t scratch_offset, const GemmEpilogue& epilogue) const;

    GemmShape s_;
    Packing a_, b_;
};

}  // namespace mosaic::gpu_plugin
