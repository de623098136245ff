// What a convolution or MatMul absorbs of the ops after it, each the only reader of the previous
// one's result: a per-channel bias Add of a constant, after a convolution a BatchNormInference
// (folded: its scale into the filters, its shift into the bias), an activation (activation.hpp),
// a residual Add of a tensor computed before the main op, and a second activation - in that order,
// each optional (ResNet's conv + bias + shortcut + Relu, MobileNet's conv + bias + Clamp, an
// encoder's MatMul + bias + Gelu, an unfolded ONNX export's conv + BatchNormalization + Relu). An activation may be one written as several ops: Swish as x * Sigmoid(x),
// torch's erf Gelu (fusion.cpp). The executor writes the last fused op's result.
#pragma once

#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

#include <mosaic/sdk/batch_norm.hpp>

#include <optional>
#include <vector>

namespace mosaic::gpu_plugin {

struct Epilogue {
    EpilogueArgs args;
    ValueId bias = kNoValue, residual = kNoValue;
    ValueId out = kNoValue;  // what the executor writes
    size_t last_node = 0;    // whose friendly name profiling reports
    // A folded BatchNormInference: output channel c's filter is to be scaled by filter_scale[c]
    // (the executor does it), and folded_bias (the bias before it, if any, shifted) is the bias.
    std::vector<float> filter_scale;
    std::optional<cl::Buffer> folded_bias;

    bool empty() const { return !args.has_bias && !args.act1 && !args.has_residual && !args.act2; }
    // The bias buffer the kernels read: the folded one, the bias value's, or `none` without a bias.
    const cl::Buffer& bias_buffer(const ExecContext& ctx, const cl::Buffer& none) const {
        return folded_bias ? *folded_bias : bias != kNoValue ? ctx[bias] : none;
    }
};

// Fuses after `node`, whose output 0 has `channel_axis` as its channel dimension (1 for a
// convolution, the last for a MatMul); marks the fused nodes in ctx.fused. `fold_batch_norm`: a
// convolution's, whose filters the executor scales.
Epilogue fuse_epilogue(BuildContext& ctx, size_t node, size_t channel_axis, bool fold_batch_norm = false);

// The per-channel scale and shift of BatchNormInference `bn` over axis 1 of `data`, with `bias`
// (host values, one a channel, or null) added before it; nothing where its parameters are not
// f32 values known at compile time, one a channel.
std::optional<sdk::ChannelAffine> batch_norm_affine_of(const BuildContext& ctx, size_t bn, ValueId data,
                                                       const float* bias = nullptr);

}  // namespace mosaic::gpu_plugin
