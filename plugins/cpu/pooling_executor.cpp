#include "pooling_executor.hpp"

#include "graph_queries.hpp"
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
    : PrimitiveExecutor(std::move(name), std::move(type), std::move(inputs), std::move(outputs)) {}

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
    const bool dilated = (type == "MaxPool" && (version == "opset8" || version == "opset14")) ||
                         (type == "AvgPool" && version == "opset16");
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
    return build(ctx, node, algorithm, window);
}

std::unique_ptr<Executor> PoolingExecutor::create_global(const BuildContext& ctx, size_t node) {
    const sdk::GraphView& g = ctx.graph;
    const std::string type = g.type(node);
    if ((type != "ReduceMean" && type != "ReduceMax") || g.input_count(node) != 2) return nullptr;
    const Value& src = ctx.values[ctx.values.input(node, 0)];
    const Value& dst = ctx.values[ctx.values.output(node, 0)];
    std::vector<int64_t> axes;
    if (!runnable(src) || !runnable(dst) || src.shape.size() != dst.shape.size() ||
        !int_constant(ctx.values, ctx.values.input(node, 1), axes) || !normalize_axes(axes, src.shape.size()))
        return nullptr;
    std::sort(axes.begin(), axes.end());
    std::vector<int64_t> spatial;
    for (int64_t a = 2; a < static_cast<int64_t>(src.shape.size()); ++a) spatial.push_back(a);
    if (axes != spatial) return nullptr;
    // A window over the whole image, one step, no padding.
    WindowGeometry window;
    window.kernel = dnnl::memory::dims(src.shape.begin() + 2, src.shape.end());
    window.strides.assign(spatial.size(), 1);
    window.dilations.assign(spatial.size(), 0);
    window.pad_l.assign(spatial.size(), 0);
    window.pad_r.assign(spatial.size(), 0);
    return build(ctx, node,
                 type == "ReduceMean" ? dnnl::algorithm::pooling_avg_exclude_padding : dnnl::algorithm::pooling_max, window);
}

std::unique_ptr<Executor> PoolingExecutor::build(const BuildContext& ctx, size_t node, dnnl::algorithm algorithm,
                                                 const WindowGeometry& window) {
    const sdk::GraphView& g = ctx.graph;
    const ValueId src_id = ctx.values.input(node, 0), dst_id = ctx.values.output(node, 0);
    const Value& src = ctx.values[src_id];
    const Value& dst = ctx.values[dst_id];
    std::vector<ValueId> outputs;
    for (size_t o = 0; o < g.output_count(node); ++o) outputs.push_back(ctx.values.output(node, o));
    std::unique_ptr<PoolingExecutor> e(new PoolingExecutor(g.node_name(node), g.type(node), {src_id}, std::move(outputs)));
    // The source as its producer wrote it; an intermediate destination in the layout oneDNN picks
    // for that source (the same blocking), a graph output plain.
    e->src_desc_ = layout_of(src);
    const dnnl::memory::desc dst_wanted = result_request(src, dst, dims_of(dst.shape), e->src_desc_.data_type());
    dnnl::pooling_v2_forward::primitive_desc pd;
    try {
        const dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, e->src_desc_, dst_wanted,
                                                  window.strides, window.kernel, window.dilations, window.pad_l,
                                                  window.pad_r);
        pd = dnnl::pooling_v2_forward::primitive_desc(desc, user_scratchpad_attr(), ctx.engine);
    } catch (const dnnl::error&) {
        return nullptr;
    }
    if (!src.is_plain() && !fast_implementation(pd.impl_info_str())) return nullptr;
    e->dst_desc_ = pd.dst_desc();
    keep_layout(ctx, dst_id, e->dst_desc_);
    e->adopt(ctx.engine, pd);
    return e;
}

void PoolingExecutor::execute(const ExecContext& ctx) const {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, memory(src_desc_, ctx[inputs()[0]])},
                                               {DNNL_ARG_DST, memory(dst_desc_, ctx[outputs()[0]])}};
    run(ctx, std::move(args));
}

}  // namespace mosaic::cpu_plugin
