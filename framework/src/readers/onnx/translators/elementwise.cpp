// Translators of ONNX's elementwise arithmetic, comparison, logical and unary math ops, Where, Cast,
// CastLike, IsNaN, IsInf and BitShift. Most map one to one onto the OpenVINO op of the same meaning
// (numpy broadcasting is the default of both); the rest are decomposed as OpenVINO's ONNX frontend
// does. The binary ops of opsets before 7 broadcast by the legacy rule (legacy_broadcast.hpp).
// Activations and Clip are in elementwise_activation.cpp.
#include "readers/onnx/onnx_node_context.hpp"
#include "readers/onnx/onnx_tensor.hpp"
#include "readers/onnx/translators/legacy_broadcast.hpp"

#include <cctype>
#include <limits>

namespace mosaic::onnx_import {

namespace {

Translator binary(const char* type) {
    return [type](NodeContext& ctx) -> Outputs { return {ctx.op(type, {ctx.input(0), broadcast_operand(ctx)})}; };
}

Translator unary(const char* type) {
    return [type](NodeContext& ctx) -> Outputs { return {ctx.op(type, {ctx.input(0)})}; };
}

// ONNX integer division truncates toward zero (C semantics), unlike Divide's default.
Outputs div(NodeContext& ctx) {
    return {ctx.op("Divide", {ctx.input(0), broadcast_operand(ctx)}, {{"m_pythondiv", "false"}})};
}

// Base and exponent may differ in type; the result has the base's type. An integer exponent, or
// a floating-point one no wider than a floating-point base, is converted to the base's type;
// otherwise (integer base, or a narrower floating-point base) the power is computed in the
// exponent's type and converted back, as OpenVINO's ONNX frontend does.
Outputs pow(NodeContext& ctx) {
    Output base = ctx.input(0), exponent = broadcast_operand(ctx);
    const ElementType bt = base.get_element_type(), et = exponent.get_element_type();
    if (bt == et) return {ctx.op("Power", {base, exponent})};
    if (!is_floating(et) || (is_floating(bt) && element_size(bt) >= element_size(et)))
        return {ctx.op("Power", {base, ctx.convert(exponent, bt)})};
    return {ctx.convert(ctx.op("Power", {ctx.convert(base, et), exponent}), bt)};
}

// fmod=0: the remainder takes the divisor's sign (Python's %); fmod=1: the dividend's (C's fmod).
Outputs mod(NodeContext& ctx) {
    const bool fmod = ctx.attr_int("fmod", 0) != 0;
    return {ctx.op(fmod ? "Mod" : "FloorMod", {ctx.input(0), ctx.input(1)})};
}

// Sum, Max, Min: a left fold of the binary op over all inputs, broadcasting as it goes. Before
// opset 8 (versions 1 and 6) they do not broadcast: every input has the first one's shape.
Output fold(NodeContext& ctx, const char* type) {
    if (ctx.input_count() == 0) ctx.fail("needs at least one input");
    Output acc = ctx.input(0);
    for (size_t i = 1; i < ctx.input_count(); ++i) {
        if (ctx.opset() < 8)
            require_same_shape(ctx, ctx.input(0), ctx.input(i), "inputs 0 and " + std::to_string(i),
                               "must be equal before opset 8 (numpy broadcasting of " + ctx.op_type() +
                                   " came with opset 8)");
        acc = ctx.op(type, {acc, ctx.input(i)});
    }
    return acc;
}

Translator variadic(const char* type) {
    return [type](NodeContext& ctx) -> Outputs { return {fold(ctx, type)}; };
}

Outputs mean(NodeContext& ctx) {
    const Output sum = fold(ctx, "Add");
    if (ctx.input_count() == 1) return {sum};
    const Output n = ctx.scalar_of(sum.get_element_type(), static_cast<double>(ctx.input_count()));
    return {ctx.op("Divide", {sum, n})};
}

Outputs reciprocal(NodeContext& ctx) {
    const Output x = ctx.input(0);
    return {ctx.op("Divide", {ctx.scalar_of(x.get_element_type(), 1.0), x})};
}

Outputs round(NodeContext& ctx) { return {ctx.op("Round", {ctx.input(0)}, {{"mode", "half_to_even"}})}; }

Outputs where(NodeContext& ctx) { return {ctx.op("Select", {ctx.input(0), ctx.input(1), ctx.input(2)})}; }

// Cast-1 names the target type by its TensorProto.DataType name ("FLOAT", "INT64"...), from opset 6
// by the enum's number.
int32_t cast_target(NodeContext& ctx) {
    if (ctx.opset() >= 6) return static_cast<int32_t>(ctx.attr_int("to"));
    const ::onnx::AttributeProto* to = ctx.attr("to");
    if (!to) ctx.fail("attribute 'to' is required");
    std::string name = to->s();
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    ::onnx::TensorProto_DataType type{};
    if (to->type() != ::onnx::AttributeProto::STRING || !::onnx::TensorProto_DataType_Parse(name, &type))
        ctx.fail("attribute 'to' must name a TensorProto data type (FLOAT, INT64, ...) before opset 6, got '" +
                 (to->type() == ::onnx::AttributeProto::STRING ? to->s() : std::to_string(to->i())) + "'");
    return type;
}

// Strings and complex numbers have no Mosaic element type; element_type_of reports them as
// unsupported. ONNX's float-to-integer casts truncate, as Convert does.
Outputs cast(NodeContext& ctx) {
    const ElementType to = element_type_of(cast_target(ctx), ctx.where() + ", attribute 'to'");
    return {ctx.convert(ctx.input(0), to)};
}

Outputs cast_like(NodeContext& ctx) { return {ctx.convert(ctx.input(0), ctx.input(1).get_element_type())}; }

// NaN is the only value unequal to itself.
Outputs is_nan(NodeContext& ctx) {
    const Output x = ctx.input(0);
    return {ctx.op("NotEqual", {x, x})};
}

Outputs is_inf(NodeContext& ctx) {
    const Output x = ctx.input(0);
    if (!is_floating(x.get_element_type()))
        ctx.fail(std::string("input must be a floating-point tensor, got ") + to_string(x.get_element_type()));
    const bool negative = ctx.attr_int("detect_negative", 1) != 0;
    const bool positive = ctx.attr_int("detect_positive", 1) != 0;
    const double inf = std::numeric_limits<double>::infinity();
    if (negative && positive) return {ctx.op("Equal", {ctx.op("Abs", {x}), ctx.scalar_of(x.get_element_type(), inf)})};
    if (positive) return {ctx.op("Equal", {x, ctx.scalar_of(x.get_element_type(), inf)})};
    if (negative) return {ctx.op("Equal", {x, ctx.scalar_of(x.get_element_type(), -inf)})};
    const Output no = ctx.scalar_of(ElementType::boolean, 0);
    return {ctx.op("Broadcast", {no, ctx.shape_of(x)}, {{"mode", "numpy"}})};
}

// x << y is x * 2^y and x >> y is x / 2^y on unsigned integers, as OpenVINO's ONNX frontend
// decomposes them; 2^y wraps to 0 once y reaches the bit width, which makes a left shift 0 as
// numpy's does. A right shift by the bit width or more is 0 too, chosen by a Select, since
// dividing by the wrapped 0 would fail.
Outputs bit_shift(NodeContext& ctx) {
    const std::string direction = ctx.attr_string("direction", "");
    if (direction != "LEFT" && direction != "RIGHT")
        ctx.fail("attribute 'direction' must be LEFT or RIGHT, got '" + direction + "'");
    const Output x = ctx.input(0), y = ctx.input(1);
    const ElementType t = x.get_element_type();
    if (t != ElementType::u8 && t != ElementType::u16 && t != ElementType::u32 && t != ElementType::u64)
        ctx.fail(std::string("input 0 must be an unsigned integer tensor, got ") + to_string(t));
    const Output two = ctx.scalar_of(t, 2);
    if (direction == "LEFT") return {ctx.op("Multiply", {x, ctx.op("Power", {two, y})})};
    const double bits = static_cast<double>(element_size(t) * 8);
    const Output limited = ctx.op("Minimum", {y, ctx.scalar_of(t, bits - 1)});
    const Output shifted = ctx.op("Divide", {x, ctx.op("Power", {two, limited})}, {{"m_pythondiv", "false"}});
    const Output too_far = ctx.op("GreaterEqual", {y, ctx.scalar_of(t, bits)});
    return {ctx.op("Select", {too_far, ctx.scalar_of(t, 0), shifted})};
}

const TranslatorRegistration registration({
    {"Add", binary("Add")},
    {"Sub", binary("Subtract")},
    {"Mul", binary("Multiply")},
    {"Div", div},
    {"Pow", pow},
    {"Mod", mod},
    {"Sum", variadic("Add")},
    {"Max", variadic("Maximum")},
    {"Min", variadic("Minimum")},
    {"Mean", mean},
    {"Equal", binary("Equal")},
    {"Greater", binary("Greater")},
    {"Less", binary("Less")},
    {"GreaterOrEqual", binary("GreaterEqual")},
    {"LessOrEqual", binary("LessEqual")},
    {"And", binary("LogicalAnd")},
    {"Or", binary("LogicalOr")},
    {"Xor", binary("LogicalXor")},
    {"Not", unary("LogicalNot")},
    {"BitwiseAnd", binary("BitwiseAnd")},
    {"BitwiseOr", binary("BitwiseOr")},
    {"BitwiseXor", binary("BitwiseXor")},
    {"BitwiseNot", unary("BitwiseNot")},
    {"Where", where},
    {"Abs", unary("Abs")},
    {"Neg", unary("Negative")},
    {"Sign", unary("Sign")},
    {"Floor", unary("Floor")},
    {"Ceil", unary("Ceiling")},
    {"Round", round},
    {"Reciprocal", reciprocal},
    {"Exp", unary("Exp")},
    {"Log", unary("Log")},
    {"Sqrt", unary("Sqrt")},
    {"Erf", unary("Erf")},
    {"Sin", unary("Sin")},
    {"Cos", unary("Cos")},
    {"Tan", unary("Tan")},
    {"Asin", unary("Asin")},
    {"Acos", unary("Acos")},
    {"Atan", unary("Atan")},
    {"Sinh", unary("Sinh")},
    {"Cosh", unary("Cosh")},
    {"Asinh", unary("Asinh")},
    {"Acosh", unary("Acosh")},
    {"Atanh", unary("Atanh")},
    {"Cast", cast},
    {"CastLike", cast_like},
    {"IsNaN", is_nan},
    {"IsInf", is_inf},
    {"BitShift", bit_shift},
});

}  // namespace

}  // namespace mosaic::onnx_import
