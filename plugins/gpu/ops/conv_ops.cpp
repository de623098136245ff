// Convolution and GroupConvolution, 2-D, f32, constant filters: im2col into the request's
// scratch buffer and a GEMM per image (gemm.hpp; 1x1 stride-1 unpadded filters read the input as
// it is; with the tiled GEMM, im2col writes the GEMM's packed operand directly), or a direct
// kernel for depthwise filters; bias, activations and a residual Add after it fused (fusion.hpp)
// into one epilogue.
#include "gemm/gemm.hpp"
#include "kernels/kernel_args.hpp"
#include "gemm/tiled_gemm.hpp"
#include "ops/fusion.hpp"
#include "ops/op_registry.hpp"
#include "ops/window_shape.hpp"

#include <algorithm>
#include <optional>

namespace mosaic::gpu_plugin {

namespace {

std::string check_conv(const sdk::GraphView& g, size_t n, const ClDeviceInfo&) {
    if (auto r = first_of({check_types(g, n, {ElementType::f32}), check_static_nonempty(g, n), check_compile_time_input(g, n, 1)});
        !r.empty())
        return r;
    if (g.input_shape(n, 0).size() != 4) return "only 2-D convolutions (N, C, H, W) have a GPU kernel";
    return "";
}

class ConvExecutor : public Executor {
public:
    ConvExecutor(BuildContext& ctx, size_t n)
        : Executor(ctx.graph.node_name(n), ctx.graph.type(n), {ctx.values.input(n, 0), ctx.values.input(n, 1)},
                   {ctx.values.output(n, 0)}) {
        const sdk::GraphView& g = ctx.graph;
        const Shape in = g.input_shape(n, 0), w = g.input_shape(n, 1), out = g.output_shape(n, 0);
        const bool grouped = g.type(n) == "GroupConvolution";
        groups_ = grouped ? w[0] : 1;
        const int64_t oc_per_group = grouped ? w[1] : w[0], ic_per_group = grouped ? w[2] : w[1];
        const int64_t kh = w[w.size() - 2], kw = w[w.size() - 1];
        const Window2d win = window_of(g.attributes(n), in, out, {kh, kw});
        s_ = {static_cast<cl_int>(ic_per_group), static_cast<cl_int>(in[2]), static_cast<cl_int>(in[3]),
              static_cast<cl_int>(out[2]), static_cast<cl_int>(out[3]), static_cast<cl_int>(kh), static_cast<cl_int>(kw),
              static_cast<cl_int>(win.stride_h), static_cast<cl_int>(win.stride_w), static_cast<cl_int>(win.dilation_h),
              static_cast<cl_int>(win.dilation_w), static_cast<cl_int>(win.pad_top), static_cast<cl_int>(win.pad_left)};
        batch_ = in[0];
        depthwise_ = grouped && oc_per_group == 1 && ic_per_group == 1;
        direct_ = !depthwise_ && kh == 1 && kw == 1 && win.stride_h == 1 && win.stride_w == 1 && win.pad_top == 0 &&
                  win.pad_left == 0 && win.pad_bottom == 0 && win.pad_right == 0;
        const size_t spatial = static_cast<size_t>(out[2] * out[3]), k = static_cast<size_t>(ic_per_group * kh * kw);
        GemmShape gemm;
        gemm.m = static_cast<size_t>(oc_per_group);
        gemm.n = spatial;
        gemm.k = k;
        gemm.batch = static_cast<size_t>(groups_);
        gemm.a_stride = gemm.m * k;
        gemm.b_stride = k * spatial;
        gemm.c_stride = gemm.m * spatial;
        epilogue_ = fuse_epilogue(ctx, n, 1, true);
        const std::vector<float> scaled = scale_filters(ctx);
        if (!depthwise_) gemm_.emplace(ctx, gemm, inputs()[1], kNoValue, scaled.empty() ? nullptr : scaled.data());
        in_image_ = in[1] * in[2] * in[3];
        out_image_ = out[1] * out[2] * out[3];
        col_elements_ = groups_ * static_cast<int64_t>(k * spatial);
        k_ = k;
        spatial_ = spatial;
        if (depthwise_) s_.channels = static_cast<cl_int>(in[1]);
        depthwise16_ = depthwise_ && ctx.engine.info().prefers_sixteen_wide() && out[3] >= 4;
        const int64_t span = (kw - 1) * win.dilation_w + 16 * win.stride_w, ring = (kh - 1) * win.dilation_h + 1;
        if (depthwise16_ && win.stride_w <= 2 && span <= kWindowMax && ring <= kRingMax) {
            // Bands of rows where the columns alone would leave compute units idle; each band
            // loads the rings' rows above its first output row again.
            const int64_t columns = in[0] * in[1] * ((out[3] + 15) / 16);
            const int64_t wanted = kColumnsPerUnit * ctx.engine.info().compute_units;
            const int64_t bands = std::clamp<int64_t>((wanted + columns - 1) / columns, 1, out[2]);
            column_rows_ = (out[2] + bands - 1) / bands;
            column_items_ = columns * ((out[2] + column_rows_ - 1) / column_rows_);
        }
        take_epilogue(g, epilogue_);
        epilogue_in_gemm_ = gemm_ && !epilogue_.empty() && gemm_->applies_epilogue(epilogue_.args);
        const TiledGemm* tiled = gemm_ ? gemm_->tiled() : nullptr;
        fused_im2col_ = tiled && !direct_ &&
                        tiled->packed_b_panels() >= kFusedPanelsPerUnit * ctx.engine.info().compute_units &&
                        tiled->panel_bytes() <= ctx.engine.info().local_mem_bytes;
        count_ = shape_size(out);
    }

