// Activations that exporters write as several ops, recognised so that they run as one oneDNN
// eltwise pass (alone, or as a post-op of the MatMul or convolution before them): torch's erf
// Gelu is five ops and four passes over the tensor on the reference kernels, x * Sigmoid(x) two.
#pragma once

#include "fusion.hpp"

namespace mosaic::cpu_plugin {

// An activation that exporters decompose into several ops reading `x` (the SDK's
// mosaic/sdk/decomposed_patterns.hpp, which the GPU device matches too: torch's erf Gelu in any
// of its orders, Swish as x * Sigmoid(x)), as one eltwise op. On a match `op` is the eltwise op
// whose `node` is the pattern's last op and `absorbed` the others. Other readers of x are the
// caller's concern (fusable_chain takes the pattern as one activation when x has no other reader).
bool decomposed_activation_of(const sdk::GraphView& graph, const ValueTable& values, ValueId x, FusedOp& op);

}  // namespace mosaic::cpu_plugin
