#include "layer_norm_executor.hpp"

#include <mosaic/sdk/decomposed_patterns.hpp>

#include <unordered_map>

namespace mosaic::cpu_plugin {

LayerNormExecutor::LayerNormExecutor(std::string name, std::vector<ValueId> inputs, ValueId output)
    : PrimitiveExecutor(std::move(name), "MVN", std::move(inputs), {output}) {}

std::unique_ptr<Executor> LayerNormExecutor::create(const BuildContext& ctx, size_t node, std::vector<size_t>& absorbed) {
    const sdk::GraphView& g = ctx.graph;
    sdk::patterns::LayerNorm p;
    if (!sdk::patterns::layer_norm_of(g, ctx.values, node, p)) return nullptr;
    const Shape& shape = ctx.values[p.src].shape;
    if (!describable(shape)) return nullptr;
    const Shape inner(shape.begin() + static_cast<std::ptrdiff_t>(p.first_axis), shape.end());
    const int64_t channels = shape_size(inner), rows = shape_size(shape) / channels;

    std::vector<ValueId> inputs{p.src};
    for (ValueId v : {p.scale, p.shift})
        if (v != sdk::patterns::kNone) inputs.push_back(v);
    const ValueId output = ctx.values.output(p.last, 0);
    std::unique_ptr<LayerNormExecutor> e(new LayerNormExecutor(g.node_name(p.last), std::move(inputs), output));
    e->data_desc_ = plain_desc({rows, channels});
    e->param_desc_ = plain_desc({channels});
    auto flags = dnnl::normalization_flags::none;
    if (p.scale != sdk::patterns::kNone) {
        const Value& c = ctx.values[p.scale];
        e->scale_ = sdk::patterns::layer_norm_parameter(c.constant, c.shape, shape, p.first_axis, e->scale_copy_);
        flags |= dnnl::normalization_flags::use_scale;
    }
    if (p.shift != sdk::patterns::kNone) {
        const Value& c = ctx.values[p.shift];
        e->shift_ = sdk::patterns::layer_norm_parameter(c.constant, c.shape, shape, p.first_axis, e->shift_copy_);
        flags |= dnnl::normalization_flags::use_shift;
    }
    dnnl::layer_normalization_forward::primitive_desc pd;
    try {
        const dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, e->data_desc_, p.eps,
                                                           flags);
        pd = dnnl::layer_normalization_forward::primitive_desc(desc, user_scratchpad_attr(), ctx.engine);
    } catch (const dnnl::error&) {
        return nullptr;
    }
    e->adopt(ctx.engine, pd);
    absorbed = p.nodes;
    return e;
}

void LayerNormExecutor::execute(const ExecContext& ctx) const {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, memory(data_desc_, ctx[inputs()[0]])},
                                               {DNNL_ARG_DST, memory(data_desc_, ctx[outputs()[0]])}};
    if (scale_) args[DNNL_ARG_SCALE] = memory(param_desc_, const_cast<float*>(scale_));
    if (shift_) args[DNNL_ARG_SHIFT] = memory(param_desc_, const_cast<float*>(shift_));
    run(ctx, std::move(args));
}

}  // namespace mosaic::cpu_plugin
