// A QDQ model's quantizations and dequantizations that no integer kernel absorbed
// (sdk/quantization_patterns.hpp), each run as one pass instead of its four or five ops:
//
// - a dequantization, q (u8/i8) -> f32, where an op that runs in f32 reads the tensor (a pooling,
//   an output), and a quantization, f32 -> q, where one writes it: a oneDNN reorder with the
//   scales and zero points as its attributes, which also changes the layout where needed;
// - an Add of two dequantized tensors, optionally a Relu, then a quantization (a residual
//   connection between two quantized convolutions): computed on the integers directly,
//   q = saturate(round((s_a (a - z_a) + s_b (b - z_b)) / s_y) + z_y), without the two f32 tensors.
#pragma once

#include "executor.hpp"
#include "onednn_util.hpp"
#include "primitive_executor.hpp"
#include "quantized_add_kernel.hpp"

#include <mosaic/sdk/quantization_patterns.hpp>

#include <memory>

namespace mosaic::cpu_plugin {

class QuantizeExecutor final : public PrimitiveExecutor {
public:
    // The dequantization starting at Convert `node`, or the quantization starting at Divide `node`;
    // nullptr when `node` starts neither, or oneDNN cannot reorder it (per-axis zero points).
    // `absorbed`: the pattern's ops besides `node`.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node, std::vector<size_t>& absorbed);

    void execute(const ExecContext& ctx) const override;

private:
    using PrimitiveExecutor::PrimitiveExecutor;
    dnnl::memory::desc src_desc_, dst_desc_;
};

class QuantizedAddExecutor final : public Executor {
public:
    // The pattern above from Add `node`, or nullptr. `absorbed`: its ops besides `node`.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node, std::vector<size_t>& absorbed);

    void execute(const ExecContext& ctx) const override;
    std::string exec_type() const override { return "quantized_add"; }

private:
    using Executor::Executor;
    ValueId a_ = kNoValue, b_ = kNoValue;
    QuantizedAddArgs args_;  // all but the data, bound per inference
};

}  // namespace mosaic::cpu_plugin
