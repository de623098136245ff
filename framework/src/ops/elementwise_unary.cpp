// Schemas of the unary elementwise ops: arithmetic and math functions, activations (some with
// parameter inputs), Convert and ConvertLike. The output has the data input's shape.
#include "ops/elementwise_ops.hpp"

namespace mosaic::ops {

namespace {

// Any numeric type (OpenVINO's UnaryElementwiseArithmetic rejects boolean).
std::vector<PortInfo> infer_numeric_unary(const InferContext& ctx) {
    return {{require_numeric(ctx, 0), ctx.input_shape(0)}};
}

// Activations that OpenVINO defines for floating-point types only.
std::vector<PortInfo> infer_float_unary(const InferContext& ctx) {
    return {{require_float(ctx, 0), ctx.input_shape(0)}};
}

std::vector<PortInfo> infer_clamp(const InferContext& ctx) {
    const double min = float_attr(ctx, "min"), max = float_attr(ctx, "max");
    ctx.check(min <= max, "attribute 'min' (" + Attributes::format_float(min) + ") must not be greater than 'max' (" +
                              Attributes::format_float(max) + ")");
    return infer_numeric_unary(ctx);
}

std::vector<PortInfo> infer_elu(const InferContext& ctx) {
    float_attr(ctx, "alpha");
    return infer_float_unary(ctx);
}

std::vector<PortInfo> infer_gelu7(const InferContext& ctx) {
    enum_attr(ctx, "approximation_mode", "erf", {"erf", "tanh"});
    return infer_float_unary(ctx);
}

std::vector<PortInfo> infer_round(const InferContext& ctx) {
    enum_attr(ctx, "mode", "half_to_even", {"half_to_even", "half_away_from_zero"});
    return infer_numeric_unary(ctx);
}

// Data plus one-element parameter inputs of the data's type, named in order by `params`.
std::vector<PortInfo> infer_with_params(const InferContext& ctx, const std::vector<const char*>& params) {
    const ElementType t = require_float(ctx, 0);
    for (size_t k = 0; k < params.size() && k + 1 < ctx.input_count(); ++k) {
        require_same_type(ctx, 0, k + 1);
        require_single_value(ctx, k + 1, params[k]);
    }
    return {{t, ctx.input_shape(0)}};
}

// The slope broadcasts per channel when it is 1D of the channel count (data dim 1), otherwise
// numpy-style; either way it must broadcast to the data's shape, which the output keeps.
std::vector<PortInfo> infer_prelu(const InferContext& ctx) {
    const ElementType t = require_numeric(ctx, 0);
    require_same_type(ctx, 0, 1);
    const Shape& data = ctx.input_shape(0);
    const Shape& slope = ctx.input_shape(1);
    const bool per_channel = slope.size() == 1 && data.size() >= 2 && slope[0] == data[1];
    if (!per_channel) {
        const Shape b = numpy_broadcast(ctx, data, slope);
        ctx.check(b.size() == data.size() && (b == data || !is_static(data)),
                  "slope shape " + to_string(slope) + " does not broadcast to data shape " + to_string(data));
    }
    return {{t, data}};
}

std::vector<PortInfo> infer_convert(const InferContext& ctx) {
    const std::string& name = ctx.attrs().get_string("destination_type", "");
    const ElementType t = element_type_from_string(name);
    ctx.check(t != ElementType::undefined, "attribute 'destination_type' has unknown element type '" + name + "'");
    return {{t, ctx.input_shape(0)}};
}

std::vector<PortInfo> infer_convert_like(const InferContext& ctx) {
    return {{ctx.input_type(1), ctx.input_shape(0)}};
}

}  // namespace

void register_unary_elementwise_ops(OpRegistry& r) {
    for (const char* type : {"Abs", "Negative", "Sign", "Floor", "Ceiling", "Exp", "Log", "Sqrt", "Erf", "Sigmoid",
                             "Tanh", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Relu"})
        r.add({type, {"opset1"}, 1, 1, infer_numeric_unary});
    // Specified as Asinh-3 etc., but OpenVINO writes these ops with version "opset4" in IR.
    for (const char* type : {"Asinh", "Acosh", "Atanh"}) r.add({type, {"opset3", "opset4"}, 1, 1, infer_numeric_unary});
    r.add({"Round", {"opset5"}, 1, 1, infer_round});
    r.add({"Clamp", {"opset1"}, 1, 1, infer_clamp});
    r.add({"Elu", {"opset1"}, 1, 1, infer_elu});
    r.add({"Gelu", {"opset2"}, 1, 1, infer_float_unary});
    r.add({"Gelu", {"opset7"}, 1, 1, infer_gelu7});
    r.add({"HSwish", {"opset4"}, 1, 1, infer_float_unary});
    r.add({"Mish", {"opset4"}, 1, 1, infer_float_unary});
    r.add({"SoftPlus", {"opset4"}, 1, 1, infer_float_unary});
    r.add({"HSigmoid", {"opset5"}, 1, 1, infer_float_unary});
    r.add({"SoftSign", {"opset9"}, 1, 1, infer_float_unary});
    r.add({"Swish", {"opset4"}, 1, 2, [](const InferContext& ctx) { return infer_with_params(ctx, {"beta"}); }});
    r.add({"Selu", {"opset1"}, 3, 3,
           [](const InferContext& ctx) { return infer_with_params(ctx, {"alpha", "lambda"}); }});
    r.add({"HardSigmoid", {"opset1"}, 3, 3,
           [](const InferContext& ctx) { return infer_with_params(ctx, {"alpha", "beta"}); }});
    r.add({"PRelu", {"opset1"}, 2, 2, infer_prelu});
    r.add({"Convert", {"opset1"}, 1, 1, infer_convert});
    r.add({"ConvertLike", {"opset1"}, 2, 2, infer_convert_like});
}

}  // namespace mosaic::ops
