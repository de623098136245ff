// Translators of ONNX ops that only name or hold tensors: Constant, Identity, Dropout (inference
// mode), Constant's attribute forms.
#include "onnx/onnx_node_context.hpp"
#include "onnx/onnx_tensor.hpp"

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

// Dropout at inference is the identity; its optional mask output is all true. Training mode drops
// random elements, which no test can compare, so it is refused.
Outputs dropout(NodeContext& ctx) {
    Output x = ctx.input(0);
    const bool training = ctx.opset() >= 12 && ctx.has_input(2) && ctx.const_ints(2, "training_mode").at(0) != 0;
    const bool drops = !ctx.has_input(1) || ctx.const_floats(1, "ratio").at(0) != 0.0;  // default ratio 0.5
    if (training && drops) ctx.unsupported("training mode (random dropout) is not supported; Mosaic runs inference");
    Outputs outs{x};
    if (ctx.has_output(1)) {
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
