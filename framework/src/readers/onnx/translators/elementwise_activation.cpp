// Translators of ONNX's activation functions and Clip. Those OpenVINO has (Relu, Elu, Selu,
// HardSigmoid, HSwish, SoftPlus...) map onto it with ONNX's attributes turned into attributes or
// constant inputs; Celu, ThresholdedRelu and Shrink are decomposed as their ONNX function bodies
// define them. The `consumed_inputs` attribute of the opset-1 versions was a memory-reuse hint
// without meaning for the result; it is ignored, as ONNX Runtime ignores it.
#include "readers/onnx/onnx_node_context.hpp"
#include "readers/onnx/translators/legacy_broadcast.hpp"

#include <limits>

namespace mosaic::onnx_import {

namespace {

Translator unary(const char* type) {
    return [type](NodeContext& ctx) -> Outputs { return {ctx.op(type, {ctx.input(0)})}; };
}

Attributes float_attrs(const char* name, double value) {
    Attributes a;
    a.set(name, value);
    return a;
}

Outputs leaky_relu(NodeContext& ctx) {
    const Output x = ctx.input(0);
    return {ctx.op("PRelu", {x, ctx.scalar_of(x.get_element_type(), ctx.attr_float("alpha", 0.01))})};
}

// ONNX broadcasts the slope numpy-style, aligned on the data's last axes. PRelu reads a 1D slope
// as per-channel (data axis 1) when its length is the channel count, so a 1D slope under data of
// rank 3 or more is given a leading 1 axis, which numpy broadcasting treats the same.
//
// Before opset 7 (PRelu-1/6) the slope is one value shared by all channels, or per channel as in
// Caffe2, where the op comes from: its dims line up with the data's from axis 1 ([C] under
// [N, C, H, W]), which legacy alignment at axis 1 expresses.
Outputs prelu(NodeContext& ctx) {
    const Output x = ctx.input(0);
    Output slope = ctx.input(1);
    if (ctx.opset() < 7) return {ctx.op("PRelu", {x, align_at_axis(ctx, x, slope, 1, "input slope")})};
    if (ctx.rank(slope) == 1 && ctx.rank(x) > 2) slope = ctx.op("Unsqueeze", {slope, ctx.const_i64({0})});
    return {ctx.op("PRelu", {x, slope})};
}

Outputs elu(NodeContext& ctx) {
    return {ctx.op("Elu", {ctx.input(0)}, float_attrs("alpha", ctx.attr_float("alpha", 1.0)))};
}

// ONNX's defaults are the float32 values of the constants in the SELU paper; Selu-1 rounded them to
// four decimals first (1.6732 and 1.0507).
Outputs selu(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const bool v1 = ctx.opset() < 6;
    const double alpha_default = v1 ? static_cast<double>(1.6732f) : 1.67326319217681884765625;
    const double gamma_default = v1 ? static_cast<double>(1.0507f) : 1.05070102214813232421875;
    const Output alpha = ctx.scalar_of(x.get_element_type(), ctx.attr_float("alpha", alpha_default));
    const Output gamma = ctx.scalar_of(x.get_element_type(), ctx.attr_float("gamma", gamma_default));
    return {ctx.op("Selu", {x, alpha, gamma})};
}

// Celu(x) = alpha * Elu(x / alpha), ONNX's function body.
Outputs celu(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const Output alpha = ctx.scalar_of(x.get_element_type(), ctx.attr_float("alpha", 1.0));
    const Output elu = ctx.op("Elu", {ctx.op("Divide", {x, alpha})}, float_attrs("alpha", 1.0));
    return {ctx.op("Multiply", {alpha, elu})};
}

Outputs hard_sigmoid(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const Output alpha = ctx.scalar_of(x.get_element_type(), ctx.attr_float("alpha", 0.2));
    const Output beta = ctx.scalar_of(x.get_element_type(), ctx.attr_float("beta", 0.5));
    return {ctx.op("HardSigmoid", {x, alpha, beta})};
}

Outputs thresholded_relu(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const Output above = ctx.op("Greater", {x, ctx.scalar_of(x.get_element_type(), ctx.attr_float("alpha", 1.0))});
    return {ctx.op("Select", {above, x, ctx.scalar_of(x.get_element_type(), 0)})};
}

// x < -lambd: x + bias; x > lambd: x - bias; else 0. ONNX allows every numeric type. For integer
// data the bounds are truncated toward zero, which keeps both comparisons exact; an unsigned x is
// never below -lambd (lambd is not negative), so that branch is left out.
Outputs shrink(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const ElementType t = x.get_element_type();
    const double lambd = ctx.attr_float("lambd", 0.5), bias = ctx.attr_float("bias", 0.0);
    if (lambd < 0) ctx.fail("attribute 'lambd' must not be negative");
    const bool is_unsigned = t == ElementType::u8 || t == ElementType::u16 || t == ElementType::u32 ||
                             t == ElementType::u64;
    if (is_unsigned && bias < 0)
        ctx.unsupported("a negative 'bias' with unsigned data is not supported (its result wraps around)");
    const Output b = ctx.scalar_of(t, bias);
    const Output above = ctx.op("Greater", {x, ctx.scalar_of(t, lambd)});
    Output y = ctx.op("Select", {above, ctx.op("Subtract", {x, b}), ctx.scalar_of(t, 0)});
    if (is_unsigned) return {y};
    const Output below = ctx.op("Less", {x, ctx.scalar_of(t, -lambd)});
    return {ctx.op("Select", {below, ctx.op("Add", {x, b}), y})};
}

Outputs gelu(NodeContext& ctx) {
    const std::string approximate = ctx.attr_string("approximate", "none");
    if (approximate != "none" && approximate != "tanh")
        ctx.fail("attribute 'approximate' must be none or tanh, got '" + approximate + "'");
    return {ctx.op("Gelu", {ctx.input(0)}, {{"approximation_mode", approximate == "tanh" ? "tanh" : "erf"}}, "opset7")};
}

// Before opset 11 the bounds are attributes (float tensors only, defaulting to float's limits);
// from 11 they are optional inputs of the data's type, applied as Maximum then Minimum, which
// keeps integer bounds exact and gives max when min > max, as ONNX specifies.
Outputs clip(NodeContext& ctx) {
    Output x = ctx.input(0);
    if (ctx.opset() < 11) {
        Attributes a;
        a.set("min", ctx.attr_float("min", std::numeric_limits<float>::lowest()));
        a.set("max", ctx.attr_float("max", std::numeric_limits<float>::max()));
        return {ctx.op("Clamp", {x}, a)};
    }
    if (ctx.has_input(1)) x = ctx.op("Maximum", {x, ctx.input(1)});
    if (ctx.has_input(2)) x = ctx.op("Minimum", {x, ctx.input(2)});
    return {x};
}

const TranslatorRegistration registration({
    {"Relu", unary("Relu")},
    {"Sigmoid", unary("Sigmoid")},
    {"Tanh", unary("Tanh")},
    {"Softplus", unary("SoftPlus")},
    {"Softsign", unary("SoftSign")},
    {"HardSwish", unary("HSwish")},
    {"Mish", unary("Mish")},
    {"LeakyRelu", leaky_relu},
    {"PRelu", prelu},
    {"Elu", elu},
    {"Selu", selu},
    {"Celu", celu},
    {"HardSigmoid", hard_sigmoid},
    {"ThresholdedRelu", thresholded_relu},
    {"Shrink", shrink},
    {"Gelu", gelu},
    {"Clip", clip},
});

}  // namespace

}  // namespace mosaic::onnx_import
