#include "conv_executor.hpp"

#include "integer_operands.hpp"
#include "window.hpp"

#include <mosaic/sdk/batch_norm.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace mosaic::cpu_plugin {

namespace {

bool runnable(const Value& v) {
    if (v.type != ElementType::f32 || v.shape.empty()) return false;
    return std::all_of(v.shape.begin(), v.shape.end(), [](int64_t d) { return d > 0; });
}

std::vector<ValueId> executor_inputs(const BuildContext& ctx, size_t node, const std::vector<FusedOp>& fused,
                                     const IntegerOperands* integer) {
    std::vector<ValueId> inputs{integer ? integer->src.q : ctx.values.input(node, 0),
                                integer ? integer->weights.q : ctx.values.input(node, 1)};
    for (const FusedOp& op : fused)
        if (op.operand != kNoValue) inputs.push_back(op.operand);
    return inputs;
}

dnnl::memory::desc any_desc(const Shape& shape, dnnl::memory::data_type type) {
    return dnnl::memory::desc(dims_of(shape), type, dnnl::memory::format_tag::any);
}

// The filters as oneDNN sees them over Mosaic's row-major bytes. A transposed convolution's are
// [(G,) C_in, C_out, k...] in OpenVINO and [(G,) C_out, C_in, k...] in oneDNN: the two channel
// axes swap, with their strides.
dnnl::memory::desc filter_desc(const Shape& shape, bool transposed, bool grouped) {
    dnnl::memory::desc plain = plain_desc(shape);
    if (!transposed) return plain;
    dnnl::memory::dims dims = dims_of(shape), strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
    const size_t c = grouped ? 1 : 0;
    std::swap(dims[c], dims[c + 1]);
    std::swap(strides[c], strides[c + 1]);
    return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

}  // namespace

ConvExecutor::ConvExecutor(std::string name, std::string type, std::vector<ValueId> inputs, ValueId output)
    : Executor(std::move(name), std::move(type), std::move(inputs), {output}) {}

std::unique_ptr<Executor> ConvExecutor::create(const BuildContext& ctx, size_t node, const std::vector<FusedOp>& fused) {
    const sdk::GraphView& g = ctx.graph;
    const Value& src = ctx.values[ctx.values.input(node, 0)];
    const Value& weights = ctx.values[ctx.values.input(node, 1)];
    const Value& out = ctx.values[ctx.values.output(node, 0)];
    const std::string type = g.type(node);
    const bool grouped = type.rfind("Group", 0) == 0;
    const bool transposed = type.find("BackpropData") != std::string::npos;
    const size_t rank = src.shape.size();
    if (!runnable(src) || !runnable(weights) || !runnable(out) || !weights.is_constant()) return nullptr;
    if (rank < 3 || rank > 5 || out.shape.size() != rank || weights.shape.size() != rank + (grouped ? 1 : 0))
        return nullptr;
    // A folded BatchNorm scales output channels, which a transposed convolution's filters hold on
    // their second axis: not folded there (the chain is retried without it).
    if (transposed && find_fused(fused, FusedOp::Kind::batch_norm)) return nullptr;
    IntegerOperands integer_ops;
    const bool integer = !transposed && !find_fused(fused, FusedOp::Kind::batch_norm) &&
                         integer_conv_operands(ctx, node, grouped, out.shape[1], integer_ops);
    const FusedOp* quantize = find_fused(fused, FusedOp::Kind::quantize);
    // Integers out need integers in, and a residual added in f32 needs an f32 destination.
    if (quantize && (!integer || !quantize->quantization.per_tensor() || find_fused(fused, FusedOp::Kind::sum)))
        return nullptr;

    WindowGeometry window;
    const Shape kernel(weights.shape.end() - static_cast<std::ptrdiff_t>(rank - 2), weights.shape.end());
    const Shape in_spatial(src.shape.begin() + 2, src.shape.end()), out_spatial(out.shape.begin() + 2, out.shape.end());
    if (transposed ? !resolve_transposed_window(g.attributes(node), in_spatial, out_spatial, kernel, g.input_count(node) == 3,
                                        window)
                   : !resolve_window(g.attributes(node), in_spatial, out_spatial, kernel, true, window))
        return nullptr;

    const size_t last = last_node(node, fused);
    std::unique_ptr<ConvExecutor> e(new ConvExecutor(g.node_name(last), g.type(node),
                                                     executor_inputs(ctx, node, fused, integer ? &integer_ops : nullptr),
                                                     ctx.values.output(last, 0)));
    e->engine_ = ctx.engine;
    e->src_ = e->inputs()[0];
    e->dst_ = e->outputs()[0];
    const int64_t channels = out.shape[1];
    if (const FusedOp* bias = find_fused(fused, FusedOp::Kind::bias)) {
        const Value& b = ctx.values[bias->operand];
        e->bias_ = b.constant;
        if (shape_size(b.shape) != channels) {
            e->owned_bias_.assign(static_cast<size_t>(channels), *static_cast<const float*>(b.constant));
            e->bias_ = e->owned_bias_.data();
        }
        e->bias_desc_ = plain_desc({channels});
    }
    if (const FusedOp* sum = find_fused(fused, FusedOp::Kind::sum)) e->residual_ = sum->operand;
    if (const FusedOp* sum = find_fused(fused, FusedOp::Kind::quantized_sum)) e->residual_ = sum->operand;
    const void* weights_data = weights.constant;
    if (const FusedOp* bn = find_fused(fused, FusedOp::Kind::batch_norm)) {
        e->fold_batch_norm(ctx, bn->node, weights, channels);
        weights_data = e->folded_weights_.data();
    }

    dnnl::primitive_attr attr = user_scratchpad_attr();
    attr.set_post_ops(post_ops_of(fused));
    // In bf16 the source and weights are bf16, and so is an intermediate output; a graph output is f32.
    const bool keep_dst_layout = ctx.values[e->dst_].kind == Value::Kind::intermediate;
    auto dst_type = keep_dst_layout ? ctx.compute : dnnl::memory::data_type::f32;
    auto src_type = ctx.compute, weights_type = ctx.compute;
    dnnl::memory::desc filters = filter_desc(weights.shape, transposed, grouped);
    if (integer) {
        src_type = data_type_of(integer_ops.src.params.type);
        weights_type = dnnl::memory::data_type::s8;
        // The destination's quantization is the chain's last op (an earlier one rounds a residual's addend).
        dst_type = !fused.empty() && fused.back().kind == FusedOp::Kind::quantize
                       ? data_type_of(fused.back().quantization.type)
                       : dnnl::memory::data_type::f32;
        filters = plain_desc(weights.shape, weights_type);
        weights_data = ctx.values[integer_ops.weights.q].constant;
        std::optional<dnnl::primitive_attr> integer_attr =
            integer_attributes(integer_ops, fused, 1 << 1, channels, e->bias_, e->owned_bias_);
        if (!integer_attr) return nullptr;
        attr = *integer_attr;
    }
    const dnnl::memory::desc src_any = any_desc(src.shape, src_type), dst_any = any_desc(out.shape, dst_type);
    const dnnl::memory::desc weights_any(filters.dims(), weights_type, dnnl::memory::format_tag::any);
    dnnl::primitive_desc pd;
    try {
        if (transposed) {
            const dnnl::deconvolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                                         dnnl::algorithm::deconvolution_direct, src_any, weights_any,
                                                         e->bias_desc_, dst_any, window.strides, window.dilations,
                                                         window.pad_l, window.pad_r);
            pd = dnnl::deconvolution_forward::primitive_desc(desc, attr, ctx.engine);
        } else {
            const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                                       dnnl::algorithm::convolution_direct, src_any, weights_any,
                                                       e->bias_desc_, dst_any, window.strides, window.dilations,
                                                       window.pad_l, window.pad_r);
            pd = dnnl::convolution_forward::primitive_desc(desc, attr, ctx.engine);
        }
    } catch (const dnnl::error&) {
        return nullptr;  // no implementation for this geometry or these post-ops
    }
    e->primitive_ = dnnl::primitive(pd);
    e->impl_ = std::string(pd.impl_info_str()) + (integer ? "_I8" : "");
    // The source as its producer wrote it; the destination in the primitive's layout when it is an
    // intermediate (the next executors read that layout), else plain: the caller's tensor.
    e->src_user_ = layout_of(ctx.values[e->src_]);
    e->src_desc_ = pd.src_desc(0);
    e->dst_desc_ = pd.dst_desc(0);
    e->dst_user_ = keep_dst_layout ? e->dst_desc_ : layout_of(ctx.values[e->dst_]);
    e->scratchpad_desc_ = pd.scratchpad_desc();
    // Folded weights are the executor's own; only the graph's constants are shared (packed_weights.hpp).
    e->weights_ = e->folded_weights_.empty()
                      ? PackedWeights::of_constant(ctx.engine, filters, weights_data, pd.weights_desc(0))
                      : PackedWeights(ctx.engine, filters, weights_data, pd.weights_desc(0));

    size_t pad_bytes = e->scratchpad_desc_.get_size();
    if (e->src_desc_ != e->src_user_) {
        e->src_reorder_ = Reorder(ctx.engine, e->src_user_, e->src_desc_);
        e->src_offset_ = e->scratch_.reserve(e->src_desc_.get_size());
        pad_bytes = std::max(pad_bytes, e->src_reorder_.scratchpad_bytes());
    }
    if (e->dst_desc_ != e->dst_user_) {
        e->dst_reorder_ = Reorder(ctx.engine, e->dst_desc_, e->dst_user_);
        e->dst_offset_ = e->scratch_.reserve(e->dst_desc_.get_size());
        pad_bytes = std::max(pad_bytes, e->dst_reorder_.scratchpad_bytes());
    }
    if (e->residual_ != kNoValue) {
        e->residual_user_ = layout_of(ctx.values[e->residual_]);
        if (e->residual_user_ != e->dst_desc_) {
            e->residual_reorder_ = Reorder(ctx.engine, e->residual_user_, e->dst_desc_);
            pad_bytes = std::max(pad_bytes, e->residual_reorder_.scratchpad_bytes());
        }
    }
    e->pad_offset_ = e->scratch_.reserve(pad_bytes);
    keep_layout(ctx, e->dst_, e->dst_desc_);
    return e;
}

