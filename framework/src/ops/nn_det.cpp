// Schema of Det: the determinant of each square matrix in the last two axes of a floating-point
// tensor. OpenVINO has no such op; Mosaic adds it, as version "mosaic1", for ONNX's Det, whose
// semantics it takes: input [*, M, M], output [*] of the input's type.
#include "ops/nn_ops.hpp"

namespace mosaic::ops {

namespace {

std::vector<PortInfo> infer_det(const InferContext& ctx) {
    nn::check_floating(ctx, 0, "data");
    nn::check_rank(ctx, 0, "data", 2);
    Shape shape = ctx.input_shape(0);
    const int64_t rows = shape[shape.size() - 2], cols = shape[shape.size() - 1];
    ctx.check(rows == kDynamicDim || cols == kDynamicDim || rows == cols,
              "data must hold square matrices in its last two axes, got shape " + to_string(shape));
    shape.resize(shape.size() - 2);
    return {{ctx.input_type(0), shape}};
}

}  // namespace

void register_nn_det_ops(OpRegistry& r) { r.add({"Det", {"mosaic1"}, 1, 1, infer_det}); }

}  // namespace mosaic::ops
