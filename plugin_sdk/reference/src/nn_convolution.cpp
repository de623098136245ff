// Reference kernels of Convolution, GroupConvolution, ConvolutionBackpropData and
// GroupConvolutionBackpropData. All four are one grouped convolution (plain ones have one group);
// the transposed forms read the input through the transposed window (see Window in nn_kernels.hpp).
#include "nn_kernels.hpp"

#include <mosaic/reference/convolution.hpp>

#include <algorithm>

namespace mosaic::reference::nn {

namespace {

struct ConvGeometry {
    int64_t batch = 0, groups = 1, in_per_group = 0, out_per_group = 0;
    Window window;
};

ConvGeometry geometry(const KernelArgs& args, bool grouped, bool transposed) {
    const Shape& data = args.inputs.at(0).shape;
    const Shape& filter = args.inputs.at(1).shape;
    const Shape& out = args.outputs.at(0).shape;
    const size_t off = grouped ? 1 : 0;
    if (data.size() < 3 || filter.size() != data.size() + off || out.size() != data.size())
        throw std::runtime_error(std::string(args.op_type) + ": inconsistent data " + to_string(data) +
                                 ", filter " + to_string(filter) + " and output " + to_string(out) + " shapes");
    const size_t n = data.size() - 2;

    ConvGeometry g;
    g.batch = data[0];
    g.groups = grouped ? filter[0] : 1;
    g.in_per_group = transposed ? filter[off] : filter[off + 1];
    g.out_per_group = transposed ? filter[off + 1] : filter[off];
    if (data[1] != g.groups * g.in_per_group || out[1] != g.groups * g.out_per_group)
        throw std::runtime_error(std::string(args.op_type) + ": channels of data " + to_string(data) +
                                 " or output " + to_string(out) + " do not match filter " + to_string(filter));

    Window& w = g.window;
    w.in.assign(data.begin() + 2, data.end());
    w.kernel.assign(filter.begin() + static_cast<std::ptrdiff_t>(off + 2), filter.end());
    w.out.assign(out.begin() + 2, out.end());
    w.strides = list_attr(args, "strides", n, 1);
    w.dilations = list_attr(args, "dilations", n, 1);
    if (!transposed) {
        w.pads_begin = forward_padding(args, w.in, w.kernel, w.strides, w.dilations).begin;
        return g;
    }

    // Transposed: explicit pads as given; same_* distribute the padding that makes the requested
    // output_shape (the larger half first for same_upper); otherwise none.
    const AutoPad auto_pad = auto_pad_attr(args);
    w.pads_begin.assign(n, 0);
    if (auto_pad == AutoPad::explicit_pads) {
        w.pads_begin = list_attr(args, "pads_begin", n, 0);
    } else if (auto_pad != AutoPad::valid && args.inputs.size() == 3) {
        const auto output_padding = list_attr(args, "output_padding", n, 0);
        for (size_t i = 0; i < n; ++i) {
            const int64_t full = w.strides[i] * (w.in[i] - 1) + w.dilations[i] * (w.kernel[i] - 1) + 1;
            const int64_t total = std::max<int64_t>(0, full - w.out[i] + output_padding[i]);
            w.pads_begin[i] = auto_pad == AutoPad::same_upper ? total - total / 2 : total / 2;
        }
    }
    return g;
}

// y[b, g*Co+co, o] = sum over ci, k of x[b, g*Ci+ci, in(o, k)] * w[g, co, ci, k] (forward) or
// w[g, ci, co, k] (transposed), skipping taps whose input falls in the padding.
template <typename T>
void grouped_convolution(const KernelArgs& args, const ConvGeometry& g, bool transposed) {
    using Acc = Accumulator<T>;
    const T* x = args.inputs[0].as<T>();
    const T* w = args.inputs[1].as<T>();
    T* y = args.outputs[0].as<T>();
    const int64_t in_size = shape_size(g.window.in), out_size = shape_size(g.window.out);
    const int64_t k_size = shape_size(g.window.kernel);
    // Output positions outermost: each one's taps are worked out once for all channels.
    WindowTaps(g.window, transposed).for_each_output([&](int64_t o, const std::vector<WindowTap>& window) {
        for (int64_t b = 0; b < g.batch; ++b)
            for (int64_t grp = 0; grp < g.groups; ++grp)
                for (int64_t co = 0; co < g.out_per_group; ++co) {
                    Acc acc = 0;
                    for (int64_t ci = 0; ci < g.in_per_group; ++ci) {
                        const T* x_channel = x + ((b * g.groups + grp) * g.in_per_group + ci) * in_size;
                        const int64_t filter_index = transposed
                                                         ? (grp * g.in_per_group + ci) * g.out_per_group + co
                                                         : (grp * g.out_per_group + co) * g.in_per_group + ci;
                        const T* filter = w + filter_index * k_size;
                        for (const WindowTap& tap : window)
                            acc += static_cast<Acc>(x_channel[tap.offset]) * static_cast<Acc>(filter[tap.k]);
                    }
                    y[((b * g.groups + grp) * g.out_per_group + co) * out_size + o] = static_cast<T>(acc);
                }
    });
}

template <bool Grouped, bool Transposed>
void convolution_kernel(const KernelArgs& args) {
    const ConvGeometry g = geometry(args, Grouped, Transposed);
    dispatch_numeric(args, args.inputs[0].type, [&](auto tag) {
        grouped_convolution<decltype(tag)>(args, g, Transposed);
    });
}

}  // namespace

void register_convolution_kernels(KernelRegistry& r) {
    r.add("Convolution", {"opset1"}, convolution_kernel<false, false>);
    r.add("GroupConvolution", {"opset1"}, convolution_kernel<true, false>);
    r.add("ConvolutionBackpropData", {"opset1"}, convolution_kernel<false, true>);
    r.add("GroupConvolutionBackpropData", {"opset1"}, convolution_kernel<true, true>);
}

}  // namespace mosaic::reference::nn

namespace mosaic::reference {

std::vector<int64_t> convolution_pads_begin(const KernelArgs& args) {
    const std::string type(args.op_type);
    const bool grouped = type.rfind("Group", 0) == 0, transposed = type.find("BackpropData") != std::string::npos;
    return nn::geometry(args, grouped, transposed).window.pads_begin;
}

}  // namespace mosaic::reference
