// A Gather of rows of compressed weights (sdk/compressed_weights.hpp): an LLM's embedding table as
// NNCF compresses it, often also its head's weights (tied), read by the compressed MatMul. Each
// index's row is dequantized from the codes, so the table is never written as f32.
#pragma once

#include "compressed_matmul_kernel.hpp"
#include "executor.hpp"

#include <memory>

namespace mosaic::cpu_plugin {

class CompressedGatherExecutor final : public Executor {
public:
    // nullptr when `node` is no Gather of compressed weights' rows.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node);

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return weights_->bits == 4 ? "compressed_4bit" : "compressed_8bit"; }
    void count_packed_weights(PackedWeightsTotals& totals) const override { totals.add(weights_->byte_size(), shared_); }

private:
    using Executor::Executor;

    std::shared_ptr<const CompressedMatrix> weights_;
    bool shared_ = false;
    ValueId indices_ = kNoValue, dst_ = kNoValue;
    ElementType index_type_ = ElementType::i64;
    int64_t count_ = 0;  // indices
};

}  // namespace mosaic::cpu_plugin
