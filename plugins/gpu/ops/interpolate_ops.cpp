// Interpolate-4 and Interpolate-11, f32, in the modes nearest, linear_onnx and cubic (every coordinate
// transformation and nearest mode, any axes, no padding), with constant scales/sizes/axes: the
// reference computes the per-axis tap tables once at compile time (the same coordinate mapping as
// the REFERENCE device), the executor uploads them and one kernel gathers and weighs.
#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

#include <mosaic/reference/interpolation.hpp>

#include <stdexcept>

namespace mosaic::gpu_plugin {

namespace {

// The node's taps, from the reference (throws std::runtime_error where it has none).
std::vector<reference::AxisTaps> taps_of(const sdk::GraphView& g, size_t n) {
    const Attributes attrs = g.attributes(n);
    const std::string version = g.version(n);
    reference::KernelArgs args{"Interpolate", version, attrs, {}, {}};
    args.inputs.push_back({g.input_type(n, 0), g.input_shape(n, 0), nullptr});  // only its shape is read
    for (size_t i = 1; i < g.input_count(n); ++i) {
        const std::optional<ConstTensorView> c = constant_view(g, n, i);
        if (!c) throw std::runtime_error(check_constant_input(g, n, i));
        args.inputs.push_back(*c);
    }
    args.outputs.push_back({g.output_type(n, 0), g.output_shape(n, 0), nullptr});
    return reference::separable_interpolate_taps(args);
}

bool padded(const Attributes& a) {
    for (const char* key : {"pads_begin", "pads_end"})
        for (int64_t p : a.get_ints(key, {}))
            if (p != 0) return true;
    return false;
}

std::string check_interpolate(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (auto r = first_of({check_types(g, n, {ElementType::f32, ElementType::i32, ElementType::i64}), check_static_nonempty(g, n)});
        !r.empty())
        return r;
    if (g.input_type(n, 0) != ElementType::f32) return "only f32 data has a GPU Interpolate kernel";
    if (padded(g.attributes(n))) return "Interpolate with pads_begin/pads_end has no GPU kernel";
    if (shape_size(g.input_shape(n, 0)) >= (int64_t{1} << 31)) return "more than 2^31 elements";
    try {
        taps_of(g, n);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

class InterpolateExecutor : public Executor {
public:
    InterpolateExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), "Interpolate", {ctx.values.input(n, 0)}, {ctx.values.output(n, 0)}) {
        const Shape in = ctx.graph.input_shape(n, 0), out = ctx.graph.output_shape(n, 0);
        const std::vector<int64_t> in_strides = strides_of(in);
        std::vector<cl_int> index;
        std::vector<cl_float> weight;
        args_.rank = static_cast<cl_int>(out.size());
        const std::vector<reference::AxisTaps> taps = taps_of(ctx.graph, n);
        for (size_t d = 0; d < taps.size(); ++d) {
            args_.dims[d] = static_cast<cl_int>(out[d]);
            args_.in_strides[d] = static_cast<cl_int>(in_strides[d]);
            args_.count[d] = static_cast<cl_int>(taps[d].count);
            args_.offset[d] = static_cast<cl_int>(index.size());
            for (int64_t i : taps[d].index) index.push_back(static_cast<cl_int>(i));
            weight.insert(weight.end(), taps[d].weight.begin(), taps[d].weight.end());
        }
        index_ = ctx.upload_bytes(index.data(), index.size() * sizeof(cl_int));
        weight_ = ctx.upload_bytes(weight.data(), weight.size() * sizeof(cl_float));
        count_ = shape_size(out);
    }

    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel("interpolate_f32");
        set_args(k, ctx[inputs()[0]], ctx[outputs()[0]], index_, weight_, args_);
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override { return "interpolate_f32"; }

private:
    TapsArgs args_;
    cl::Buffer index_, weight_;
    int64_t count_ = 0;
};

const OpRegistration interpolate({"Interpolate"},
                                 {check_interpolate, [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                      return std::make_unique<InterpolateExecutor>(ctx, n);
                                  }});

}  // namespace

}  // namespace mosaic::gpu_plugin
