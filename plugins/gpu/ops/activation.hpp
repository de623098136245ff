// Ops that are one activation (kernels/kernel_interface.h's ACT_* codes), standalone or fused after
// a convolution or MatMul: Relu, Clamp, Sigmoid, ..., and arithmetic by a scalar constant (linear).
#pragma once

#include "kernels/kernel_args.hpp"

#include <mosaic/sdk/graph.hpp>

#include <optional>

namespace mosaic::gpu_plugin {

// One activation as kernels take it: a kind and its parameters (unary_f32's kind, a, b; an
// epilogue's act1, act1_a, act1_b).
struct Activation {
    cl_int kind = ACT_NONE;
    cl_float a = 0, b = 0;
};

// The activation node `n` computes on its input 0 (f32), or nothing: a unary activation op, or an
// Add/Subtract/Multiply/Divide whose other input is a scalar f32 constant (x op c; c - x and
// c / x are not linear in this form and are left out), a Maximum/Minimum with one (a clamp), or a
// Power to one (x * x for 2, the square of LayerNorm's variance, else pow).
std::optional<Activation> activation_of(const sdk::GraphView& g, size_t n);

}  // namespace mosaic::gpu_plugin
