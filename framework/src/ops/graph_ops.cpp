// Schemas of the graph's boundary ops. Their outputs come from attributes rather than inputs.
#include "ops/op_schema.hpp"

#include <mosaic/partial_shape.hpp>

namespace mosaic::ops {

namespace {

ElementType element_type_attr(const InferContext& ctx) {
    const std::string& name = ctx.attrs().get_string("element_type");
    ElementType t = element_type_from_string(name);
    ctx.check(t != ElementType::undefined, "unknown element_type '" + name + "'");
    return t;
}

// IR writes shapes as "1,3,224,224" (v10) or with "?" / "-1" / ranges such as "1..8" for dynamic
// dims (v11). A Parameter keeps its ranges in the attribute (the compiled model checks inputs against
// them); the graph sees -1.
Shape shape_attr(const InferContext& ctx) {
    const std::string& text = ctx.attrs().get_string("shape");
    std::string bad;
    const auto shape = PartialShape::parse(text, &bad);
    ctx.check(shape.has_value(), "shape '" + text + "' has an invalid dimension '" + bad + "'");
    return shape->to_shape();
}

// ReadValue and Assign: a variable's state, read at the start of an inference and written at its
// end. The framework turns them into inputs and outputs of the graph it compiles (state.cpp), so no
// device sees them; their schemas give the model its types and shapes.
std::vector<PortInfo> infer_read_value(const InferContext& ctx) {
    ctx.check(!ctx.attrs().get_string("variable_id", "").empty(), "variable_id is missing; name the variable");
    if (ctx.input_count() == 1) return {ctx.input(0)};
    // opset6 without an initializer: the variable's declared type and shape (zeros at first).
    const std::string* type = ctx.attrs().find("variable_type");
    const std::string* shape = ctx.attrs().find("variable_shape");
    ctx.check(type && shape, "a ReadValue without an input needs variable_type and variable_shape");
    const ElementType t = element_type_from_string(*type);
    ctx.check(t != ElementType::undefined, "unknown variable_type '" + *type + "'");
    const auto dims = PartialShape::parse(*shape);
    ctx.check(dims && dims->is_static(), "variable_shape '" + *shape + "' must be a static shape");
    return {{t, dims->to_shape()}};
}

std::vector<PortInfo> infer_assign(const InferContext& ctx) {
    ctx.check(!ctx.attrs().get_string("variable_id", "").empty(), "variable_id is missing; name the variable");
    return {ctx.input(0)};
}

}  // namespace

void register_graph_ops(OpRegistry& r) {
    r.add({"ReadValue", {"opset3", "opset6"}, 0, 1, infer_read_value, false});
    r.add({"Assign", {"opset3", "opset6"}, 1, 1, infer_assign, false});
    r.add({"Parameter", {"opset1"}, 0, 0,
           [](const InferContext& ctx) { return std::vector<PortInfo>{{element_type_attr(ctx), shape_attr(ctx)}}; },
           false});
    r.add({"Constant", {"opset1"}, 0, 0,
           [](const InferContext& ctx) { return std::vector<PortInfo>{{element_type_attr(ctx), shape_attr(ctx)}}; },
           false});
    r.add({"Result", {"opset1"}, 1, 1,
           [](const InferContext& ctx) { return std::vector<PortInfo>{ctx.input(0)}; }, false});
}

}  // namespace mosaic::ops
