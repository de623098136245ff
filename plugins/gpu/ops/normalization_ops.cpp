// Softmax, LogSoftmax, MVN over trailing axes, GroupNormalization, and the reductions over constant
// axes, f32.
#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

#include <mosaic/sdk/decomposed_patterns.hpp>

#include <algorithm>
#include <utility>

namespace mosaic::gpu_plugin {

namespace {

int64_t normalized_axis(int64_t axis, size_t rank) { return axis < 0 ? axis + static_cast<int64_t>(rank) : axis; }

std::string check_f32(const sdk::GraphView& g, size_t n) {
    return first_of({check_types(g, n, {ElementType::f32, ElementType::i64, ElementType::i32}), check_static_nonempty(g, n),
                     g.input_type(n, 0) == ElementType::f32 ? "" : "only f32 data has a GPU kernel"});
}

class SoftmaxExecutor : public Executor {
public:
    SoftmaxExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), ctx.graph.type(n), {ctx.values.input(n, 0)}, {ctx.values.output(n, 0)}),
          log_(ctx.graph.type(n) == "LogSoftmax") {
        const Shape s = ctx.graph.input_shape(n, 0);
        const int64_t axis = normalized_axis(ctx.graph.attributes(n).get_int("axis", 1), s.size());
        length_ = s[static_cast<size_t>(axis)];
        inner_ = 1;
        for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner_ *= s[d];
        rows_ = shape_size(s) / length_;
        lanes_ = group_lanes(length_, ctx.engine.info());
        rows16_ = inner_ == 1 && ctx.engine.info().prefers_sixteen_wide();
    }
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(exec_type());
        if (rows16_) {
            set_args(k, ctx[inputs()[0]], ctx[outputs()[0]], static_cast<cl_int>(length_), static_cast<cl_int>(log_ ? 1 : 0));
            ctx.launch(k, items(rows_));
            return;
        }
        set_args(k, ctx[inputs()[0]], ctx[outputs()[0]], static_cast<cl_int>(length_), static_cast<cl_int>(inner_),
                 static_cast<cl_int>(log_ ? 1 : 0), cl::Local(lanes_ * sizeof(float)));
        ctx.launch(k, items(rows_ * lanes_), items(lanes_));
    }
    std::string exec_type() const override { return rows16_ ? "softmax_rows16_f32" : "softmax_f32"; }

private:
    bool log_;
    int64_t length_ = 1, inner_ = 1, rows_ = 1, lanes_ = 1;
    bool rows16_ = false;  // softmax_rows16_f32: rows along the last axis, on devices that prefer sixteen-wide kernels
};

