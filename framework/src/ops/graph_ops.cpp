// Schemas of the graph's boundary ops. Their outputs come from attributes rather than inputs.
#include "ops/op_schema.hpp"

namespace mosaic::ops {

namespace {

ElementType element_type_attr(const InferContext& ctx) {
    const std::string& name = ctx.attrs().get_string("element_type");
    ElementType t = element_type_from_string(name);
    ctx.check(t != ElementType::undefined, "unknown element_type '" + name + "'");
    return t;
}

// IR writes shapes as "1,3,224,224" (v10) or with "?" / "-1" for dynamic dims (v11).
Shape shape_attr(const InferContext& ctx) {
    Shape shape;
    const std::string& text = ctx.attrs().get_string("shape");
    size_t start = 0;
    while (start < text.size()) {
        size_t comma = text.find(',', start);
        std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item == "?" || item == "-1") {
            shape.push_back(kDynamicDim);
        } else {
            size_t used = 0;
            long long d = -1;
            try { d = std::stoll(item, &used); } catch (const std::exception&) { used = 0; }
            ctx.check(used == item.size() && d >= 0, "shape '" + text + "' has an invalid dimension '" + item + "'");
            shape.push_back(d);
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return shape;
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
