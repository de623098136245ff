// A MatMul by compressed weights (sdk/compressed_weights.hpp: an LLM's int8/int4 weights from NNCF
// or ONNX Runtime's MatMulNBits) that reads the codes themselves (compressed_matmul_kernel.hpp).
// The decompression ops before it are left unfolded by the value table (compressed_weights.hpp)
// and never run: nothing reads their result, so the executor builder drops them. A bias along the
// output columns and a residual Add are fused.
#pragma once

#include "compressed_matmul_kernel.hpp"
#include "executor.hpp"
#include "fusion.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class CompressedMatMulExecutor final : public Executor {
public:
    // nullptr when `node` is no MatMul by compressed weights or `fused` holds what it does not run.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node, const std::vector<FusedOp>& fused);

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return impl_; }
    size_t scratch_bytes() const override { return compressed_matmul_scratch(*weights_, rows_, threads_); }
    ValueId reusable_input() const override { return residual_; }
    void count_packed_weights(PackedWeightsTotals& totals) const override { totals.add(weights_->byte_size(), shared_); }

private:
    using Executor::Executor;

    std::shared_ptr<const CompressedMatrix> weights_;
    bool shared_ = false;  // repacked by another compiled model (constant_cache.hpp)
    std::string impl_;
    ValueId a_ = kNoValue, dst_ = kNoValue, residual_ = kNoValue;
    const float* bias_ = nullptr;  // one per output column
    int64_t rows_ = 0;             // of A, its leading dims together
    int threads_ = 1;
    int64_t activation_group_ = 0;  // DYNAMIC_QUANTIZATION_GROUP_SIZE
};

}  // namespace mosaic::cpu_plugin
