#include "gemm/gemm.hpp"

#include "gemm/clblast_gemm.hpp"
#include "ops/op_registry.hpp"
#include "gemm/tiled_gemm.hpp"

#include <mosaic/sdk/status.hpp>

namespace mosaic::gpu_plugin {

GemmKernel choose_gemm_kernel(const std::string& choice, const ClDeviceInfo& device, bool half) {
    // CLBlast reads f32 matrices (its half GEMMs also compute in half): f16 storage takes Mosaic's
    // kernel, and gpu_device.cpp refuses an explicit CLBLAST under the f16 hint.
    if (choice == "TILED" || half) return GemmKernel::tiled;
    if (choice == "CLBLAST") return GemmKernel::clblast;
    // AUTO: CLBlast's kernels are shaped for GPUs (local memory, many work items per group); an
    // OpenCL CPU device runs the register-tiled kernel several times faster.
    return device.is_cpu_fallback ? GemmKernel::tiled : GemmKernel::clblast;
}

Gemm::Gemm(BuildContext& ctx, const GemmShape& s, ValueId a, ValueId b, const float* a_host) : s_(s) {
    if (choose_gemm_kernel(ctx.gemm_kernel, ctx.engine.info(), ctx.values.half_floats()) != GemmKernel::tiled) return;
    tiled_ = std::make_unique<TiledGemm>(s);
    const auto upload = [&ctx](const float* data, size_t count) { return ctx.upload(data, count); };
    const auto constant = [&ctx](ValueId v) -> const float* {
        if (v == kNoValue) return nullptr;
        const Value& value = ctx.values[ctx.values.storage_of(v)];
        return value.is_constant() ? static_cast<const float*>(value.constant) : nullptr;
    };
    if (const float* host = a_host ? a_host : constant(a)) tiled_->pack_constant_a(host, upload);
    if (const float* host = constant(b)) tiled_->pack_constant_b(host, upload);
}

Gemm::~Gemm() = default;
Gemm::Gemm(Gemm&&) noexcept = default;
Gemm& Gemm::operator=(Gemm&&) noexcept = default;

void Gemm::enqueue(const ExecContext& ctx, const cl::Buffer& a, size_t a_offset, const cl::Buffer& b, size_t b_offset,
                   const cl::Buffer& c, size_t c_offset, size_t scratch_offset, const GemmEpilogue& epilogue) const {
    if (tiled_) {
        tiled_->enqueue(ctx, a, a_offset, b, b_offset, c, c_offset, scratch_offset, epilogue);
        return;
    }
    if (epilogue.args) throw sdk::Error(MOSAIC_ERROR_GENERAL, "GPU plugin bug: an epilogue given to a CLBlast GEMM");
    enqueue_clblast_gemm(ctx, s_, a, a_offset, b, b_offset, c, c_offset);
}

bool Gemm::applies_epilogue(const EpilogueArgs& e) const { return tiled_ && tiled_->applies_epilogue(e); }

size_t Gemm::scratch_elements() const { return tiled_ ? tiled_->scratch_elements() : 0; }

std::string Gemm::exec_type() const { return tiled_ ? "gemm_tiled_f32" : "clblast_gemm"; }

}  // namespace mosaic::gpu_plugin