// The axes of MVN-6 (a constant input) or MVN-1 (across_channels), normalized and sorted.
std::vector<int64_t> mvn_axes(const sdk::GraphView& g, size_t n) {
    const size_t rank = g.input_shape(n, 0).size();
    std::vector<int64_t> axes;
    if (g.input_count(n) > 1) {
        for (int64_t a : constant_ints(g, n, 1)) axes.push_back(normalized_axis(a, rank));
    } else {
        const Attributes a = g.attributes(n);
        for (int64_t axis : a.get_ints("reduction_axes", {})) axes.push_back(normalized_axis(axis, rank));
        if (axes.empty()) {
            for (size_t d = a.get_bool("across_channels", false) ? 1 : 2; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
        }
    }
    std::sort(axes.begin(), axes.end());
    return axes;
}

std::string check_mvn(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (auto r = check_f32(g, n); !r.empty()) return r;
    if (g.input_count(n) > 1 && !check_constant_input(g, n, 1).empty()) return check_constant_input(g, n, 1);
    const std::vector<int64_t> axes = mvn_axes(g, n);
    const size_t rank = g.input_shape(n, 0).size();
    // Trailing, contiguous axes: each row is a contiguous run.
    for (size_t i = 0; i < axes.size(); ++i)
        if (axes[i] != static_cast<int64_t>(rank - axes.size() + i)) return "MVN over axes other than the trailing ones has no GPU kernel";
    if (axes.empty()) return "MVN over no axis has no GPU kernel";
    return "";
}

// MVN, and a layer normalisation matched over several ops (the SDK's decomposed_patterns.hpp,
// the same graphs the CPU device fuses): MVN with a constant scale and shift, each laid out over
// the normalised dims. BERT-base's LayerNorms were nine kernels each, 225 launches in all.
class MvnExecutor : public Executor {
public:
    MvnExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), "MVN", {ctx.values.input(n, 0)}, {ctx.values.output(n, 0)}) {
        const Shape s = ctx.graph.input_shape(n, 0);
        const Attributes a = ctx.graph.attributes(n);
        length_ = 1;
        for (int64_t axis : mvn_axes(ctx.graph, n)) length_ *= s[static_cast<size_t>(axis)];
        const bool mvn6 = ctx.graph.input_count(n) > 1;
        normalize_ = a.get_bool("normalize_variance", mvn6);
        eps_ = static_cast<float>(a.get_float("eps", 1e-9));
        // MVN-6 names where eps goes; MVN-1 adds it inside the square root.
        const std::string mode = a.get_string("eps_mode", "inside_sqrt");
        inside_ = !mvn6 || mode == "inside_sqrt" || mode == "INSIDE_SQRT";
        shape(ctx, shape_size(s));
    }
    MvnExecutor(const BuildContext& ctx, const sdk::patterns::LayerNorm& p)
        : Executor(ctx.graph.node_name(p.last), "MVN", {p.src}, {ctx.values.output(p.last, 0)}), eps_(p.eps) {
        const Shape& s = ctx.values[p.src].shape;
        length_ = shape_size(Shape(s.begin() + static_cast<std::ptrdiff_t>(p.first_axis), s.end()));
        for (auto [v, buffer] : {std::pair{p.scale, &scale_}, std::pair{p.shift, &shift_}}) {
            if (v == sdk::patterns::kNone) continue;
            std::vector<float> copy;
            const Value& c = ctx.values[v];
            const float* laid_out = sdk::patterns::layer_norm_parameter(c.constant, c.shape, s, p.first_axis, copy);
            *buffer = ctx.upload(laid_out, static_cast<size_t>(length_));
        }
        shape(ctx, shape_size(s));
    }
    // GroupNormalization-12: each batch's groups are rows of (C / G) * spatial elements, normalised
    // as MVN's rows; the scale and bias stay per channel, element k of a batch's row g reading
    // channel (g * (C / G) * spatial + k) / spatial.
    MvnExecutor(const BuildContext& ctx, size_t n, int64_t groups)
        : Executor(ctx.graph.node_name(n), "GroupNormalization", {ctx.values.input(n, 0)}, {ctx.values.output(n, 0)}),
          eps_(static_cast<float>(ctx.graph.attributes(n).get_float("epsilon"))), parameter_rows_(groups) {
        const Shape s = ctx.graph.input_shape(n, 0);
        const int64_t channels = s[1];
        parameter_repeat_ = shape_size(Shape(s.begin() + 2, s.end()));
        length_ = channels / groups * parameter_repeat_;
        for (auto [input, buffer] : {std::pair{size_t{1}, &scale_}, std::pair{size_t{2}, &shift_}})
            *buffer = ctx.upload(static_cast<const float*>(ctx.values[ctx.values.input(n, input)].constant),
                                 static_cast<size_t>(channels));
        shape(ctx, shape_size(s));
    }
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(exec_type());
        const cl::Buffer& y = ctx[outputs()[0]];
        const cl_uint next = set_args(k, ctx[inputs()[0]], y, static_cast<cl_int>(length_), static_cast<cl_int>(normalize_),
                                      eps_, static_cast<cl_int>(inside_), scale_() ? scale_ : y,
                                      static_cast<cl_int>(scale_() != nullptr), shift_() ? shift_ : y,
                                      static_cast<cl_int>(shift_() != nullptr), static_cast<cl_int>(parameter_rows_),
                                      static_cast<cl_int>(parameter_repeat_));
        if (rows16_) {
            ctx.launch(k, items(rows_));
            return;
        }
        k.setArg(next, cl::Local(lanes_ * sizeof(float)));
        ctx.launch(k, items(rows_ * lanes_), items(lanes_));
    }
    std::string exec_type() const override { return rows16_ ? "mvn_rows16_f32" : "mvn_f32"; }

private:
    void shape(const BuildContext& ctx, int64_t count) {
        rows_ = count / length_;
        lanes_ = group_lanes(length_, ctx.engine.info());
        // Rows shorter than a vector keep the work-group kernel, which GPUs run (and so CI tests it).
        rows16_ = ctx.engine.info().prefers_sixteen_wide() && length_ >= 16;
    }

    int64_t length_ = 1, rows_ = 1, lanes_ = 1;
    bool normalize_ = true, inside_ = true, rows16_ = false;
    float eps_ = 0;
    cl::Buffer scale_, shift_;  // a layer normalisation's, laid out over a row; a group normalisation's, per channel
    int64_t parameter_rows_ = 1, parameter_repeat_ = 1;
};

std::string check_group_normalization(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (auto r = check_f32(g, n); !r.empty()) return r;
    return first_of({check_constant_input(g, n, 1), check_constant_input(g, n, 2)});
}

