// Schema of MatMul-1: numpy matmul with optional transposes of the two innermost axes, 1-D
// operands (promoted to a row / column, the added axis removed from the result) and broadcast
// batch axes.
#include "ops/nn_ops.hpp"

#include <algorithm>
#include <utility>

namespace mosaic::ops {

namespace {

// Broadcasts one batch axis, tolerating dynamic dims.
int64_t broadcast_dim(const InferContext& ctx, int64_t a, int64_t b, const Shape& sa, const Shape& sb) {
    if (a == 1) return b;
    if (b == 1) return a;
    if (a < 0) return b;
    if (b < 0) return a;
    ctx.check(a == b, "batch axes of shapes " + to_string(sa) + " and " + to_string(sb) + " cannot be broadcast");
    return a;
}

std::vector<PortInfo> infer_matmul(const InferContext& ctx) {
    nn::check_numeric(ctx, 0, "A");
    nn::check_same_type(ctx, 0, 1);
    nn::check_rank(ctx, 0, "A", 1);
    nn::check_rank(ctx, 1, "B", 1);
    const bool transpose_a = ctx.attrs().get_bool("transpose_a", false);
    const bool transpose_b = ctx.attrs().get_bool("transpose_b", false);

    // Transposes are ignored for 1-D operands, as OpenVINO does.
    Shape a = ctx.input_shape(0), b = ctx.input_shape(1);
    const bool a_vector = a.size() == 1, b_vector = b.size() == 1;
    if (a_vector) a.insert(a.begin(), 1);
    else if (transpose_a) std::swap(a[a.size() - 1], a[a.size() - 2]);
    if (b_vector) b.push_back(1);
    else if (transpose_b) std::swap(b[b.size() - 1], b[b.size() - 2]);

    const int64_t ka = a.back(), kb = b[b.size() - 2];
    ctx.check(ka < 0 || kb < 0 || ka == kb,
              "inner dimensions do not match: A " + to_string(ctx.input_shape(0)) + (transpose_a ? " (transposed)" : "") +
                  " has K=" + std::to_string(ka) + ", B " + to_string(ctx.input_shape(1)) +
                  (transpose_b ? " (transposed)" : "") + " has K=" + std::to_string(kb));

    const size_t batch_rank = std::max(a.size(), b.size()) - 2;
    Shape out;
    for (size_t i = 0; i < batch_rank; ++i) {
        const size_t from_end = batch_rank - i;  // position counted from the batch end
        const int64_t da = from_end <= a.size() - 2 ? a[a.size() - 2 - from_end] : 1;
        const int64_t db = from_end <= b.size() - 2 ? b[b.size() - 2 - from_end] : 1;
        out.push_back(broadcast_dim(ctx, da, db, ctx.input_shape(0), ctx.input_shape(1)));
    }
    if (!a_vector) out.push_back(a[a.size() - 2]);
    if (!b_vector) out.push_back(b.back());
    return {{ctx.input_type(0), out}};
}

}  // namespace

void register_nn_matmul_ops(OpRegistry& r) { r.add({"MatMul", {"opset1"}, 2, 2, infer_matmul}); }

}  // namespace mosaic::ops
