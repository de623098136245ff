// Ops that are one activation (kernels/00_common.cl's ACT_* codes), standalone or fused after a
// convolution or MatMul: Relu, Clamp, Sigmoid, ..., and arithmetic by a scalar constant (linear).
#pragma once

#include "kernels/kernel_args.hpp"

#include <mosaic/sdk/graph.hpp>

#include <optional>

namespace mosaic::gpu_plugin {

enum ActivationKind : cl_int {
    ACT_NONE = 0, ACT_RELU, ACT_CLAMP, ACT_SIGMOID, ACT_TANH, ACT_ELU, ACT_GELU_ERF, ACT_GELU_TANH, ACT_SWISH,
    ACT_HSWISH, ACT_HSIGMOID, ACT_MISH, ACT_SOFTPLUS, ACT_EXP, ACT_LOG, ACT_SQRT, ACT_ABS, ACT_NEGATIVE, ACT_ERF,
    ACT_FLOOR, ACT_CEIL, ACT_LINEAR, ACT_SIN, ACT_COS, ACT_RECIPROCAL, ACT_SIGN, ACT_LEAKY, ACT_HARD_SIGMOID, ACT_SELU, ACT_SQUARE, ACT_POW,
    ACT_TAN, ACT_ASIN, ACT_ACOS, ACT_ATAN, ACT_SINH, ACT_COSH, ACT_ASINH, ACT_ACOSH, ACT_ATANH, ACT_ROUND_EVEN, ACT_ROUND_AWAY
};

// The activation node `n` computes on its input 0 (f32), or nothing: a unary activation op, or an
// Add/Subtract/Multiply/Divide whose other input is a scalar f32 constant (x op c; c - x and
// c / x are not linear in this form and are left out), a Maximum/Minimum with one (a clamp), or a
// Power to one (x * x for 2, the square of LayerNorm's variance, else pow).
std::optional<Activation> activation_of(const sdk::GraphView& g, size_t n);

}  // namespace mosaic::gpu_plugin