void ConvExecutor::fold_batch_norm(const BuildContext& ctx, size_t bn, const Value& weights, int64_t channels) {
    // y = (conv(x) + b - mean) * gamma / sqrt(var + eps) + beta: the scale goes into each output
    // channel's filter (its slice of the row-major weights, grouped or not), the rest into the bias.
    const sdk::BatchNormPorts ports = sdk::batch_norm_ports(ctx.graph.version(bn) == "opset5");
    const auto param = [&](size_t port) { return static_cast<const float*>(ctx.values[ctx.values.input(bn, port)].constant); };
    sdk::ChannelAffine affine = sdk::batch_norm_affine(
        param(ports.gamma), param(ports.beta), param(ports.mean), param(ports.variance),
        ctx.graph.attributes(bn).get_float("epsilon"), static_cast<size_t>(channels), static_cast<const float*>(bias_));
    const size_t count = static_cast<size_t>(shape_size(weights.shape)), per_channel = count / static_cast<size_t>(channels);
    const float* w = static_cast<const float*>(weights.constant);
    folded_weights_.assign(w, w + count);
    for (size_t c = 0; c < static_cast<size_t>(channels); ++c)
        for (size_t i = 0; i < per_channel; ++i) folded_weights_[c * per_channel + i] *= affine.scale[c];
    owned_bias_ = std::move(affine.shift);
    bias_ = owned_bias_.data();
    bias_desc_ = plain_desc({channels});
}

