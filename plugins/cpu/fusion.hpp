// Which ops a convolution or MatMul absorbs. oneDNN runs a bias, activations (eltwise post-ops)
// and a residual Add (a sum post-op, accumulating into the destination) in the same pass over the
// output, so each fused op saves a full read and write of the tensor.
#pragma once

#include "value_table.hpp"

#include <mosaic/sdk/graph.hpp>
#include <mosaic/sdk/quantization_patterns.hpp>

#include <oneapi/dnnl/dnnl.hpp>

#include <vector>

namespace mosaic::cpu_plugin {

struct FusedOp {
    // batch_norm: a BatchNormInference with constant parameters after a convolution, folded into
    // its weights and bias at compile time (a per-channel scale and shift).
    // quantize: the chain's result quantized to integers (sdk/quantization_patterns.hpp), always
    // last; `node` is its final Convert, the other ops are `absorbed`. Only an executor that writes
    // integers (an int8 convolution) takes it; the others drop it and the ops run on their own.
    // quantized_sum: after a quantize, that result dequantized again and added to another
    // dequantized tensor (`operand`: its integers, `quantization`: how), the dequantization's ops
    // `absorbed`; the chain goes on from the Add (a Relu, the sum's own quantization).
    enum class Kind { bias, batch_norm, eltwise, sum, quantize, quantized_sum };
    Kind kind = Kind::eltwise;
    size_t node = 0;  // the op fused
    dnnl::algorithm algorithm = dnnl::algorithm::undef;  // eltwise
    float alpha = 0, beta = 0;                           // eltwise
    ValueId operand = kNoValue;  // bias: the constant added; sum: the tensor added
    std::vector<size_t> absorbed;  // the other ops of a decomposed activation (decomposed_activation.hpp)
    sdk::patterns::QuantParams quantization;  // quantize
};

// Where a bias may broadcast: along the channels (axis 1) of a convolution's output, in any numpy
// way over a MatMul's output, or nowhere (a main op without a bias input, such as a binary op).
enum class BiasRule { per_channel, broadcast, none };

// The ops after `main` that it can run fused, in order, each the only consumer of the previous
// one's output: first an optional Add of an f32 constant following `rule`, then (per_channel only)
// an optional BatchNormInference with constant parameters, then activations, and
// at most one Add of a tensor of the same shape that is computed before `main` and dies at that
// Add (so that the output may take over its buffer), and last an optional quantization of the
// result (Kind::quantize), which a quantized residual Add may follow (Kind::quantized_sum, then
// activations and a quantization again). An executor may accept only a prefix.
std::vector<FusedOp> fusable_chain(const sdk::GraphView& graph, const ValueTable& values, size_t main, BiasRule rule);

// The oneDNN eltwise algorithm computing `node` on its input `port`, or false. The one mapping of
// Mosaic's ops onto eltwise algorithms, for post-ops and standalone eltwise primitives alike:
// activations (Relu, Clamp, Sigmoid, Tanh, Elu, Swish with a constant beta, HSwish, Mish, Gelu),
// math (Exp, Log, Sqrt, Abs, Negative, Round half to even), and a binary op with a one-element f32
// constant as its other operand: Maximum or Minimum (a one-sided clip, how ONNX's Clip arrives),
// Power (x^c), and Multiply, Divide, Add, Subtract (a linear function). f32 only; `node`'s output
// may still broadcast beyond its input's shape, which the caller checks. SoftPlus stays on the
// reference kernels: oneDNN 2.6's soft_relu is off by 2e-6 (and negative) at -20.
bool eltwise_of(const sdk::GraphView& graph, const ValueTable& values, size_t node, size_t port, FusedOp& op);

// The eltwise, sum and quantization ops of `fused` in the order they run, consecutive clamps
// (ONNX's Clip as Maximum then Minimum) composed into one. A bias is the primitive's own input,
// not a post-op.
std::vector<FusedOp> merged_post_ops(const std::vector<FusedOp>& fused);

// merged_post_ops(fused) as oneDNN post-ops.
dnnl::post_ops post_ops_of(const std::vector<FusedOp>& fused);

// The node whose output a main op with `fused` ops produces: the last fused op, or `main` itself.
inline size_t last_node(size_t main, const std::vector<FusedOp>& fused) { return fused.empty() ? main : fused.back().node; }

// Every node `fused` runs besides the main op: each op's node and the nodes it absorbed.
std::vector<size_t> fused_nodes(const std::vector<FusedOp>& fused);

// The first fused op of `kind`, or nullptr.
const FusedOp* find_fused(const std::vector<FusedOp>& fused, FusedOp::Kind kind);

}  // namespace mosaic::cpu_plugin
