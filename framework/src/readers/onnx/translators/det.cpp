// Translator of ONNX's Det onto Mosaic's Det (version "mosaic1"; OpenVINO has no determinant op).
#include "readers/onnx/onnx_node_context.hpp"

namespace mosaic::onnx_import {

namespace {

Outputs det(NodeContext& ctx) { return {ctx.op("Det", {ctx.input(0)})}; }

const TranslatorRegistration registration({{"Det", det}});

}  // namespace

}  // namespace mosaic::onnx_import