// A layer normalisation from `node` (its first ReduceMean, or an MVN), all its ops still to run
// here, as one MvnExecutor; its other ops marked fused. Null where there is none.
std::unique_ptr<Executor> layer_norm(BuildContext& ctx, size_t node) {
    sdk::patterns::LayerNorm p;
    if (!sdk::patterns::layer_norm_of(ctx.graph, ctx.values, node, p)) return nullptr;
    if (!ctx.all_still_to_run(p.nodes)) return nullptr;
    for (size_t n : p.nodes) ctx.fused[n] = true;
    return std::make_unique<MvnExecutor>(ctx, p);
}

cl_int reduce_code(const std::string& t) {
    static const std::pair<const char*, ReduceOp> ops[] = {{"ReduceSum", REDUCE_SUM}, {"ReduceMean", REDUCE_MEAN},
                                                           {"ReduceMax", REDUCE_MAX}, {"ReduceMin", REDUCE_MIN},
                                                           {"ReduceProd", REDUCE_PROD}, {"ReduceL1", REDUCE_L1},
                                                           {"ReduceL2", REDUCE_L2}};
    for (const auto& [name, op] : ops)
        if (t == name) return op;
    return REDUCE_SUM;
}

std::string check_reduce(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    return first_of({check_f32(g, n), check_constant_input(g, n, 1)});
}

class ReduceExecutor : public Executor {
public:
    ReduceExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), ctx.graph.type(n), {ctx.values.input(n, 0)}, {ctx.values.output(n, 0)}),
          op_(reduce_code(ctx.graph.type(n))) {
        const Shape in = ctx.graph.input_shape(n, 0);
        std::vector<bool> reduced(in.size(), false);
        for (int64_t a : constant_ints(ctx.graph, n, 1)) reduced[static_cast<size_t>(normalized_axis(a, in.size()))] = true;
        const std::vector<int64_t> strides = strides_of(in);
        Shape kept_dims, red_dims;
        std::vector<int64_t> kept_strides, red_strides;
        for (size_t d = 0; d < in.size(); ++d) {
            (reduced[d] ? red_dims : kept_dims).push_back(in[d]);
            (reduced[d] ? red_strides : kept_strides).push_back(strides[d]);
        }
        out_ = make_walk(kept_dims, kept_strides);
        red_ = make_walk(red_dims, red_strides);
        count_ = shape_size(red_dims);
        outputs_ = shape_size(kept_dims);
        lanes_ = group_lanes(count_, ctx.engine.info());
        // The reduced axes the trailing ones (size-1 axes aside, which neither order changes):
        // each output's inputs are one contiguous run.
        size_t last_kept = 0, first_reduced = in.size();
        for (size_t d = 0; d < in.size(); ++d) {
            if (in[d] == 1) continue;
            if (reduced[d]) first_reduced = std::min(first_reduced, d);
            else last_kept = d + 1;
        }
        trailing16_ = ctx.engine.info().prefers_sixteen_wide() && last_kept <= first_reduced;
    }
    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(exec_type());
        if (trailing16_) {
            set_args(k, ctx[inputs()[0]], ctx[outputs()[0]], static_cast<cl_int>(count_), op_);
            ctx.launch(k, items(outputs_));
            return;
        }
        set_args(k, ctx[inputs()[0]], ctx[outputs()[0]], out_, red_, static_cast<cl_int>(count_), op_,
                 cl::Local(lanes_ * sizeof(float)));
        ctx.launch(k, items(outputs_ * lanes_), items(lanes_));
    }
    std::string exec_type() const override { return trailing16_ ? "reduce_trailing16_f32" : "reduce_f32"; }

private:
    cl_int op_;
    Walk out_, red_;
    int64_t count_ = 1, outputs_ = 1, lanes_ = 1;
    bool trailing16_ = false;  // reduce_trailing16_f32, on devices that prefer sixteen-wide kernels
};

template <typename E>
OpBuild builder() {
    return [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> { return std::make_unique<E>(ctx, n); };
}

const OpRegistration softmax({"Softmax", "LogSoftmax"},
                             {[](const sdk::GraphView& g, size_t n, const ClDeviceInfo&) { return check_f32(g, n); },
                              builder<SoftmaxExecutor>()});
// An executor of type E, or where a layer normalisation begins at the node, that as one.
template <class E>
OpBuild builder_or_layer_norm() {
    return [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
        if (std::unique_ptr<Executor> e = layer_norm(ctx, n)) return e;
        return std::make_unique<E>(ctx, n);
    };
}

const OpRegistration mvn({"MVN"}, {check_mvn, builder_or_layer_norm<MvnExecutor>()});
const OpRegistration group_normalization({"GroupNormalization"},
                                         {check_group_normalization, [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                              const int64_t groups = ctx.graph.attributes(n).get_int("num_groups");
                                              return std::make_unique<MvnExecutor>(ctx, n, groups);
                                          }});
const OpRegistration reduce({"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2"},
                            {check_reduce, builder_or_layer_norm<ReduceExecutor>()});

}  // namespace

}  // namespace mosaic::gpu_plugin
