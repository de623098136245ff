// MaxPool and AvgPool over the two trailing dims of an N, C, H, W f32 tensor (MaxPool-8 when its
// indices output is unused): one output element a work item, or on OpenCL CPU devices sixteen of a
// row (ResNet-50's 3x3 stride-2 max pooling on 2 cores: 3.1 ms one output a work item, 1.1 ms sixteen).
#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"
#include "ops/window_shape.hpp"

namespace mosaic::gpu_plugin {

namespace {

std::string check_pool(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (auto r = first_of({check_types(g, n, {ElementType::f32, ElementType::i64, ElementType::i32}), check_static_nonempty(g, n)});
        !r.empty())
        return r;
    if (g.input_type(n, 0) != ElementType::f32) return "only f32 pooling has a GPU kernel";
    if (g.input_shape(n, 0).size() != 4) return "only 2-D pooling (N, C, H, W) has a GPU kernel";
    if (g.output_count(n) > 1) {
        // MaxPool-8's indices: the kernel does not write them.
        for (size_t m = n + 1; m < g.node_count(); ++m)
            for (size_t i = 0; i < g.input_count(m); ++i)
                if (g.input(m, i).node == n && g.input(m, i).port == 1) return "MaxPool's indices output has no GPU kernel";
    }
    return "";
}

class PoolExecutor : public Executor {
public:
    PoolExecutor(const BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), ctx.graph.type(n), {ctx.values.input(n, 0)}, {ctx.values.output(n, 0)}),
          max_(ctx.graph.type(n) == "MaxPool") {
        const sdk::GraphView& g = ctx.graph;
        const Attributes a = g.attributes(n);
        const Shape in = g.input_shape(n, 0), out = g.output_shape(n, 0);
        const Window2d w = window_of(a, in, out, a.get_ints("kernel"));
        s_ = {static_cast<cl_int>(in[2]), static_cast<cl_int>(in[3]), static_cast<cl_int>(out[2]), static_cast<cl_int>(out[3]),
              static_cast<cl_int>(w.kernel_h), static_cast<cl_int>(w.kernel_w), static_cast<cl_int>(w.stride_h),
              static_cast<cl_int>(w.stride_w), static_cast<cl_int>(w.pad_top), static_cast<cl_int>(w.pad_left),
              static_cast<cl_int>(w.pad_bottom), static_cast<cl_int>(w.pad_right), static_cast<cl_int>(w.dilation_h),
              static_cast<cl_int>(w.dilation_w), 0};
        const bool padded = w.pad_top || w.pad_left || w.pad_bottom || w.pad_right;
        s_.count_padding = !max_ && padded && !a.get_bool("exclude-pad", false);
        count_ = shape_size(out);
        // As depthwise_conv16_f32, rows of 4 outputs or more (conv_ops.cpp).
        sixteen_ = ctx.engine.info().prefers_sixteen_wide() && out[3] >= 4;
    }

    void enqueue(const ExecContext& ctx) const override {
        cl::Kernel& k = ctx.kernel(exec_type());
        set_args(k, ctx[inputs()[0]], ctx[outputs()[0]], s_);
        ctx.launch(k, sixteen_ ? sixteen_wide_items(count_, s_.out_w) : items(count_));
    }
    std::string exec_type() const override {
        return std::string(max_ ? "max_pool" : "avg_pool") + (sixteen_ ? "16_f32" : "_f32");
    }

private:
    bool max_;
    bool sixteen_ = false;
    PoolShape s_{};
    int64_t count_ = 0;
};

const OpRegistration pool({"MaxPool", "AvgPool"}, {check_pool, [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                                       return std::make_unique<PoolExecutor>(ctx, n);
                                                   }});

}  // namespace

}  // namespace mosaic::gpu_plugin
