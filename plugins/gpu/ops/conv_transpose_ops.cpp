// ConvolutionBackpropData and GroupConvolutionBackpropData, 2-D, f32, constant filters: per image a
// GEMM of each group's filters, transposed, by its input channels (the columns: every output
// channel's and tap's contribution from every input position, in the request's scratch buffer),
// then col2im (conv_transpose.cl) gathering each output element's taps from them, with the bias and
// activations after it fused (fusion.hpp). The window's padding is the reference's own
// (reference/convolution.hpp): same_upper and same_lower with an output_shape pad to reach it.
// Decoders upsample so (segmentation heads, generators), which would otherwise leave the GPU.
#include "ops/fusion.hpp"
#include "gemm/gemm.hpp"
#include "kernels/kernel_args.hpp"
#include "ops/op_registry.hpp"

#include <mosaic/reference/convolution.hpp>

#include <optional>

namespace mosaic::gpu_plugin {

namespace {

// The reference's pads before the two spatial axes (throws std::runtime_error where it has none).
std::vector<int64_t> pads_begin(const sdk::GraphView& g, size_t n) {
    const Attributes attrs = g.attributes(n);
    const std::string type = g.type(n);
    reference::KernelArgs args{type, g.version(n), attrs, {}, {}};
    for (size_t i = 0; i < g.input_count(n); ++i)  // only the shapes are read
        args.inputs.push_back({g.input_type(n, i), g.input_shape(n, i), nullptr});
    args.outputs.push_back({g.output_type(n, 0), g.output_shape(n, 0), nullptr});
    return reference::convolution_pads_begin(args);
}

std::string check_conv_transpose(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (auto r = first_of({check_types(g, n, {ElementType::f32, ElementType::i32, ElementType::i64}),
                           check_static_nonempty(g, n), check_compile_time_input(g, n, 1)});
        !r.empty())
        return r;
    if (g.input_type(n, 0) != ElementType::f32 || g.input_type(n, 1) != ElementType::f32) return "only f32 data and filters have a GPU kernel";
    if (g.input_shape(n, 0).size() != 4) return "only 2-D transposed convolutions (N, C, H, W) have a GPU kernel";
    try {
        pads_begin(g, n);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

class ConvTransposeExecutor : public Executor {
public:
    ConvTransposeExecutor(BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), ctx.graph.type(n), {ctx.values.input(n, 0), ctx.values.input(n, 1)},
                   {ctx.values.output(n, 0)}) {
        const sdk::GraphView& g = ctx.graph;
        const Shape in = g.input_shape(n, 0), w = g.input_shape(n, 1), out = g.output_shape(n, 0);
        const bool grouped = g.type(n) == "GroupConvolutionBackpropData";
        const int64_t groups = grouped ? w[0] : 1, in_per_group = grouped ? w[1] : w[0], out_per_group = grouped ? w[2] : w[1];
        const int64_t kh = w[w.size() - 2], kw = w[w.size() - 1];
        const Attributes attrs = g.attributes(n);
        const std::vector<int64_t> strides = attrs.get_ints("strides", {1, 1}), dilations = attrs.get_ints("dilations", {1, 1});
        const std::vector<int64_t> pads = pads_begin(g, n);
        s_ = {static_cast<cl_int>(out_per_group), static_cast<cl_int>(in[2]), static_cast<cl_int>(in[3]),
              static_cast<cl_int>(out[2]), static_cast<cl_int>(out[3]), static_cast<cl_int>(kh), static_cast<cl_int>(kw),
              static_cast<cl_int>(strides[0]), static_cast<cl_int>(strides[1]), static_cast<cl_int>(dilations[0]),
              static_cast<cl_int>(dilations[1]), static_cast<cl_int>(pads[0]), static_cast<cl_int>(pads[1])};
        // Per group: columns [out channels x taps, positions] = filters [in channels, out channels x
        // taps] transposed, times the image's channels [in channels, positions].
        GemmShape gemm;
        gemm.m = static_cast<size_t>(out_per_group * kh * kw);
        gemm.n = static_cast<size_t>(in[2] * in[3]);
        gemm.k = static_cast<size_t>(in_per_group);
        gemm.transpose_a = true;
        gemm.batch = static_cast<size_t>(groups);
        gemm.a_stride = gemm.k * gemm.m;
        gemm.b_stride = gemm.k * gemm.n;
        gemm.c_stride = gemm.m * gemm.n;
        gemm_.emplace(ctx, gemm, inputs()[1], kNoValue);
        columns_ = groups * static_cast<int64_t>(gemm.c_stride);
        batch_ = in[0];
        in_image_ = in[1] * in[2] * in[3];
        out_image_ = out[1] * out[2] * out[3];
        epilogue_ = fuse_epilogue(ctx, n, 1);
        take_epilogue(g, epilogue_);
    }

    void enqueue(const ExecContext& ctx) const override {
        const cl::Buffer &x = ctx[inputs()[0]], &w = ctx[inputs()[1]], &y = ctx[outputs()[0]];
        const cl::Buffer &bias = epilogue_.bias_buffer(ctx, y), &residual = epilogue_.residual != kNoValue ? ctx[epilogue_.residual] : y;
        for (int64_t b = 0; b < batch_; ++b) {
            gemm_->enqueue(ctx, w, 0, x, static_cast<size_t>(b * in_image_), ctx.scratch(), 0, static_cast<size_t>(columns_));
            cl::Kernel& k = ctx.kernel("col2im_f32");
            set_args(k, ctx.scratch(), y, static_cast<cl_int>(b * out_image_), s_, bias, residual, epilogue_.args);
            ctx.launch(k, items(out_image_));
        }
    }
    std::string exec_type() const override { return gemm_->exec_type() + "_col2im"; }
    size_t scratch_bytes() const override { return (static_cast<size_t>(columns_) + gemm_->scratch_elements()) * sizeof(float); }

private:
    ConvShape s_{};
    std::optional<Gemm> gemm_;
    int64_t columns_ = 0, batch_ = 1, in_image_ = 0, out_image_ = 0;
    Epilogue epilogue_;
};

const OpRegistration conv_transpose({"ConvolutionBackpropData", "GroupConvolutionBackpropData"},
                                    {check_conv_transpose, [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                                         return std::make_unique<ConvTransposeExecutor>(ctx, n);
                                     }});

}  // namespace

}  // namespace mosaic::gpu_plugin
