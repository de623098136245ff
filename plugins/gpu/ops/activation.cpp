#include "ops/activation.hpp"

#include <cmath>
#include <cstring>

namespace mosaic::gpu_plugin {

namespace {

// The f32 value of a one-element constant input, or nothing.
std::optional<float> scalar_constant(const sdk::GraphView& g, size_t n, size_t i) {
    if (i >= g.input_count(n)) return std::nullopt;
    size_t node = g.input(n, i).node;
    while (g.type(node) == "Reshape" || g.type(node) == "Squeeze" || g.type(node) == "Unsqueeze") node = g.input(node, 0).node;
    if (!g.is_constant(node) || g.output_type(node, 0) != ElementType::f32 || shape_size(g.output_shape(node, 0)) != 1)
        return std::nullopt;
    size_t bytes = 0;
    const void* data = g.constant_data(node, &bytes);
    float v = 0;
    std::memcpy(&v, data, sizeof v);
    return v;
}

}  // namespace

std::optional<Activation> activation_of(const sdk::GraphView& g, size_t n) {
    if (g.output_type(n, 0) != ElementType::f32 || g.input_type(n, 0) != ElementType::f32) return std::nullopt;
    const std::string t = g.type(n);
    const Attributes a = g.attributes(n);
    auto act = [](ActivationKind k, float x = 0, float y = 0) { return std::optional<Activation>(Activation{k, x, y}); };
    if (t == "Relu") return act(ACT_RELU);
    if (t == "Clamp") return act(ACT_CLAMP, static_cast<float>(a.get_float("min")), static_cast<float>(a.get_float("max")));
    if (t == "Sigmoid") return act(ACT_SIGMOID);
    if (t == "Tanh") return act(ACT_TANH);
    if (t == "Elu") return act(ACT_ELU, static_cast<float>(a.get_float("alpha")));
    if (t == "Gelu") {
        const std::string mode = a.get_string("approximation_mode", "ERF");
        if (mode == "ERF" || mode == "erf") return act(ACT_GELU_ERF);
        if (mode == "TANH" || mode == "tanh") return act(ACT_GELU_TANH);
        return std::nullopt;
    }
    if (t == "Swish") {
        if (g.input_count(n) == 1) return act(ACT_SWISH, 1.0f);
        if (auto beta = scalar_constant(g, n, 1)) return act(ACT_SWISH, *beta);
        return std::nullopt;
    }
    if (t == "HSwish") return act(ACT_HSWISH);
    if (t == "HSigmoid") return act(ACT_HSIGMOID);
    if (t == "HardSigmoid" || t == "Selu") {  // alpha and beta (HardSigmoid) or lambda (Selu): scalar inputs
        const std::optional<float> a = scalar_constant(g, n, 1), b = scalar_constant(g, n, 2);
        if (!a || !b) return std::nullopt;
        return act(t == "Selu" ? ACT_SELU : ACT_HARD_SIGMOID, *a, *b);
    }
    if (t == "Mish") return act(ACT_MISH);
    if (t == "SoftPlus") return act(ACT_SOFTPLUS);
    if (t == "Exp") return act(ACT_EXP);
    if (t == "Log") return act(ACT_LOG);
    if (t == "Sqrt") return act(ACT_SQRT);
    if (t == "Abs") return act(ACT_ABS);
    if (t == "Negative") return act(ACT_NEGATIVE);
    if (t == "Erf") return act(ACT_ERF);
    if (t == "Floor") return act(ACT_FLOOR);
    if (t == "Ceiling") return act(ACT_CEIL);
    if (t == "Sin") return act(ACT_SIN);
    if (t == "Cos") return act(ACT_COS);
    if (t == "Sign") return act(ACT_SIGN);
    if (t == "Tan") return act(ACT_TAN);
    if (t == "Asin") return act(ACT_ASIN);
    if (t == "Acos") return act(ACT_ACOS);
    if (t == "Atan") return act(ACT_ATAN);
    if (t == "Sinh") return act(ACT_SINH);
    if (t == "Cosh") return act(ACT_COSH);
    if (t == "Asinh") return act(ACT_ASINH);
    if (t == "Acosh") return act(ACT_ACOSH);
    if (t == "Atanh") return act(ACT_ATANH);
    if (t == "Round") {
        const std::string mode = a.get_string("mode", "half_to_even");
        if (mode == "half_to_even") return act(ACT_ROUND_EVEN);
        if (mode == "half_away_from_zero") return act(ACT_ROUND_AWAY);
        return std::nullopt;
    }
    if (t == "Add" || t == "Subtract" || t == "Multiply" || t == "Divide" || t == "Maximum" || t == "Minimum" ||
        t == "Power") {
        if (g.input_count(n) != 2 || g.output_shape(n, 0) != g.input_shape(n, 0)) return std::nullopt;
        const std::optional<float> c = scalar_constant(g, n, 1);
        if (!c) return std::nullopt;
        // Clip's translation (ReLU6 of MobileNets): a clamp from one side.
        if (t == "Maximum") return act(ACT_CLAMP, *c, INFINITY);
        if (t == "Minimum") return act(ACT_CLAMP, -INFINITY, *c);
        if (t == "Power") return *c == 2.0f ? act(ACT_SQUARE) : act(ACT_POW, *c);
        if (t == "Add") return act(ACT_LINEAR, 1.0f, *c);
        if (t == "Subtract") return act(ACT_LINEAR, 1.0f, -*c);
        if (t == "Multiply") return act(ACT_LINEAR, *c, 0.0f);
        // x / c exactly: x * (1 / c) rounds twice and moves a quantization's values at ties.
        return act(ACT_DIVIDE, *c);
    }
    return std::nullopt;
}

}  // namespace mosaic::gpu_plugin
