// Helpers shared by the nn group's reference kernels (nn_*.cpp): element-type dispatch, reading
// small integer/float inputs, N-D iteration and sliding-window padding.
#pragma once

#include "kernel_groups.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace mosaic::reference::nn {

void register_convolution_kernels(KernelRegistry&);    // nn_convolution.cpp
void register_matmul_kernels(KernelRegistry&);         // nn_matmul.cpp
void register_pooling_kernels(KernelRegistry&);        // nn_pooling.cpp
void register_softmax_kernels(KernelRegistry&);        // nn_softmax.cpp
void register_normalization_kernels(KernelRegistry&);  // nn_normalization.cpp
void register_interpolate_kernels(KernelRegistry&);    // nn_interpolate.cpp
void register_topk_kernels(KernelRegistry&);           // nn_topk.cpp
void register_recurrent_kernels(KernelRegistry&);      // nn_recurrent.cpp
void register_grid_sample_kernels(KernelRegistry&);    // nn_grid_sample.cpp
void register_col2im_kernels(KernelRegistry&);         // nn_col2im.cpp
void register_roi_align_kernels(KernelRegistry&);      // nn_roi_align.cpp
void register_det_kernels(KernelRegistry&);            // nn_det.cpp
void register_detection_kernels(KernelRegistry&);      // nn_detection.cpp
void register_attention_kernels(KernelRegistry&);      // nn_attention.cpp

[[noreturn]] inline void unsupported_type(const KernelArgs& args, ElementType t) {
    throw std::runtime_error(std::string(args.op_type) + "-" + std::string(args.version) +
                             ": the reference kernel does not support element type " + to_string(t));
}

// Calls fn(T{}) with the C++ type of `t`, for the floating types.
template <typename Fn>
void dispatch_floating(const KernelArgs& args, ElementType t, Fn&& fn) {
    switch (t) {
        case ElementType::f32: return fn(float{});
        case ElementType::f64: return fn(double{});
        default: unsupported_type(args, t);
    }
}

// Calls fn(T{}) with the C++ type of `t`, for every numeric type.
template <typename Fn>
void dispatch_numeric(const KernelArgs& args, ElementType t, Fn&& fn) {
    switch (t) {
        case ElementType::f32: return fn(float{});
        case ElementType::f64: return fn(double{});
        case ElementType::i8: return fn(int8_t{});
        case ElementType::u8: return fn(uint8_t{});
        case ElementType::i16: return fn(int16_t{});
        case ElementType::u16: return fn(uint16_t{});
        case ElementType::i32: return fn(int32_t{});
        case ElementType::u32: return fn(uint32_t{});
        case ElementType::i64: return fn(int64_t{});
        case ElementType::u64: return fn(uint64_t{});
        default: unsupported_type(args, t);
    }
}

// Accumulator for sums of T: double for floats, a 64-bit integer of the same signedness otherwise.
template <typename T>
using Accumulator = std::conditional_t<std::is_floating_point_v<T>, double,
                                       std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

// The values of a small integer (or floating) tensor, e.g. axes, k or a target shape.
std::vector<int64_t> read_ints(const ConstTensorView& t);
std::vector<double> read_floats(const ConstTensorView& t);

// Stores an index into an i32 or i64 output.
void write_index(const TensorView& t, int64_t position, int64_t value);

// Row-major element strides of a shape.
std::vector<int64_t> strides_of(const Shape& shape);

// Steps through every coordinate of a shape in row-major order:
//   NdIndex it(shape); if (it.valid()) do { ... it.coord ... } while (it.next());
struct NdIndex {
    explicit NdIndex(Shape s) : shape(std::move(s)), coord(shape.size(), 0) {}
    bool valid() const { return shape_size(shape) > 0; }
    bool next() {
        for (size_t i = coord.size(); i-- > 0;) {
            if (++coord[i] < shape[i]) return true;
            coord[i] = 0;
        }
        return false;
    }
    Shape shape;
    std::vector<int64_t> coord;
};

// A comma-separated list attribute with `count` values, or `fallback` repeated when absent.
std::vector<int64_t> list_attr(const KernelArgs& args, const char* name, size_t count, int64_t fallback);

// Lower-cased string attribute.
std::string lower_attr(const KernelArgs& args, const char* name, const char* fallback);

enum class AutoPad { explicit_pads, same_upper, same_lower, valid };
AutoPad auto_pad_attr(const KernelArgs& args);

// Pads of a forward sliding window (Convolution, pooling), resolved from auto_pad exactly as the
// framework's shape inference does.
struct Padding {
    std::vector<int64_t> begin, end;
};
Padding forward_padding(const KernelArgs& args, const Shape& in_spatial, const std::vector<int64_t>& kernel,
                        const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations);

// The taps of a sliding window that read the input, not the padding: tap k of the kernel
// (row-major) of output position o reads `offset` (row-major within one channel).
//  forward:    in = o * stride - pad_begin + k * dilation        (Convolution, pooling)
//  transposed: in * stride = o + pad_begin - k * dilation        (ConvolutionBackpropData)
// The in-range taps are found per axis, by division, and their product is walked per output position, so that a kernel far larger than its input (a pooling window of
// 2^30 over four elements; a table of outputs x window positions, built once, took a fuzzed run
// past its time limit) costs what it reads, not what it spans, in time and in memory.
struct Window {
    Shape in, kernel, out;
    std::vector<int64_t> strides, dilations, pads_begin;
};
struct WindowTap {
    int64_t k, offset;
};
class WindowTaps {
public:
    WindowTaps(const Window& w, bool transposed);
    // The taps of the output position at `out_coord`, in row-major kernel order, into `taps`.
    void taps_of(const std::vector<int64_t>& out_coord, std::vector<WindowTap>& taps) const;
    // f(o, taps) for each output position, o counted row-major.
    template <typename F>
    void for_each_output(F&& f) const {
        NdIndex o(out_);
        if (!o.valid()) return;
        std::vector<WindowTap> taps;
        int64_t flat = 0;
        do {
            taps_of(o.coord, taps);
            f(flat++, static_cast<const std::vector<WindowTap>&>(taps));
        } while (o.next());
    }

private:
    Shape out_;
    // One axis's taps of one output coordinate: `count` taps k = k0 + i * k_step reading
    // pos0 + i * pos_step, an arithmetic progression (forward: k_step 1; transposed: the k whose
    // position divides evenly by the stride), so that an axis costs its outputs, not its taps.
    struct AxisRun {
        int64_t k0 = 0, k_step = 1, pos0 = 0, pos_step = 0, count = 0;
    };
    std::vector<std::vector<AxisRun>> axes_;  // [axis][output coordinate]
    std::vector<int64_t> in_strides_, kernel_strides_;
};

}  // namespace mosaic::reference::nn
