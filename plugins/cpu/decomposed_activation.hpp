// Activations that exporters write as several ops, recognised so that they run as one oneDNN
// eltwise pass (alone, or as a post-op of the MatMul or convolution before them): torch's erf
// Gelu is five ops and four passes over the tensor on the reference kernels, x * Sigmoid(x) two.
#pragma once

#include "fusion.hpp"

namespace mosaic::cpu_plugin {

// An activation that exporters decompose into several ops reading `x` twice, as one eltwise op:
// torch's erf Gelu, x * 0.5 * (1 + Erf(x / sqrt(2))) in any of its orders (Div by sqrt(2) or
// Multiply by 1/sqrt(2); the 0.5 applied to x, to the Erf term or to the product), and Swish as
// x * Sigmoid(x). Every inner tensor must be f32 of x's shape, read by the next op only, and no
// graph output. On a match `op` is the eltwise op whose `node` is the pattern's last op and
// `absorbed` the others. Other readers of x are the caller's concern (fusable_chain takes the
// pattern as one activation when x has no other reader).
bool decomposed_activation_of(const sdk::GraphView& graph, const ValueTable& values, ValueId x, FusedOp& op);

}  // namespace mosaic::cpu_plugin
