#include "pooling_executor.hpp"

#include "window.hpp"

#include <algorithm>
#include <unordered_map>

namespace mosaic::cpu_plugin {

namespace {

bool runnable(const Value& v) {
    if (v.type != ElementType::f32 || v.shape.size() < 3 || v.shape.size() > 5) return false;
    return std::all_of(v.shape.begin(), v.shape.end(), [](int64_t d) { return d > 0; });
}

}  // namespace

PoolingExecutor::PoolingExecutor(std::string name, std::string type, std::vector<ValueId> inputs,
                                 std::vector<ValueId> outputs)
    : Executor(std::move(name), std::move(type), std::move(inputs), std::move(outputs)) {}

std::unique_ptr<Executor> PoolingExecutor::create(const BuildContext& ctx, size_t node) {
    const sdk::GraphView& g = ctx.graph;
    const std::string type = g.type(node), version = g.version(node);
    const ValueId src_id = ctx.values.input(node, 0), dst_id = ctx.values.output(node, 0);
    const Value& src = ctx.values[src_id];
    const Value& dst = ctx.values[dst_id];
    if (!runnable(src) || !runnable(dst) || src.shape.size() != dst.shape.size()) return nullptr;
    // MaxPool-8's indices are not computed here; the node may still have the port, unused.
    if (g.output_count(node) > 1 && !ctx.values[ctx.values.output(node, 1)].uses.empty()) return nullptr;

    const Attributes attrs = g.attributes(node);
    WindowGeometry window;
    const Shape kernel = attrs.get_ints("kernel");
    const bool dilated = type == "MaxPool" && version == "opset8";
    if (!resolve_window(attrs, Shape(src.shape.begin() + 2, src.shape.end()), Shape(dst.shape.begin() + 2, dst.shape.end()),
                        kernel, dilated, window))
        return nullptr;

    dnnl::algorithm algorithm = dnnl::algorithm::pooling_max;
    if (type == "AvgPool") {
        // OpenVINO divides by the whole kernel only when the op pads and exclude-pad is false;
        // otherwise by the taps inside the data, which is oneDNN's exclude-padding rule even for
        // the end padding a ceil rounding adds.
        const bool include = !attrs.get_bool("exclude-pad", false) && window.declared_padding;
        algorithm = include ? dnnl::algorithm::pooling_avg_include_padding : dnnl::algorithm::pooling_avg_exclude_padding;
    }

    std::vector<ValueId> outputs;
    for (size_t o = 0; o < g.output_count(node); ++o) outputs.push_back(ctx.values.output(node, o));
    std::unique_ptr<PoolingExecutor> e(new PoolingExecutor(g.node_name(node), type, {src_id}, std::move(outputs)));
    e->engine_ = ctx.engine;
    // The source as its producer wrote it; an intermediate destination in the layout oneDNN picks
    // for that source (the same blocking), a graph output plain.
    e->src_desc_ = layout_of(src);
    const bool keep_dst_layout = dst.kind == Value::Kind::intermediate;
    const dnnl::memory::desc dst_wanted =
        keep_dst_layout ? dnnl::memory::desc(dims_of(dst.shape), e->src_desc_.data_type(), dnnl::memory::format_tag::any)
                        : plain_desc(dst.shape);
    dnnl::pooling_v2_forward::primitive_desc pd;
    try {
        const dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, e->src_desc_, dst_wanted,
                                                  window.strides, window.kernel, window.dilations, window.pad_l,
                                                  window.pad_r);
        pd = dnnl::pooling_v2_forward::primitive_desc(desc, user_scratchpad_attr(), ctx.engine);
    } catch (const dnnl::error&) {
        return nullptr;
    }
    e->dst_desc_ = pd.dst_desc();
    if (keep_dst_layout && e->dst_desc_ != plain_desc(dst.shape)) ctx.values.set_layout(dst_id, e->dst_desc_);
    e->primitive_ = dnnl::pooling_v2_forward(pd);
    e->impl_ = pd.impl_info_str();
    e->scratchpad_desc_ = pd.scratchpad_desc();
    return e;
}

void PoolingExecutor::execute(const ExecContext& ctx) const {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, dnnl::memory(src_desc_, engine_, ctx[inputs()[0]])},
                                               {DNNL_ARG_DST, dnnl::memory(dst_desc_, engine_, ctx[outputs()[0]])}};
    if (scratchpad_desc_.get_size()) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(scratchpad_desc_, engine_, ctx.scratch);
    primitive_.execute(*ctx.stream, args);
}

}  // namespace mosaic::cpu_plugin
