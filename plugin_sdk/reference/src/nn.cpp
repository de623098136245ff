// Reference kernels of the nn group: registration and the helpers declared in nn_kernels.hpp.
#include "nn_kernels.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
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
    nn::register_roi_align_kernels(r);
    nn::register_det_kernels(r);
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

// The table of window_offsets holds at most 2^27 entries (1 GiB): a kernel of billions of
// positions over padding as large (found by fuzzing: 2 TiB asked for) is refused, saying why,
// rather than allocated. Real models stay far below it (a 512x512 output of a 7x7 kernel: 2^23.6).
constexpr int64_t kMaxWindowEntries = int64_t{1} << 27;

std::vector<int64_t> window_offsets(const Window& w, bool transposed) {
    int64_t kernel_size = 1, entries = shape_size(w.out);
    for (int64_t k : w.kernel)
        if (__builtin_mul_overflow(kernel_size, k, &kernel_size)) kernel_size = kMaxWindowEntries + 1;
    if (__builtin_mul_overflow(entries, kernel_size, &entries) || entries > kMaxWindowEntries)
        throw std::runtime_error("a window of " + to_string(w.kernel) + " positions over " + to_string(w.out) +
                                 " outputs needs a table of more than 2^27 offsets in the reference kernel; "
                                 "check the op's kernel, dilations and pads");
    const auto in_strides = strides_of(w.in);
    std::vector<int64_t> offsets(static_cast<size_t>(entries), -1);
    NdIndex o(w.out);
    if (!o.valid() || kernel_size == 0) return offsets;
    int64_t entry = 0;
    do {
        NdIndex k(w.kernel);
        do {
            int64_t offset = 0;
            for (size_t a = 0; a < w.in.size() && offset >= 0; ++a) {
                int64_t pos = 0;
                if (!transposed) {
                    pos = o.coord[a] * w.strides[a] - w.pads_begin[a] + k.coord[a] * w.dilations[a];
                } else {
                    const int64_t scaled = o.coord[a] + w.pads_begin[a] - k.coord[a] * w.dilations[a];
                    pos = scaled >= 0 && scaled % w.strides[a] == 0 ? scaled / w.strides[a] : -1;
                }
                offset = pos >= 0 && pos < w.in[a] ? offset + pos * in_strides[a] : -1;
            }
            offsets[static_cast<size_t>(entry++)] = offset;
        } while (k.next());
    } while (o.next());
    return offsets;
}

}  // namespace nn
}  // namespace mosaic::reference
