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
//
// What a ReadValue gives is the variable's declared type and shape: a dimension declared dynamic
// stays dynamic although the initializer's is known, since the variable may grow (a KV cache
// starts empty, [?,2,0,16], and gains a row per token, [?,2,?,16]). Without a declared shape
// (opset3), the initializer's.
std::vector<PortInfo> infer_read_value(const InferContext& ctx) {
    ctx.check(!ctx.attrs().get_string("variable_id", "").empty(), "variable_id is missing; name the variable");
    const std::string* type = ctx.attrs().find("variable_type");
    const std::string* shape = ctx.attrs().find("variable_shape");
    if (ctx.input_count() == 1 && !shape) return {ctx.input(0)};
    ctx.check(shape && (type || ctx.input_count() == 1), "a ReadValue without an input needs variable_type and variable_shape");
    const ElementType t = type ? element_type_from_string(*type) : ctx.input_type(0);
    ctx.check(t != ElementType::undefined, "unknown variable_type '" + (type ? *type : std::string()) + "'");
    const auto dims = PartialShape::parse(*shape);
    ctx.check(dims.has_value(), "variable_shape '" + *shape + "' is not a shape");
    ctx.check(ctx.input_count() == 1 || dims->is_static(),
              "variable_shape '" + *shape + "' is dynamic; a ReadValue without an initializer needs a static shape");
    const Shape declared = dims->to_shape();
    if (ctx.input_count() == 1) {
        const Shape& init = ctx.input_shape(0);
        ctx.check(ctx.input_type(0) == t, std::string("the initializer is ") + to_string(ctx.input_type(0)) +
                                              " but variable_type is " + to_string(t));
        bool fits = init.size() == declared.size();
        for (size_t d = 0; fits && d < init.size(); ++d) fits = declared[d] < 0 || init[d] < 0 || declared[d] == init[d];
        ctx.check(fits, "the initializer's shape " + to_string(init) + " does not fit variable_shape '" + *shape + "'");
    }
    return {{t, declared}};
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
