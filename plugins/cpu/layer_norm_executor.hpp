// Layer normalisation as one oneDNN layer_normalization_forward: (x - mean) / sqrt(var + eps) over
// the trailing axes of x, times a constant scale, plus a constant shift. Two forms reach it:
//
// - the decomposition torch's exporter writes for nn.LayerNorm (BERT-style encoders):
//   ReduceMean(x) -> Subtract(x, mean) -> Power(., 2) (or Multiply(d, d)) -> ReduceMean -> Add(eps)
//   -> Sqrt -> Divide(d, .) (or Multiply(d, Divide(1, .)), as Mosaic's ONNX LayerNormalization
//   translator writes it) -> [Multiply(gamma)] -> [Add(beta)]: nine to eleven reference kernels and
//   as many passes over the tensor, run as one;
// - MVN (opset2, opset6) normalising the variance with eps inside the square root, followed by an
//   optional Multiply and Add of constants (OpenVINO IR's LayerNorm).
//
// The pattern fires only when every inner tensor is read by the next op alone (no other consumer,
// no graph output), the axes are a trailing run, the constants have the shapes and values the
// pattern needs, and everything is f32; anything else runs op by op on the single-op executors.
#pragma once

#include "primitive_executor.hpp"
#include "onednn_util.hpp"

#include <memory>
#include <vector>

namespace mosaic::cpu_plugin {

class LayerNormExecutor final : public PrimitiveExecutor {
public:
    // The layer normalisation beginning at `node` (its first ReduceMean, or an MVN) as one
    // executor, `absorbed` receiving the pattern's other nodes; nullptr when there is none or
    // oneDNN declines.
    static std::unique_ptr<Executor> create(const BuildContext& ctx, size_t node, std::vector<size_t>& absorbed);

    void execute(const ExecContext& ctx) const override;

private:
    LayerNormExecutor(std::string name, std::vector<ValueId> inputs, ValueId output);
    dnnl::memory::desc data_desc_, param_desc_;
    // The scale and shift, each the constant itself when it is laid out as the normalised axes,
    // else a copy broadcast to them; null when the pattern has none.
    const float* scale_ = nullptr;
    const float* shift_ = nullptr;
    std::vector<float> scale_copy_, shift_copy_;
};

}  // namespace mosaic::cpu_plugin
