#include "gemm/tiled_gemm.hpp"


#include <mosaic/sdk/status.hpp>

#include <climits>

namespace mosaic::gpu_plugin {

namespace {

// The kernels' tile sizes (kernels/kernel_interface.h says why these): the host packs operands
// into the tiles gemm.cl reads.
constexpr size_t kTileRows = GEMM_MR;
constexpr size_t kPanelColumns = GEMM_NR;
constexpr size_t kTilesPerItem = GEMM_MT;
// The deepest B read in place (reads_b_in_place): measured no slower than packed up to 256 (1x1
// convolutions of 56x56 and 64x64 images on 2 cores, 4 KiB-aliased rows included), and 20-30%
// faster at k of 16 to 64, where packing costs as much as the multiply.
constexpr size_t kInPlaceMaxDepth = 256;

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

cl_int as_int(size_t v, const char* what) {
    if (v > static_cast<size_t>(INT_MAX))
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, std::string("GEMM ") + what + " of " + std::to_string(v) +
                                                         " elements exceeds the tiled kernel's 32-bit indices");
    return static_cast<cl_int>(v);
}

}  // namespace

size_t TiledGemm::Packing::elements() const { return tiles * tile; }  // times k by the caller

TiledGemm::TiledGemm(const GemmShape& s) : s_(s) {
    // A is m x k: stored k x m when transposed. B is k x n: stored n x k when transposed.
    a_.tile = kTileRows;
    a_.tiles = ceil_div(s.m, kTileRows);
    a_.tile_stride = s.transpose_a ? 1 : s.a_ld();
    a_.k_stride = s.transpose_a ? s.a_ld() : 1;
    a_.batches = s.a_stride == 0 ? 1 : s.batch;
    a_.source_batch_stride = s.a_stride;
    b_.tile = kPanelColumns;
    b_.tiles = ceil_div(s.n, kPanelColumns);
    b_.tile_stride = s.transpose_b ? s.b_ld() : 1;
    b_.k_stride = s.transpose_b ? 1 : s.b_ld();
    b_.batches = s.b_stride == 0 ? 1 : s.batch;
    b_.source_batch_stride = s.b_stride;
}

// The layout of gemm_pack_a_f32 / gemm_pack_b_f32, for constants: element (t * tile + r, kk) of
// A (or (kk, t * tile + r) of B) goes to (t * k + kk) * tile + r, zeros past `extent`.
std::vector<float> TiledGemm::pack_on_host(const Packing& p, const float* src, size_t extent) const {
    const size_t per_batch = p.elements() * s_.k;
    std::vector<float> out(per_batch * p.batches, 0.0f);
    for (size_t batch = 0; batch < p.batches; ++batch) {
        const float* from = src + batch * p.source_batch_stride;
        float* to = out.data() + batch * per_batch;
        for (size_t t = 0; t < p.tiles; ++t)
            for (size_t kk = 0; kk < s_.k; ++kk)
                for (size_t r = 0; r < p.tile && t * p.tile + r < extent; ++r) {
                    to[(t * s_.k + kk) * p.tile + r] = from[(t * p.tile + r) * p.tile_stride + kk * p.k_stride];
                }
    }
    return out;
}

void TiledGemm::pack_constant_a(const float* a, const std::function<cl::Buffer(const float*, size_t)>& upload) {
    const std::vector<float> packed = pack_on_host(a_, a, s_.m);
    a_.packed = upload(packed.data(), packed.size());
    a_.constant = true;
}

void TiledGemm::pack_constant_b(const float* b, const std::function<cl::Buffer(const float*, size_t)>& upload) {
    const std::vector<float> packed = pack_on_host(b_, b, s_.n);
    b_.packed = upload(packed.data(), packed.size());
    b_.constant = true;
}

size_t TiledGemm::packed_b_elements() const { return b_.elements() * s_.k * b_.batches; }

size_t TiledGemm::scratch_elements() const {
    return (a_.constant ? 0 : a_.elements() * s_.k * a_.batches) + (b_.constant ? 0 : packed_b_elements());
}

void TiledGemm::enqueue_pack(const ExecContext& ctx, const char* kernel, const Packing& p, size_t extent,
                             const cl::Buffer& src, size_t src_offset, size_t dst_offset) const {
    cl::Kernel& k = ctx.kernel(kernel);
    set_args(k, src, as_int(src_offset, "operand offset"), as_int(p.source_batch_stride, "batch stride"),
             as_int(p.tile_stride, "stride"), as_int(p.k_stride, "stride"), as_int(extent, "extent"),
             as_int(s_.k, "depth"), ctx.scratch(), as_int(dst_offset, "scratch offset"),
             as_int(p.elements() * s_.k, "packed operand"));
    ctx.launch(k, cl::NDRange(s_.k, p.tiles, p.batches));
}

bool TiledGemm::applies_epilogue(const EpilogueArgs& e) const {
    if (!e.has_bias) return true;
    return e.bias_per_column ? static_cast<size_t>(e.channels) == s_.n : static_cast<size_t>(e.inner) == s_.n;
}

