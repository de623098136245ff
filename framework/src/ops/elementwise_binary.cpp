// Schemas of the binary elementwise ops (arithmetic, comparison, logical, bitwise), Select and
// FakeQuantize. All take the auto_broadcast attribute: "numpy" (default) or "none".
#include "ops/elementwise_ops.hpp"

namespace mosaic::ops {

namespace {

// Two numeric inputs of one type; the output has that type.
std::vector<PortInfo> infer_arithmetic(const InferContext& ctx) {
    const ElementType t = require_numeric(ctx, 0);
    require_same_type(ctx, 0, 1);
    return {{t, elementwise_shape(ctx, {0, 1})}};
}

std::vector<PortInfo> infer_divide(const InferContext& ctx) {
    for (const char* name : {"m_pythondiv", "pythondivision", "m_pythondivision"}) bool_attr(ctx, name, true);
    return infer_arithmetic(ctx);
}

// Two inputs of any one type; the output is boolean.
std::vector<PortInfo> infer_comparison(const InferContext& ctx) {
    require_same_type(ctx, 0, 1);
    return {{ElementType::boolean, elementwise_shape(ctx, {0, 1})}};
}

std::vector<PortInfo> infer_logical(const InferContext& ctx) {
    require_boolean(ctx, 0);
    require_boolean(ctx, 1);
    return {{ElementType::boolean, elementwise_shape(ctx, {0, 1})}};
}

std::vector<PortInfo> infer_logical_not(const InferContext& ctx) {
    require_boolean(ctx, 0);
    return {{ElementType::boolean, ctx.input_shape(0)}};
}

// BitwiseAnd/Or/Xor-13: two inputs of one integer or boolean type; the output has that type.
std::vector<PortInfo> infer_bitwise(const InferContext& ctx) {
    const ElementType t = require_integer_or_boolean(ctx, 0);
    require_same_type(ctx, 0, 1);
    return {{t, elementwise_shape(ctx, {0, 1})}};
}

std::vector<PortInfo> infer_bitwise_not(const InferContext& ctx) {
    return {{require_integer_or_boolean(ctx, 0), ctx.input_shape(0)}};
}

// Select(condition, then, else): a boolean condition picks between two inputs of one type; all
// three broadcast together.
std::vector<PortInfo> infer_select(const InferContext& ctx) {
    require_boolean(ctx, 0);
    require_same_type(ctx, 1, 2);
    return {{ctx.input_type(1), elementwise_shape(ctx, {0, 1, 2})}};
}

// FakeQuantize-1(x, input_low, input_high, output_low, output_high): x of a floating type and its
// four bounds of the same type, numpy-broadcast together (the bounds per tensor or per channel);
// `levels` (at least 2) quantization levels between the bounds.
std::vector<PortInfo> infer_fake_quantize(const InferContext& ctx) {
    const ElementType t = require_float(ctx, 0);
    for (size_t i = 1; i < 5; ++i) require_same_type(ctx, 0, i);
    int64_t levels = 0;
    try {
        levels = ctx.attrs().get_int("levels");
    } catch (const AttributeError& e) {
        ctx.fail(e.what());
    }
    ctx.check(levels >= 2, "attribute 'levels' must be at least 2, got " + std::to_string(levels));
    return {{t, elementwise_shape(ctx, {0, 1, 2, 3, 4})}};
}

}  // namespace

void register_binary_elementwise_ops(OpRegistry& r) {
    for (const char* type : {"Add", "Subtract", "Multiply", "Power", "Maximum", "Minimum", "SquaredDifference",
                             "FloorMod", "Mod"})
        r.add({type, {"opset1"}, 2, 2, infer_arithmetic});
    r.add({"Divide", {"opset1"}, 2, 2, infer_divide});
    for (const char* type : {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"})
        r.add({type, {"opset1"}, 2, 2, infer_comparison});
    for (const char* type : {"LogicalAnd", "LogicalOr", "LogicalXor"}) r.add({type, {"opset1"}, 2, 2, infer_logical});
    r.add({"LogicalNot", {"opset1"}, 1, 1, infer_logical_not});
    for (const char* type : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) r.add({type, {"opset13"}, 2, 2, infer_bitwise});
    r.add({"BitwiseNot", {"opset13"}, 1, 1, infer_bitwise_not});
    r.add({"Select", {"opset1"}, 3, 3, infer_select});
    r.add({"FakeQuantize", {"opset1"}, 5, 5, infer_fake_quantize});
}

}  // namespace mosaic::ops