void ConvExecutor::execute(const ExecContext& ctx) const {
    dnnl::stream& stream = *ctx.stream;
    void* pad = ctx.scratch + pad_offset_;
    const dnnl::memory src_user(src_user_, engine_, ctx[src_]);
    const dnnl::memory dst_user(dst_user_, engine_, ctx[dst_]);
    dnnl::memory src = src_user, dst = dst_user;
    if (src_reorder_) {
        src = dnnl::memory(src_desc_, engine_, ctx.scratch + src_offset_);
        src_reorder_.run(stream, src_user, src, pad);
    }
    if (dst_reorder_) dst = dnnl::memory(dst_desc_, engine_, ctx.scratch + dst_offset_);
    if (residual_ != kNoValue) {
        // The sum post-op adds what the destination holds: put the residual there first, unless the
        // memory plan already made the destination the residual's own buffer.
        if (residual_reorder_)
            residual_reorder_.run(stream, dnnl::memory(residual_user_, engine_, ctx[residual_]), dst, pad);
        else if (ctx[residual_] != dst.get_data_handle())
            std::memcpy(dst.get_data_handle(), ctx[residual_], dst_desc_.get_size());
    }
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, dnnl::memory(weights_.desc(), engine_, weights_.data())}, {DNNL_ARG_DST, dst}};
    if (bias_) args[DNNL_ARG_BIAS] = dnnl::memory(bias_desc_, engine_, const_cast<void*>(bias_));
    if (scratchpad_desc_.get_size()) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(scratchpad_desc_, engine_, pad);
    primitive_.execute(stream, args);
    if (dst_reorder_) dst_reorder_.run(stream, dst, dst_user, pad);
}

}  // namespace mosaic::cpu_plugin
