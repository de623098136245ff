// Convolutions and MatMuls over dequantized operands (a QDQ model's, sdk/quantization_patterns.hpp)
// run on their integers: a u8 or i8 source with one scale and zero point, and i8 weights with zero
// points 0 and one scale, or one per output channel (what ONNX Runtime's quantizer and NNCF write),
// on oneDNN's int8 kernels (VNNI and AMX where the CPU has them). The scales are applied to the
// accumulator, and a quantization after the op (FusedOp::Kind::quantize) writes integers directly.
//
// The weights' dequantization was folded into an f32 constant by the value table; the i8 constant
// it was folded from is found by walking the graph.
#pragma once

#include "executor.hpp"
#include "fusion.hpp"

#include <mosaic/sdk/quantization_patterns.hpp>

#include <oneapi/dnnl/dnnl.hpp>

#include <optional>
#include <vector>

namespace mosaic::cpu_plugin {

struct IntegerOperands {
    sdk::patterns::Dequantized src, weights;
};

// A convolution's: its filters [C_out, ...] quantized per tensor or along C_out (`channels`); a
// grouped convolution's filters are that constant reshaped to [G, C_out / G, ...].
bool integer_conv_operands(const BuildContext& ctx, size_t node, bool grouped, int64_t channels, IntegerOperands& out);

// A MatMul's: A computed, B a 2-D constant quantized per tensor or per output column (`columns`
// of them; along B's axis 1, or axis 0 when `transposed_b`).
bool integer_matmul_operands(const BuildContext& ctx, size_t node, bool transposed_b, int64_t columns,
                             IntegerOperands& out);

// The output scales (varying along the output dims of `scale_mask` when per channel), zero points
// and post-ops of an integer primitive with `fused` ops; `bias` (reals, `channels` of them) becomes
// `owned_bias`, in the accumulator's units. nullopt when oneDNN cannot express them.
std::optional<dnnl::primitive_attr> integer_attributes(const IntegerOperands& ops, const std::vector<FusedOp>& fused, int scale_mask,
                                        int64_t channels, const void*& bias, std::vector<float>& owned_bias);

}  // namespace mosaic::cpu_plugin
