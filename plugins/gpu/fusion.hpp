// What a convolution or MatMul absorbs of the ops after it, each the only reader of the previous
// one's result: a per-channel bias Add of a constant, an activation (activation.hpp), a residual
// Add of a tensor computed before the main op, and a second activation - in that order, each
// optional (ResNet's conv + bias + shortcut + Relu, MobileNet's conv + bias + Clamp, an encoder's
// MatMul + bias + Gelu). An activation may be one written as several ops: Swish as x * Sigmoid(x),
// torch's erf Gelu (fusion.cpp). The executor writes the last fused op's result.
#pragma once

#include "kernel_structs.hpp"
#include "op_registry.hpp"

namespace mosaic::gpu_plugin {

struct Epilogue {
    EpilogueArgs args;
    ValueId bias = kNoValue, residual = kNoValue;
    ValueId out = kNoValue;  // what the executor writes
    size_t last_node = 0;    // whose friendly name profiling reports
    bool empty() const { return !args.has_bias && !args.act1 && !args.has_residual && !args.act2; }
};

// Fuses after `node`, whose output 0 has `channel_axis` as its channel dimension (1 for a
// convolution, the last for a MatMul); marks the fused nodes in ctx.fused.
Epilogue fuse_epilogue(BuildContext& ctx, size_t node, size_t channel_axis);

}  // namespace mosaic::gpu_plugin
