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

}  // namespace

void register_graph_ops(OpRegistry& r) {
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
