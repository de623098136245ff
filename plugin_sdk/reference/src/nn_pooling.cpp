// Reference kernels of MaxPool-1, MaxPool-8 and AvgPool-1 over data [N, C, spatial...], and of
// MaxPool-14 and AvgPool-14, which differ from MaxPool-8 and AvgPool-1 only in how their output
// shape rounds (ceil_torch): the windows follow from the output shape the kernel is given; and of
// AvgPool-16, AvgPool-14 with dilations.
#include "nn_kernels.hpp"

#include <limits>

namespace mosaic::reference::nn {

namespace {

// The sliding window of a pooling op, from its attributes and the data and output shapes.
struct Pooling {
    int64_t channels = 0;  // N * C
    Window window;
    bool padded = false;  // whether any pad is non-zero
};

Pooling pooling(const KernelArgs& args, bool with_dilations) {
    const Shape& data = args.inputs.at(0).shape;
    const Shape& out = args.outputs.at(0).shape;
    if (data.size() < 3 || out.size() != data.size())
        throw std::runtime_error(std::string(args.op_type) + ": inconsistent data " + to_string(data) +
                                 " and output " + to_string(out) + " shapes");
    const size_t n = data.size() - 2;
    Pooling p;
    p.channels = data[0] * data[1];
    Window& w = p.window;
    w.in.assign(data.begin() + 2, data.end());
    w.out.assign(out.begin() + 2, out.end());
    w.kernel = args.attrs.get_ints("kernel");
    if (w.kernel.size() != n) throw std::runtime_error(std::string(args.op_type) + ": kernel rank mismatch");
    w.strides = list_attr(args, "strides", n, 1);
    w.dilations = with_dilations ? list_attr(args, "dilations", n, 1) : std::vector<int64_t>(n, 1);
    const Padding pads = forward_padding(args, w.in, w.kernel, w.strides, w.dilations);
    w.pads_begin = pads.begin;
    for (size_t i = 0; i < n; ++i) p.padded |= pads.begin[i] != 0 || pads.end[i] != 0;
    return p;
}

// The first largest element of each window; taps in the padding are skipped. The optional index
// output holds the element's flat position in the data tensor, counted from axis `axis` on.
template <typename T>
void max_pool(const KernelArgs& args, const Pooling& p, const TensorView* indices, int64_t axis) {
    const T* x = args.inputs[0].as<T>();
    T* y = args.outputs[0].as<T>();
    const int64_t in_size = shape_size(p.window.in), out_size = shape_size(p.window.out);
    const Shape& data = args.inputs[0].shape;
    const int64_t index_range = shape_size(Shape(data.begin() + axis, data.end()));

    WindowTaps(p.window, false).for_each_output([&](int64_t o, const std::vector<WindowTap>& window) {
        for (int64_t ch = 0; ch < p.channels; ++ch) {
            T best = std::numeric_limits<T>::lowest();
            int64_t best_offset = 0;
            for (size_t t = 0; t < window.size(); ++t)
                if (t == 0 || x[ch * in_size + window[t].offset] > best) {
                    best = x[ch * in_size + window[t].offset];
                    best_offset = window[t].offset;
                }
            y[ch * out_size + o] = best;
            // An empty spatial axis padded into windows of padding only leaves no element to point at
            // (index_range is 0: a division by zero, found by fuzzing); such a window's index is 0.
            if (indices)
                write_index(*indices, ch * out_size + o, index_range ? (ch * in_size + best_offset) % index_range : 0);
        }
    });
}

// Window sums divided by the number of data elements in the window, or by the whole kernel size
// when padding is included (exclude-pad=false) and there is padding: OpenVINO's convention.
template <typename T>
void avg_pool(const KernelArgs& args, const Pooling& p, bool exclude_pad) {
    const T* x = args.inputs[0].as<T>();
    T* y = args.outputs[0].as<T>();
    const int64_t in_size = shape_size(p.window.in), out_size = shape_size(p.window.out);
    const int64_t k_size = shape_size(p.window.kernel);
    const bool count_padding = !exclude_pad && p.padded;

    WindowTaps(p.window, false).for_each_output([&](int64_t o, const std::vector<WindowTap>& window) {
        const auto count = count_padding ? k_size : static_cast<int64_t>(window.size());
        for (int64_t ch = 0; ch < p.channels; ++ch) {
            double sum = 0;
            for (const WindowTap& tap : window) sum += static_cast<double>(x[ch * in_size + tap.offset]);
            y[ch * out_size + o] = count ? static_cast<T>(sum / static_cast<double>(count)) : T{0};
        }
    });
}

void max_pool_1(const KernelArgs& args) {
    const Pooling p = pooling(args, false);
    dispatch_numeric(args, args.inputs[0].type, [&](auto tag) { max_pool<decltype(tag)>(args, p, nullptr, 0); });
}

void max_pool_8(const KernelArgs& args) {
    const Pooling p = pooling(args, true);
    const auto rank = static_cast<int64_t>(args.inputs[0].shape.size());
    int64_t axis = args.attrs.get_int("axis", 0);
    if (axis < -rank || axis >= rank) throw std::runtime_error("MaxPool: axis out of range");
    if (axis < 0) axis += rank;
    const TensorView* indices = args.outputs.size() > 1 ? &args.outputs[1] : nullptr;
    dispatch_numeric(args, args.inputs[0].type, [&](auto tag) { max_pool<decltype(tag)>(args, p, indices, axis); });
}

void avg_pool_1(const KernelArgs& args) {
    const Pooling p = pooling(args, args.version == "opset16");
    const bool exclude_pad = args.attrs.get_bool("exclude-pad");
    dispatch_floating(args, args.inputs[0].type, [&](auto tag) { avg_pool<decltype(tag)>(args, p, exclude_pad); });
}

}  // namespace

void register_pooling_kernels(KernelRegistry& r) {
    r.add("MaxPool", {"opset1"}, max_pool_1);
    r.add("MaxPool", {"opset8", "opset14"}, max_pool_8);
    r.add("AvgPool", {"opset1", "opset14", "opset16"}, avg_pool_1);
}

}  // namespace mosaic::reference::nn
