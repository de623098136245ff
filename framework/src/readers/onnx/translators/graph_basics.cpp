// Translators of ONNX ops that only name or hold tensors: Constant, Identity, Dropout (inference
// mode, and is_test=1 before opset 7), Constant's attribute forms.
#include "readers/onnx/onnx_node_context.hpp"
#include "readers/onnx/onnx_tensor.hpp"

namespace mosaic::onnx_import {

namespace {

Outputs constant(NodeContext& ctx) {
    if (const ::onnx::TensorProto* t = ctx.attr_tensor("value")) {
        TensorData data = tensor_data(*t, ctx.base_dir(), ctx.where() + ", attribute 'value'");
        return {ctx.constant(data.type, data.shape, data.data)};
    }
    if (ctx.has_attr("value_float")) return {ctx.const_of(ElementType::f32, {ctx.attr_float("value_float", 0)}, {})};
    if (ctx.has_attr("value_floats")) {
        std::vector<double> v = ctx.attr_floats("value_floats");
        return {ctx.const_of(ElementType::f32, v, {static_cast<int64_t>(v.size())})};
    }
    if (ctx.has_attr("value_int")) return {ctx.scalar_i64(ctx.attr_int("value_int"))};
    if (ctx.has_attr("value_ints")) return {ctx.const_i64(ctx.attr_ints("value_ints"))};
    if (ctx.has_attr("sparse_value")) ctx.unsupported("sparse constants are not supported");
    if (ctx.has_attr("value_string") || ctx.has_attr("value_strings")) ctx.unsupported("string constants are not supported");
    ctx.fail("has no value attribute");
}

Outputs identity(NodeContext& ctx) { return {ctx.input(0)}; }

// Whether the node asks for training mode: is_test=0 (the default) before opset 7, the
// training_mode input from opset 12; opsets 7 to 11 define inference only.
bool dropout_trains(NodeContext& ctx) {
    if (ctx.opset() < 7) return ctx.attr_int("is_test", 0) == 0;
    return ctx.opset() >= 12 && ctx.has_input(2) && ctx.const_ints(2, "training_mode").at(0) != 0;
}

// The drop probability: an attribute before opset 12, then an optional input (default 0.5 in both).
double dropout_ratio(NodeContext& ctx) {
    if (ctx.opset() < 12) return ctx.attr_float("ratio", 0.5);
    return ctx.has_input(1) ? ctx.const_floats(1, "ratio").at(0) : 0.5;
}

// Dropout at inference is the identity; its optional mask output is all true. Training mode drops
// random elements, which no test can compare, so it is refused unless the ratio is 0. Before opset
// 7 the mask is "not filled" in test mode, so it is not produced then.
Outputs dropout(NodeContext& ctx) {
    Output x = ctx.input(0);
    const bool training = dropout_trains(ctx);
    if (training && dropout_ratio(ctx) != 0.0) {
        if (ctx.opset() < 7)
            ctx.unsupported("is_test=0 (the default before opset 7) asks for training mode (random dropout), which "
                            "is not supported; Mosaic runs inference: set is_test=1 on the node");
        ctx.unsupported("training mode (random dropout) is not supported; Mosaic runs inference");
    }
    Outputs outs{x};
    if (ctx.has_output(1) && (training || ctx.opset() >= 7)) {
        Output t = ctx.scalar_of(ElementType::boolean, 1);
        outs.push_back(ctx.op("Broadcast", {t, ctx.shape_of(x)}, {{"mode", "numpy"}}));
    }
    return outs;
}

const TranslatorRegistration registration({
    {"Constant", constant},
    {"Identity", identity},
    {"Dropout", dropout},
});

}  // namespace

}  // namespace mosaic::onnx_import