    void enqueue(const ExecContext& ctx) const override {
        const cl::Buffer &x = ctx[inputs()[0]], &w = scaled_filters_ ? *scaled_filters_ : ctx[inputs()[1]];
        const cl::Buffer &y = ctx[outputs()[0]], &bias = epilogue_.bias_buffer(ctx, y);
        const cl::Buffer& residual = epilogue_.residual != kNoValue ? ctx[epilogue_.residual] : y;
        if (depthwise_) {
            cl::Kernel& k = ctx.kernel(exec_type());
            const cl_uint rows_arg = set_args(k, x, w, y, s_, bias, residual, epilogue_.args);
            if (column_rows_ > 0) {
                k.setArg(rows_arg, static_cast<cl_int>(column_rows_));
                ctx.launch(k, items(column_items_));
                return;
            }
            ctx.launch(k, depthwise16_ ? sixteen_wide_items(count_, s_.out_w) : items(count_));
            return;
        }
        const GemmEpilogue in_gemm = epilogue_in_gemm_ ? GemmEpilogue{&epilogue_.args, &bias, &residual} : GemmEpilogue{};
        for (int64_t b = 0; b < batch_; ++b) {
            if (direct_) {
                // The image's channels are the GEMM's rows of B as they lie.
                gemm_->enqueue(ctx, w, 0, x, static_cast<size_t>(b * in_image_), y, static_cast<size_t>(b * out_image_), 0,
                               in_gemm);
                continue;
            }
            if (fused_im2col_) {
                cl::Kernel& k = ctx.kernel("conv_gemm_tiled_f32");
                set_args(k, x, static_cast<cl_int>(b * in_image_), s_);  // its 3 arguments before the GEMM's
                gemm_->tiled()->enqueue_packing_b(ctx, k, 3, y, static_cast<size_t>(b * out_image_), in_gemm);
                continue;
            }
            if (const TiledGemm* tiled = gemm_->tiled()) {
                cl::Kernel& im2col = ctx.kernel("im2col_packed_f32");
                set_args(im2col, x, static_cast<cl_int>(b * in_image_), ctx.scratch(), cl_int{0}, s_,
                         static_cast<cl_int>(k_), static_cast<cl_int>(spatial_));
                const size_t taps = static_cast<size_t>(s_.kernel_h) * static_cast<size_t>(s_.kernel_w);
                ctx.launch(im2col, cl::NDRange(taps, tiled->packed_b_panels(), static_cast<size_t>(groups_)));
                tiled->enqueue_packed_b(ctx, w, 0, 0, y, static_cast<size_t>(b * out_image_), tiled->packed_b_elements(),
                                        in_gemm);
                continue;
            }
            // One im2col over every group: the groups' channels follow each other in the image,
            // so group g's GEMM reads rows g * k ... of the columns.
            ConvShape all = s_;
            all.channels = static_cast<cl_int>(s_.channels * groups_);
            cl::Kernel& im2col = ctx.kernel("im2col_f32");
            set_args(im2col, x, static_cast<cl_int>(b * in_image_), ctx.scratch(), all);
            ctx.launch(im2col, items(col_elements_));
            gemm_->enqueue(ctx, w, 0, ctx.scratch(), 0, y, static_cast<size_t>(b * out_image_), static_cast<size_t>(col_elements_),
                           in_gemm);
        }
        if (epilogue_.empty() || epilogue_in_gemm_) return;
        cl::Kernel& k = ctx.kernel("epilogue_f32");
        set_args(k, y, bias, residual, epilogue_.args);
        ctx.launch(k, items(count_));
    }
    std::string exec_type() const override {
        if (depthwise_) {
            if (column_rows_ > 0) return "depthwise_column16_f32";
            return depthwise16_ ? "depthwise_conv16_f32" : "depthwise_conv_f32";
        }
        if (fused_im2col_) return "conv_gemm_tiled_f32";
        return direct_ ? gemm_->exec_type() + "_1x1" : "im2col_" + gemm_->exec_type();
    }
    // The columns of im2col (but where it writes the tiled GEMM's packed B), then what the GEMM packs.
    size_t scratch_bytes() const override {
        if (depthwise_ || fused_im2col_) return 0;  // a fused im2col packs into local memory
        const size_t columns = direct_ || gemm_->tiled() ? 0 : static_cast<size_t>(col_elements_);
        return (columns + gemm_->scratch_elements()) * sizeof(float);
    }

private:
    // The filters times a folded BatchNorm's per-channel scale (the filters of one output channel
    // follow each other, grouped or not), uploaded for the kernels that read them as they lie; the
    // host values for the tiled GEMM to pack. Empty without a folded BatchNorm.
    std::vector<float> scale_filters(const BuildContext& ctx) {
        if (epilogue_.filter_scale.empty()) return {};
        const Value& w = ctx.values[ctx.values.storage_of(inputs()[1])];
        const auto* values = static_cast<const float*>(w.constant);
        const size_t count = static_cast<size_t>(shape_size(w.shape)), per_channel = count / epilogue_.filter_scale.size();
        std::vector<float> scaled(values, values + count);
        for (size_t i = 0; i < count; ++i) scaled[i] *= epilogue_.filter_scale[i / per_channel];
        scaled_filters_ = ctx.upload(scaled.data(), count);
        return scaled;
    }