void TiledGemm::enqueue(const ExecContext& ctx, const cl::Buffer& a, size_t a_offset, const cl::Buffer& b,
                        size_t b_offset, const cl::Buffer& c, size_t c_offset, size_t scratch_offset,
                        const GemmEpilogue& epilogue) const {
    if (reads_b_in_place()) {
        const BRead in_place{&b, b_offset, s_.b_stride, kPanelColumns, s_.b_ld()};
        multiply(ctx, a, a_offset, in_place, c, c_offset, scratch_offset, epilogue);
        return;
    }
    size_t b_at = 0;
    if (!b_.constant) {
        b_at = scratch_offset;
        enqueue_pack(ctx, "gemm_pack_b_f32", b_, s_.n, b, b_offset, b_at);
        scratch_offset += packed_b_elements();
    }
    multiply(ctx, a, a_offset, packed_b(ctx, b_at), c, c_offset, scratch_offset, epilogue);
}

void TiledGemm::enqueue_packed_b(const ExecContext& ctx, const cl::Buffer& a, size_t a_offset, size_t packed_b_offset,
                                 const cl::Buffer& c, size_t c_offset, size_t scratch_offset,
                                 const GemmEpilogue& epilogue) const {
    if (b_.constant) throw sdk::Error(MOSAIC_ERROR_GENERAL, "GPU plugin bug: a GEMM's constant B given packed at run time");
    multiply(ctx, a, a_offset, packed_b(ctx, packed_b_offset), c, c_offset, scratch_offset, epilogue);
}

TiledGemm::BRead TiledGemm::packed_b(const ExecContext& ctx, size_t b_at) const {
    // A packed batch stride of 0 makes every batch read the one packed matrix.
    return {b_.constant ? &b_.packed : &ctx.scratch(), b_at, b_.batches == 1 ? 0 : b_.elements() * s_.k,
            kPanelColumns * s_.k, kPanelColumns};
}

bool TiledGemm::reads_b_in_place() const {
    // Rows of whole panels, and k steps few enough that a panel's rows, n floats apart, do not evict
    // each other from the few L1 sets they fall into.
    return !b_.constant && !s_.transpose_b && s_.n % kPanelColumns == 0 && s_.k <= kInPlaceMaxDepth;
}

cl_uint TiledGemm::set_multiply_args(const ExecContext& ctx, cl::Kernel& k, cl_uint first, size_t a_at, const BRead& b,
                                  const cl::Buffer& c, size_t c_offset, const GemmEpilogue& epilogue) const {
    const cl::Buffer& ap = a_.constant ? a_.packed : ctx.scratch();
    const size_t ap_batch = a_.batches == 1 ? 0 : a_.elements() * s_.k;
    return set_args_from(k, first, ap, as_int(a_at, "scratch offset"), as_int(ap_batch, "packed A"), *b.buffer,
                  as_int(b.offset, "operand offset"), as_int(b.batch_stride, "B batch stride"), c,
                  as_int(c_offset, "output offset"), as_int(s_.c_stride, "output batch stride"), as_int(s_.c_ld(), "row length"),
                  as_int(s_.m, "rows"), as_int(s_.n, "columns"), as_int(s_.k, "depth"), epilogue.bias ? *epilogue.bias : c,
                  epilogue.residual ? *epilogue.residual : c, epilogue.args ? *epilogue.args : EpilogueArgs{},
                  as_int(b.panel_stride, "packed B"), as_int(b.step, "row length"));
}

void TiledGemm::multiply(const ExecContext& ctx, const cl::Buffer& a, size_t a_offset, const BRead& b,
                         const cl::Buffer& c, size_t c_offset, size_t scratch_offset, const GemmEpilogue& epilogue) const {
    const size_t a_at = a_.constant ? 0 : scratch_offset;
    if (!a_.constant) enqueue_pack(ctx, "gemm_pack_a_f32", a_, s_.m, a, a_offset, a_at);
    cl::Kernel& k = ctx.kernel("gemm_tiled_f32");
    set_multiply_args(ctx, k, 0, a_at, b, c, c_offset, epilogue);
    ctx.launch(k, cl::NDRange(ceil_div(a_.tiles, kTilesPerItem), b_.tiles, s_.batch), cl::NDRange(1, 1, 1));
}

void TiledGemm::enqueue_packing_b(const ExecContext& ctx, cl::Kernel& k, cl_uint first, const cl::Buffer& c,
                                  size_t c_offset, const GemmEpilogue& epilogue) const {
    if (!a_.constant || b_.constant)
        throw sdk::Error(MOSAIC_ERROR_GENERAL, "GPU plugin bug: a GEMM packing B itself needs a constant A and a computed B");
    const cl_uint panel = set_multiply_args(ctx, k, first, 0, packed_b(ctx, 0), c, c_offset, epilogue);
    k.setArg(panel, cl::Local(panel_bytes()));
    ctx.launch(k, cl::NDRange(b_.tiles, s_.batch), cl::NDRange(1, 1));
}

size_t TiledGemm::panel_bytes() const { return s_.k * kPanelColumns * sizeof(float); }

}  // namespace mosaic::gpu_plugin
