#include "layer_norm_executor.hpp"

#include "graph_queries.hpp"

#include <cctype>
#include <unordered_map>

namespace mosaic::cpu_plugin {

namespace {

bool is_f32(const Value& v) { return v.type == ElementType::f32; }

// A matched layer normalisation: x normalised over its dims [first_axis, rank).
struct Pattern {
    ValueId src = kNoValue;
    size_t first_axis = 0;
    float eps = 0;
    ValueId scale = kNoValue, shift = kNoValue;
    size_t last = 0;            // the node whose output the pattern produces
    std::vector<size_t> nodes;  // every node but the first
};

// The axes a reduction over `axes_value` (a constant) of a tensor of `rank` names, when they are a
// trailing run [first, rank).
bool trailing_axes(const ValueTable& values, ValueId axes_value, size_t rank, size_t& first) {
    std::vector<int64_t> axes;
    if (!int_constant(values, axes_value, axes) || axes.empty() || !normalize_axes(axes, rank)) return false;
    first = rank - axes.size();
    for (size_t i = 0; i < axes.size(); ++i)
        if (axes[i] != static_cast<int64_t>(first + i)) return false;
    return true;
}

Shape reduced_shape(Shape shape, size_t first_axis) {
    for (size_t a = first_axis; a < shape.size(); ++a) shape[a] = 1;
    return shape;
}

// ReduceMean of `v` over [first_axis, rank) keeping dims, as the only reader of `v`.
size_t mean_of(const sdk::GraphView& g, const ValueTable& values, ValueId v, size_t first_axis) {
    const size_t n = sole_reader(g, values, v, "ReduceMean");
    if (n == SIZE_MAX) return SIZE_MAX;
    const Shape& shape = values[v].shape;
    size_t first = 0;
    if (!trailing_axes(values, values.input(n, 1), shape.size(), first) || first != first_axis) return SIZE_MAX;
    const Value& out = values[values.output(n, 0)];
    return is_f32(out) && out.shape == reduced_shape(shape, first_axis) ? n : SIZE_MAX;
}

// A constant that broadcasts over the normalised axes [first_axis, rank) of `shape` only.
bool fits_normalised_axes(const Value& c, const Shape& shape, size_t first_axis) {
    if (!c.is_constant() || !is_f32(c) || c.shape.size() > shape.size()) return false;
    const size_t offset = shape.size() - c.shape.size();
    for (size_t i = 0; i < c.shape.size(); ++i) {
        const size_t axis = offset + i;
        if (c.shape[i] != 1 && (axis < first_axis || c.shape[i] != shape[axis])) return false;
    }
    return true;
}

// After the normalisation: an optional Multiply by a constant scale, then an optional Add of a
// constant shift, each the only reader of what precedes it.
void scale_and_shift(const sdk::GraphView& g, const ValueTable& values, Pattern& p) {
    const Shape& shape = values[p.src].shape;
    for (const char* type : {"Multiply", "Add"}) {
        const ValueId current = values.output(p.last, 0);
        const size_t n = sole_reader(g, values, current, type);
        if (n == SIZE_MAX) continue;
        const ValueId other = other_operand(g, values, n, current);
        const Value& out = values[values.output(n, 0)];
        if (other == kNoValue || !fits_normalised_axes(values[other], shape, p.first_axis) || !is_f32(out) ||
            out.shape != shape)
            continue;
        (std::string(type) == "Multiply" ? p.scale : p.shift) = other;
        p.nodes.push_back(n);
        p.last = n;
    }
}

// torch's decomposed LayerNorm, from its first ReduceMean `mean_node` (see the header).
bool match_decomposed(const sdk::GraphView& g, const ValueTable& values, size_t mean_node, Pattern& p) {
    if (g.input_count(mean_node) != 2 || g.output_count(mean_node) != 1) return false;
    const ValueId x = values.input(mean_node, 0);
    const Value& xv = values[x];
    const size_t rank = xv.shape.size();
    if (!is_f32(xv) || rank == 0 || !trailing_axes(values, values.input(mean_node, 1), rank, p.first_axis))
        return false;
    const Shape& shape = xv.shape;
    const Shape stat_shape = reduced_shape(shape, p.first_axis);
    const ValueId mean = values.output(mean_node, 0);
    if (!is_f32(values[mean]) || values[mean].shape != stat_shape) return false;

    // d = x - mean
    const size_t sub = sole_reader(g, values, mean, "Subtract");
    if (sub == SIZE_MAX || values.input(sub, 0) != x || values.input(sub, 1) != mean) return false;
    const ValueId d = values.output(sub, 0);
    const Value& dv = values[d];
    if (dv.kind != Value::Kind::intermediate || !is_f32(dv) || dv.shape != shape) return false;

    // d squared, and d divided by the deviation: the only readers of d
    size_t square = SIZE_MAX, normalise = SIZE_MAX;
    size_t square_reads = 0;
    for (const Use& u : dv.uses) {
        const std::string type = g.type(u.node);
        if (type == "Power" && u.port == 0 && scalar_constant_near(values, values.input(u.node, 1), 2.0, 0)) {
            square = u.node;
            ++square_reads;
        } else if (type == "Multiply" && values.input(u.node, 0) == d && values.input(u.node, 1) == d) {
            square = u.node;
            ++square_reads;
        } else if ((type == "Divide" && u.port == 0) || type == "Multiply") {
            if (normalise != SIZE_MAX && normalise != u.node) return false;
            normalise = u.node;
        } else {
            return false;
        }
    }
    const size_t expected_square_reads = square != SIZE_MAX && g.type(square) == "Multiply" ? 2 : 1;
    if (square == SIZE_MAX || normalise == SIZE_MAX || square_reads != expected_square_reads ||
        dv.uses.size() != square_reads + 1)
        return false;

    // var = mean(d^2); dev = sqrt(var + eps)
    const Value& squared = values[values.output(square, 0)];
    if (!is_f32(squared) || squared.shape != shape) return false;
    const size_t var = mean_of(g, values, values.output(square, 0), p.first_axis);
    if (var == SIZE_MAX) return false;
    const ValueId var_out = values.output(var, 0);
    const size_t plus_eps = sole_reader(g, values, var_out, "Add");
    if (plus_eps == SIZE_MAX || !scalar_constant(values, other_operand(g, values, plus_eps, var_out), p.eps) ||
        values[values.output(plus_eps, 0)].shape != stat_shape)
        return false;
    const size_t sqrt = sole_reader(g, values, values.output(plus_eps, 0), "Sqrt");
    if (sqrt == SIZE_MAX || values[values.output(sqrt, 0)].shape != stat_shape) return false;
    const ValueId dev = values.output(sqrt, 0);

    // d / dev, or d * (1 / dev)
    p.nodes = {sub, square, var, plus_eps, sqrt};
    const size_t reader = sole_reader(g, values, dev, "Divide");
    if (reader == SIZE_MAX) return false;
    if (reader == normalise) {
        if (values.input(normalise, 1) != dev) return false;
    } else {
        if (!scalar_constant_near(values, values.input(reader, 0), 1.0, 0) || values.input(reader, 1) != dev) return false;
        const ValueId inverse = values.output(reader, 0);
        if (values[inverse].shape != stat_shape || sole_reader(g, values, inverse, "Multiply") != normalise ||
            g.type(normalise) != "Multiply" || other_operand(g, values, normalise, d) != inverse)
            return false;
        p.nodes.push_back(reader);
    }
    const Value& normalised = values[values.output(normalise, 0)];
    if (!is_f32(normalised) || normalised.shape != shape) return false;
    p.nodes.push_back(normalise);
    p.src = x;
    p.last = normalise;
    scale_and_shift(g, values, p);
    return true;
}


// MVN normalising the variance with eps inside the square root over trailing axes.
bool match_mvn(const sdk::GraphView& g, const ValueTable& values, size_t node, Pattern& p) {
    const ValueId x = values.input(node, 0);
    const Value& xv = values[x];
    const size_t rank = xv.shape.size();
    const Attributes a = g.attributes(node);
    if (!is_f32(xv) || rank == 0 || g.output_count(node) != 1) return false;
    if (g.version(node) == "opset6") {
        if (!a.get_bool("normalize_variance") || lower_case(a.get_string("eps_mode", "inside_sqrt")) != "inside_sqrt" ||
            !trailing_axes(values, values.input(node, 1), rank, p.first_axis))
            return false;
    } else {
        if (!a.get_bool("normalize_variance", false)) return false;
        std::vector<int64_t> axes = a.get_ints("reduction_axes", {});
        if (axes.empty()) p.first_axis = a.get_bool("across_channels", false) ? 1 : 2;
        else if (normalize_axes(axes, rank) && axes.back() == static_cast<int64_t>(rank) - 1 &&
                 axes.size() == static_cast<size_t>(axes.back() - axes.front() + 1))
            p.first_axis = static_cast<size_t>(axes.front());
        else
            return false;
        if (p.first_axis >= rank) return false;
    }
    p.eps = static_cast<float>(a.get_float("eps"));
    p.src = x;
    p.last = node;
    scale_and_shift(g, values, p);
    return true;
}

// `c` laid out over the normalised axes (`count` values): the constant itself when it already
// is, else a copy broadcast into `copy`.
const float* parameter(const Value& c, const Shape& shape, size_t first_axis, std::vector<float>& copy) {
    const auto* data = static_cast<const float*>(c.constant);
    const Shape inner(shape.begin() + static_cast<std::ptrdiff_t>(first_axis), shape.end());
    const int64_t count = shape_size(inner);
    if (shape_size(c.shape) == count) return data;
    // Right-align c against the inner dims; its strides are 0 where it broadcasts.
    Shape c_inner(inner.size(), 1);
    for (size_t i = 0; i < c.shape.size() && i < inner.size(); ++i)
        c_inner[inner.size() - 1 - i] = c.shape[c.shape.size() - 1 - i];
    std::vector<int64_t> strides(inner.size(), 0);
    for (int64_t i = static_cast<int64_t>(inner.size()) - 1, s = 1; i >= 0; --i) {
        strides[static_cast<size_t>(i)] = c_inner[static_cast<size_t>(i)] == 1 ? 0 : s;
        s *= c_inner[static_cast<size_t>(i)];
    }
    copy.resize(static_cast<size_t>(count));
    for (int64_t flat = 0; flat < count; ++flat) {
        int64_t rest = flat, offset = 0;
        for (int64_t i = static_cast<int64_t>(inner.size()) - 1; i >= 0; --i) {
            offset += rest % inner[static_cast<size_t>(i)] * strides[static_cast<size_t>(i)];
            rest /= inner[static_cast<size_t>(i)];
        }
        copy[static_cast<size_t>(flat)] = data[offset];
    }
    return copy.data();
}

}  // namespace

LayerNormExecutor::LayerNormExecutor(std::string name, std::vector<ValueId> inputs, ValueId output)
    : PrimitiveExecutor(std::move(name), "MVN", std::move(inputs), {output}) {}

std::unique_ptr<Executor> LayerNormExecutor::create(const BuildContext& ctx, size_t node, std::vector<size_t>& absorbed) {
    const sdk::GraphView& g = ctx.graph;
    const std::string type = g.type(node);
    Pattern p;
    const bool matched = (type == "ReduceMean" && match_decomposed(g, ctx.values, node, p)) ||
                         (type == "MVN" && match_mvn(g, ctx.values, node, p));
    if (!matched) return nullptr;
    const Shape& shape = ctx.values[p.src].shape;
    if (!describable(shape)) return nullptr;
    const Shape inner(shape.begin() + static_cast<std::ptrdiff_t>(p.first_axis), shape.end());
    const int64_t channels = shape_size(inner), rows = shape_size(shape) / channels;

    std::vector<ValueId> inputs{p.src};
    for (ValueId v : {p.scale, p.shift})
        if (v != kNoValue) inputs.push_back(v);
    const ValueId output = ctx.values.output(p.last, 0);
    std::unique_ptr<LayerNormExecutor> e(new LayerNormExecutor(g.node_name(p.last), std::move(inputs), output));
    e->data_desc_ = plain_desc({rows, channels});
    e->param_desc_ = plain_desc({channels});
    auto flags = dnnl::normalization_flags::none;
    if (p.scale != kNoValue) {
        e->scale_ = parameter(ctx.values[p.scale], shape, p.first_axis, e->scale_copy_);
        flags |= dnnl::normalization_flags::use_scale;
    }
    if (p.shift != kNoValue) {
        e->shift_ = parameter(ctx.values[p.shift], shape, p.first_axis, e->shift_copy_);
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