    ConvShape s_{};
    std::optional<cl::Buffer> scaled_filters_;
    std::optional<Gemm> gemm_;  // all but depthwise filters
    int64_t groups_ = 1, batch_ = 1, in_image_ = 0, out_image_ = 0, col_elements_ = 0, count_ = 0;
    size_t k_ = 0, spatial_ = 0;  // of one group's GEMM: rows and columns of B
    bool depthwise_ = false, direct_ = false;
    // Where the device prefers it, rows of 4 outputs or more: sixteen outputs of a row a work item
    // (conv.cl), idle lanes past a row's end included (MobileNetV2 on 2 cores: 44 ms with the
    // one-output kernel, 21 with this one from rows of 16, 19 from rows of 4).
    bool depthwise16_ = false;
    // Of those, stride 1 or 2 along the row with windows that fit: a column of sixteen outputs down
    // `column_rows_` rows a work item (conv.cl's depthwise_column16_f32; 0: not this kernel).
    // Alternating runs on 2 cores: 576 channels of 14x14, 0.6-1.5 ms a row at a time against
    // 0.3-0.45 down columns; 960 of 7x7, 0.4-1.0 against 0.2-0.5; MobileNetV2, 21-40 against 17-22.
    int64_t column_rows_ = 0, column_items_ = 0;
    static constexpr int64_t kColumnsPerUnit = 8;  // work items wanted per compute unit before bands
    bool epilogue_in_gemm_ = false;  // the tiled GEMM applies it as it stores
    // im2col fused into the tiled GEMM (gemm_conv.cl: one work item a panel of output positions)
    // where there are panels enough to keep every core busy; else im2col_packed_f32, then the GEMM
    // with several work items a panel.
    bool fused_im2col_ = false;
    static constexpr size_t kFusedPanelsPerUnit = 8;
    Epilogue epilogue_;
};

const OpRegistration conv({"Convolution", "GroupConvolution"},
                          {check_conv, [](BuildContext& ctx, size_t n) -> std::unique_ptr<Executor> {
                               return std::make_unique<ConvExecutor>(ctx, n);
                           }});

}  // namespace

}  // namespace mosaic::gpu_plugin
