// The broadcasting rules of ONNX before numpy broadcasting (opset 7 for binary ops, 8 for Sum, Max,
// Min and Mean), shared by the translators of elementwise ops, Gemm, PRelu and BatchNormalization.
//
// Before opset 7 a binary op broadcasts only when asked (broadcast=1): its second input B is
// stretched over the first input A, B's dims lining up with A's from axis `axis` on (default: A's
// last dims). Numpy broadcasting lines B up with A's last dims, so B is given trailing 1-axes
// when `axis` leaves dims of A after it; then a numpy-broadcasting Mosaic op computes the old result.
#pragma once

#include "readers/onnx/onnx_node_context.hpp"

#include <string>

namespace mosaic::onnx_import {

// `b` laid over `a` with its first axis at a's axis `axis`: each of b's dims must be a's dim there
// or 1, and b must end within a. Returns b with trailing 1-axes added, so that numpy broadcasting
// aligns it there; fails naming `what` (e.g. "input B") and both shapes otherwise.
Output align_at_axis(NodeContext& ctx, const Output& a, const Output& b, int64_t axis, const std::string& what);

// Fails unless `a` and `b` can have the same shape (dims unknown at read time match anything);
// `rule` says which rule asks for it and what to do instead.
void require_same_shape(NodeContext& ctx, const Output& a, const Output& b, const std::string& names,
                        const std::string& rule);

// Input 1 of a binary elementwise op (Add, Sub, Mul, Div, Pow, And, Or, Xor, Equal, Greater, Less),
// ready for numpy broadcasting against input 0 with the node's opset's meaning: from opset 7 input
// 1 itself; before, with broadcast=1, input 1 aligned at `axis` (align_at_axis), and without it
// input 1 of input 0's shape exactly.
Output broadcast_operand(NodeContext& ctx);

}  // namespace mosaic::onnx_import
