// Reference kernels of the nn group: registration and the helpers declared in nn_kernels.hpp.
#include "nn_kernels.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

namespace mosaic::reference {

void register_nn_kernels(KernelRegistry& r) {
    nn::register_convolution_kernels(r);
    nn::register_matmul_kernels(r);
    nn::register_pooling_kernels(r);
    nn::register_softmax_kernels(r);
    nn::register_normalization_kernels(r);
    nn::register_interpolate_kernels(r);
    nn::register_topk_kernels(r);
    nn::register_recurrent_kernels(r);
    nn::register_grid_sample_kernels(r);
    nn::register_col2im_kernels(r);
    nn::register_roi_align_kernels(r);
    nn::register_det_kernels(r);
    nn::register_detection_kernels(r);
    nn::register_attention_kernels(r);
}

namespace nn {

namespace {

template <typename Out>
std::vector<Out> read_values(const ConstTensorView& t) {
    std::vector<Out> out(static_cast<size_t>(t.size()));
    for (size_t i = 0; i < out.size(); ++i) {
        switch (t.type) {
            case ElementType::f32: out[i] = static_cast<Out>(t.as<float>()[i]); break;
            case ElementType::f64: out[i] = static_cast<Out>(t.as<double>()[i]); break;
            case ElementType::i8: out[i] = static_cast<Out>(t.as<int8_t>()[i]); break;
            case ElementType::u8: out[i] = static_cast<Out>(t.as<uint8_t>()[i]); break;
            case ElementType::i16: out[i] = static_cast<Out>(t.as<int16_t>()[i]); break;
            case ElementType::u16: out[i] = static_cast<Out>(t.as<uint16_t>()[i]); break;
            case ElementType::i32: out[i] = static_cast<Out>(t.as<int32_t>()[i]); break;
            case ElementType::u32: out[i] = static_cast<Out>(t.as<uint32_t>()[i]); break;
            case ElementType::i64: out[i] = static_cast<Out>(t.as<int64_t>()[i]); break;
            case ElementType::u64: out[i] = static_cast<Out>(t.as<uint64_t>()[i]); break;
            default:
                throw std::runtime_error(std::string("cannot read values of element type ") + to_string(t.type));
        }
    }
    return out;
}

}  // namespace

std::vector<int64_t> read_ints(const ConstTensorView& t) { return read_values<int64_t>(t); }
std::vector<double> read_floats(const ConstTensorView& t) { return read_values<double>(t); }

void write_index(const TensorView& t, int64_t position, int64_t value) {
    if (t.type == ElementType::i32) t.as<int32_t>()[position] = static_cast<int32_t>(value);
    else if (t.type == ElementType::i64) t.as<int64_t>()[position] = value;
    else throw std::runtime_error(std::string("index output must be i32 or i64, got ") + to_string(t.type));
}

std::vector<int64_t> strides_of(const Shape& shape) {
    std::vector<int64_t> s(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
    return s;
}

std::vector<int64_t> list_attr(const KernelArgs& args, const char* name, size_t count, int64_t fallback) {
    if (!args.attrs.has(name)) return std::vector<int64_t>(count, fallback);
    std::vector<int64_t> v = args.attrs.get_ints(name);
    if (v.size() != count)
        throw std::runtime_error(std::string(args.op_type) + ": attribute '" + name + "' has " +
                                 std::to_string(v.size()) + " values, expected " + std::to_string(count));
    return v;
}

std::string lower_attr(const KernelArgs& args, const char* name, const char* fallback) {
    std::string s = args.attrs.get_string(name, fallback);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

AutoPad auto_pad_attr(const KernelArgs& args) {
    const std::string v = lower_attr(args, "auto_pad", "explicit");
    if (v == "same_upper") return AutoPad::same_upper;
    if (v == "same_lower") return AutoPad::same_lower;
    if (v == "valid") return AutoPad::valid;
    if (v == "explicit" || v == "notset") return AutoPad::explicit_pads;
    throw std::runtime_error(std::string(args.op_type) + ": unsupported auto_pad '" + v + "'");
}

Padding forward_padding(const KernelArgs& args, const Shape& in_spatial, const std::vector<int64_t>& kernel,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations) {
    const size_t n = in_spatial.size();
    const AutoPad auto_pad = auto_pad_attr(args);
    Padding p{std::vector<int64_t>(n, 0), std::vector<int64_t>(n, 0)};
    if (auto_pad == AutoPad::explicit_pads) {
        p.begin = list_attr(args, "pads_begin", n, 0);
        p.end = list_attr(args, "pads_end", n, 0);
    } else if (auto_pad != AutoPad::valid) {
        for (size_t i = 0; i < n; ++i) {
            const int64_t out = (in_spatial[i] + strides[i] - 1) / strides[i];
            const int64_t dilated = dilations[i] * (kernel[i] - 1) + 1;
            const int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + dilated - in_spatial[i]);
            p.begin[i] = auto_pad == AutoPad::same_upper ? total / 2 : total - total / 2;
            p.end[i] = total - p.begin[i];
        }
    }
    return p;
}

namespace {

using Wide = __int128;  // attribute products (fuzzed strides, pads) must not overflow

Wide floor_div(Wide a, Wide b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }
Wide ceil_div(Wide a, Wide b) { return -floor_div(-a, b); }

}  // namespace

WindowTaps::WindowTaps(const Window& w, bool transposed)
    : out_(w.out), in_strides_(strides_of(w.in)), kernel_strides_(strides_of(w.kernel)) {
    for (size_t a = 0; a < w.in.size(); ++a) {
        const Wide in = w.in[a], kernel = w.kernel[a], stride = w.strides[a], dilation = w.dilations[a];
        if (stride <= 0 || dilation <= 0)
            throw std::runtime_error("a window's strides " + to_string(w.strides) + " and dilations " +
                                     to_string(w.dilations) + " must be positive");
        auto& runs = axes_.emplace_back(static_cast<size_t>(w.out[a]));
        for (int64_t o = 0; o < w.out[a]; ++o) {
            // forward: pos = base + k * dilation in [0, in); transposed: pos * stride = base - k * dilation.
            // Either way the k that land inside the input are one range, found by division.
            const Wide base = transposed ? Wide{o} + w.pads_begin[a] : Wide{o} * stride - w.pads_begin[a];
            Wide lo = transposed ? ceil_div(base - (in - 1) * stride, dilation) : ceil_div(-base, dilation);
            Wide hi = transposed ? floor_div(base, dilation) : floor_div(in - 1 - base, dilation);
            lo = std::max<Wide>(lo, 0);
            hi = std::min<Wide>(hi, kernel - 1);
            // Transposed: of that range, every (stride / gcd)-th k divides evenly; the first one is
            // at most that many (and never more than the kernel's taps) past lo.
            const Wide k_step = transposed ? stride / std::gcd(w.strides[a], w.dilations[a]) : 1;
            while (transposed && lo <= hi && (base - lo * dilation) % stride != 0) ++lo;
            if (lo > hi) continue;
            const Wide pos0 = transposed ? (base - lo * dilation) / stride : base + lo * dilation;
            const Wide pos_step = transposed ? -(k_step * dilation) / stride : dilation;
            runs[static_cast<size_t>(o)] = {static_cast<int64_t>(lo), static_cast<int64_t>(k_step),
                                            static_cast<int64_t>(pos0), static_cast<int64_t>(pos_step),
                                            static_cast<int64_t>((hi - lo) / k_step + 1)};
        }
    }
}

void WindowTaps::taps_of(const std::vector<int64_t>& out_coord, std::vector<WindowTap>& taps) const {
    taps.clear();
    const size_t rank = axes_.size();
    for (size_t a = 0; a < rank; ++a)
        if (axes_[a][static_cast<size_t>(out_coord[a])].count == 0) return;
    std::vector<int64_t> pick(rank, 0);  // one tap of each axis: an odometer over their product
    while (true) {
        WindowTap tap{0, 0};
        for (size_t a = 0; a < rank; ++a) {
            const AxisRun& run = axes_[a][static_cast<size_t>(out_coord[a])];
            tap.k += (run.k0 + pick[a] * run.k_step) * kernel_strides_[a];
            tap.offset += (run.pos0 + pick[a] * run.pos_step) * in_strides_[a];
        }
        taps.push_back(tap);
        size_t a = rank;
        while (a > 0 && ++pick[a - 1] == axes_[a - 1][static_cast<size_t>(out_coord[a - 1])].count) pick[--a] = 0;
        if (a == 0) return;
    }
}

}  // namespace nn
}  // namespace mosaic::reference
