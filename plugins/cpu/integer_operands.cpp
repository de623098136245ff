#include "integer_operands.hpp"

#include "onednn_util.hpp"

namespace mosaic::cpu_plugin {

namespace {

// A computed integer tensor with one scale and zero point; a MatMul reads one reshaped after its
// dequantization too (a plain q has the same bytes), a convolution the tensor itself.
bool integer_source(const BuildContext& ctx, size_t node, bool through_views, sdk::patterns::Dequantized& out) {
    if (!sdk::patterns::dequantized_input(ctx.graph, ctx.values, node, 0, out, through_views)) return false;
    const Value& q = ctx.values[out.q];
    return !q.is_constant() && out.params.per_tensor() &&
           (q.shape == ctx.values[ctx.values.input(node, 0)].shape || q.is_plain());
}

// Constant i8 weights, symmetric, per tensor or along `axis` with `count` scales.
bool integer_weights(const BuildContext& ctx, const sdk::patterns::Dequantized& w, int64_t axis, int64_t count) {
    const sdk::patterns::QuantParams& p = w.params;
    return ctx.values[w.q].is_constant() && p.type == ElementType::i8 && p.symmetric() &&
           (p.per_tensor() || (p.axis == axis && static_cast<int64_t>(p.scale.size()) == count));
}

}  // namespace

bool integer_conv_operands(const BuildContext& ctx, size_t node, bool grouped, int64_t channels, IntegerOperands& out) {
    const sdk::GraphView& g = ctx.graph;
    if (!integer_source(ctx, node, false, out.src)) return false;
    size_t filters_node = node, filters_port = 1;
    if (grouped) {
        filters_node = g.input(node, 1).node;
        if (g.type(filters_node) != "Reshape") return false;
        filters_port = 0;
    }
    return sdk::patterns::dequantized_input(g, ctx.values, filters_node, filters_port, out.weights) &&
           integer_weights(ctx, out.weights, 0, channels);
}

bool integer_matmul_operands(const BuildContext& ctx, size_t node, bool transposed_b, int64_t columns,
                             IntegerOperands& out) {
    return integer_source(ctx, node, true, out.src) &&
           sdk::patterns::dequantized_input(ctx.graph, ctx.values, node, 1, out.weights) &&
           ctx.values[out.weights.q].shape.size() == 2 && integer_weights(ctx, out.weights, transposed_b ? 0 : 1, columns);
}

std::optional<dnnl::primitive_attr> integer_attributes(const IntegerOperands& ops, const std::vector<FusedOp>& fused,
                                                       int scale_mask, int64_t channels, const void*& bias,
                                                       std::vector<float>& owned_bias) {
    // oneDNN 2.x computes dst = post_ops(output_scale * (sum((src - src_zp) * weights) + bias)) + dst_zp:
    // the output scale takes the accumulator to reals (source scale times the channel's filter
    // scale), so the bias, given in reals, is divided by it.
    const float src_scale = ops.src.params.scale[0];
    const std::vector<float>& w_scale = ops.weights.params.scale;
    std::vector<float> scales(w_scale.size());
    for (size_t c = 0; c < scales.size(); ++c) scales[c] = src_scale * w_scale[c];
    if (bias) {
        const float* b = static_cast<const float*>(bias);
        std::vector<float> scaled(static_cast<size_t>(channels));
        for (size_t c = 0; c < scaled.size(); ++c) scaled[c] = b[c] / scales[scales.size() == 1 ? 0 : c];
        owned_bias = std::move(scaled);
        bias = owned_bias.data();
    }
    // The post-ops in chain order. After a quantization the kernel holds reals / `unit` (q minus
    // its zero point); a scaling folds into the output scales while no post-op comes before it (a
    // linear map commutes with nothing else), else it is a linear post-op, of which oneDNN 2.x keeps
    // one set of parameters per kernel (fusion.cpp), as it does for clip.
    dnnl::primitive_attr attr = user_scratchpad_attr();
    dnnl::post_ops post_ops;
    float unit = 1;
    bool integers = false;  // after a quantization that is not the destination's
    int linear_ops = 0, clip_ops = 0;
    const std::vector<FusedOp> steps = merged_post_ops(fused);
    const FusedOp* destination = !steps.empty() && steps.back().kind == FusedOp::Kind::quantize ? &steps.back() : nullptr;
    const auto rescale = [&](float factor) {
        if (post_ops.len() == 0) {
            for (float& s : scales) s *= factor;
        } else {
            post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, factor, 0.0f);
            ++linear_ops;
        }
    };
    for (size_t i = 0; i < steps.size(); ++i) {
        const FusedOp& op = steps[i];
        const sdk::patterns::QuantParams& q = op.quantization;
        switch (op.kind) {
            case FusedOp::Kind::eltwise:
                // Relu commutes with the positive scale of a quantized unit; the others need reals.
                if (integers && op.algorithm != dnnl::algorithm::eltwise_relu) return std::nullopt;
                linear_ops += op.algorithm == dnnl::algorithm::eltwise_linear;
                clip_ops += op.algorithm == dnnl::algorithm::eltwise_clip_v2;
                post_ops.append_eltwise(1.0f, op.algorithm, op.alpha, op.beta);
                break;
            case FusedOp::Kind::sum:
                if (integers) return std::nullopt;
                post_ops.append_sum(1.0f);
                break;
            case FusedOp::Kind::quantize: {
                if (!q.per_tensor()) return std::nullopt;
                rescale(unit / q.scale[0]);
                unit = q.scale[0];
                const int32_t zp = q.zero_point[0];
                if (i + 1 == steps.size()) {
                    // The destination's own quantization: oneDNN adds the zero point, rounds half to
                    // even and saturates as it converts to u8/i8.
                    if (zp != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {zp});
                } else if (steps[i + 1].kind == FusedOp::Kind::quantized_sum) {
                    // Rounded to q's grid and saturated, as q - zero_point: what the residual Add reads.
                    const float low = q.type == ElementType::i8 ? -128.0f : 0.0f, high = low + 255.0f;
                    post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_round, 0.0f, 0.0f);
                    post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip_v2, low - static_cast<float>(zp),
                                            high - static_cast<float>(zp));
                    ++clip_ops;
                    integers = true;
                } else {
                    return std::nullopt;  // integers that nothing in the chain reads
                }
                break;
            }
            case FusedOp::Kind::quantized_sum:
                // oneDNN reads the residual's bytes from the destination as its type: they must be
                // the destination's (a value-converting copy there would be read back wrongly).
                if (!destination || destination->quantization.type != q.type) return std::nullopt;
                post_ops.append_sum(q.scale[0] / unit, q.zero_point[0], data_type_of(q.type));
                break;
            default:
                return std::nullopt;
        }
    }
    // Reals at the end: an f32 destination. Integers need the chain to end in their quantization.
    if (integers && !destination) return std::nullopt;
    if (linear_ops > 1 || clip_ops > 1) return std::nullopt;
    attr.set_output_scales(scales.size() == 1 ? 0 : scale_mask, scales);
    if (ops.src.params.zero_point[0] != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {ops.src.params.zero_point[0]});
    attr.set_post_ops(post_ops);
    return attr;
}

}  // namespace mosaic::cpu_plugin
