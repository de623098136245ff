// Translator of ONNX NonMaxSuppression, to Mosaic's NonMaxSuppression-mosaic1 (ONNX's semantics,
// ops/nn_detection.cpp). Its output has as many rows as boxes survive: constant boxes and scores
// make it a constant once folded, computed ones (a detector's head) make the framework run the model
// in stages around it.
#include "readers/onnx/onnx_node_context.hpp"

namespace mosaic::onnx_import {

namespace {

Outputs non_max_suppression(NodeContext& ctx) {
    std::vector<Output> inputs{ctx.input(0), ctx.input(1)};
    // An optional input left out before one given takes ONNX's default: no box per class, IoU 0.
    size_t last = 1;
    for (size_t i = 2; i < 5; ++i)
        if (ctx.has_input(i)) last = i;
    for (size_t i = 2; i <= last; ++i)
        inputs.push_back(ctx.has_input(i) ? ctx.input(i)
                         : i == 2         ? ctx.scalar_i64(0)
                                          : ctx.scalar_of(ElementType::f32, 0.0));
    Attributes attrs;
    attrs.set("center_point_box", std::to_string(ctx.attr_int("center_point_box", 0)));
    return {ctx.op("NonMaxSuppression", inputs, attrs, "mosaic1")};
}

const TranslatorRegistration registration({{"NonMaxSuppression", non_max_suppression}});

}  // namespace

}  // namespace mosaic::onnx_import
