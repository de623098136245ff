// Shared pieces of the elementwise kernel group: the registration function of each file, and the
// loops every elementwise kernel is built on.
#pragma once

#include "broadcast.hpp"
#include "kernel_groups.hpp"
#include "type_dispatch.hpp"

#include <cstdint>
#include <string>

namespace mosaic::reference {

void register_binary_arithmetic_kernels(KernelRegistry&);  // elementwise_binary.cpp
void register_comparison_logical_kernels(KernelRegistry&);  // elementwise_compare.cpp
void register_unary_math_kernels(KernelRegistry&);          // elementwise_unary.cpp
void register_activation_kernels(KernelRegistry&);          // elementwise_activation.cpp
void register_convert_select_kernels(KernelRegistry&);      // elementwise_convert.cpp
void register_fake_quantize_kernel(KernelRegistry&);        // elementwise_fake_quantize.cpp
void register_reduction_kernels(KernelRegistry&);           // reduction.cpp

inline void require_io(const KernelArgs& args, size_t min_inputs, size_t max_inputs, size_t outputs) {
    if (args.inputs.size() < min_inputs || args.inputs.size() > max_inputs || args.outputs.size() != outputs)
        throw std::runtime_error(std::string(args.op_type) + ": expected " + std::to_string(min_inputs) +
                                 (max_inputs != min_inputs ? "-" + std::to_string(max_inputs) : "") +
                                 " inputs and " + std::to_string(outputs) + " outputs, got " +
                                 std::to_string(args.inputs.size()) + " and " + std::to_string(args.outputs.size()));
}

// out[i] = fn(a[ia(i)], b[ib(i)]) over the output shape, the inputs numpy-broadcast to it (the
// output shape is the broadcast shape shape inference computed; with auto_broadcast="none" all
// shapes are equal and the maps are the identity).
template <typename In, typename Out, typename Fn>
void binary_map(const KernelArgs& args, Fn&& fn) {
    require_io(args, 2, 2, 1);
    const ConstTensorView& a = args.inputs[0];
    const ConstTensorView& b = args.inputs[1];
    const TensorView& out = args.outputs[0];
    const BroadcastIndex ia(a.shape, out.shape), ib(b.shape, out.shape);
    const In* pa = a.as<In>();
    const In* pb = b.as<In>();
    Out* po = out.as<Out>();
    const int64_t n = out.size();
    for (int64_t i = 0; i < n; ++i) po[i] = fn(pa[ia(i)], pb[ib(i)]);
}

// out[i] = fn(x[i]) for inputs[0] and outputs[0] of equal shape.
template <typename In, typename Out, typename Fn>
void unary_map(const KernelArgs& args, Fn&& fn) {
    const ConstTensorView& x = args.inputs.at(0);
    const TensorView& out = args.outputs.at(0);
    if (x.size() != out.size())
        throw std::runtime_error(std::string(args.op_type) + ": output shape " + to_string(out.shape) +
                                 " differs from input shape " + to_string(x.shape));
    const In* px = x.as<In>();
    Out* po = out.as<Out>();
    const int64_t n = out.size();
    for (int64_t i = 0; i < n; ++i) po[i] = fn(px[i]);
}

}  // namespace mosaic::reference
