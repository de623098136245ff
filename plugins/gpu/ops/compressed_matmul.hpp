// A MatMul by compressed weights on the GPU (sdk/compressed_weights.hpp): the codes stay in device
// memory a byte each (a quarter of their f32 bytes; an int4 LLM too large for a GPU's memory in f32
// fits), dequantized in the kernel (kernels/compressed_matmul.cl), the bias and activations after
// it fused as for any MatMul. A Gather of their rows (an embedding, a tied head's table) dequantizes
// the rows it picks.
#pragma once

#include "ops/op_registry.hpp"

#include <memory>

namespace mosaic::gpu_plugin {

// The executor of MatMul `n`, or of Gather `n`, when its weights' decompression was left unfolded
// (ValueTable::decompressed_in_kernel), else null.
std::unique_ptr<Executor> compressed_matmul(BuildContext& ctx, size_t n);
std::unique_ptr<Executor> compressed_gather(BuildContext& ctx, size_t n);

}  // namespace mosaic::gpu_plugin
