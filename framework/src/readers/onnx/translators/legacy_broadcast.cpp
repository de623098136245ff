// Legacy broadcasting (ONNX opsets 1 to 6) turned into numpy broadcasting: see legacy_broadcast.hpp.
#include "readers/onnx/translators/legacy_broadcast.hpp"

namespace mosaic::onnx_import {

namespace {

// Whether every pair of dims known at read time agrees, with `b`'s dim 1 stretching.
bool dims_fit(const Shape& a, const Shape& b, size_t offset) {
    for (size_t i = 0; i < b.size(); ++i) {
        const int64_t da = a[offset + i], db = b[i];
        if (da >= 0 && db >= 0 && db != da && db != 1) return false;
    }
    return true;
}

// A tensor of one element broadcasts anywhere, whatever its rank (up to A's).
bool single_element(const Shape& s) { return is_static(s) && shape_size(s) == 1; }

}  // namespace

Output align_at_axis(NodeContext& ctx, const Output& a, const Output& b, int64_t axis, const std::string& what) {
    const Shape& as = ctx.shape(a);
    const Shape& bs = ctx.shape(b);
    const auto ra = static_cast<int64_t>(as.size()), rb = static_cast<int64_t>(bs.size());
    if (single_element(bs) && rb <= ra) return b;
    if (axis < 0 || axis + rb > ra || !dims_fit(as, bs, static_cast<size_t>(axis)))
        ctx.fail(what + " of shape " + to_string(bs) + " cannot be broadcast to shape " + to_string(as) +
                 " from axis " + std::to_string(axis) + ": its dims must equal (or be 1 against) the dims of " +
                 to_string(as) + " starting there");
    const int64_t trailing = ra - axis - rb;
    if (trailing == 0) return b;
    return ctx.op("Unsqueeze", {b, ctx.const_i64(range_from(rb, rb + trailing))});
}

void require_same_shape(NodeContext& ctx, const Output& a, const Output& b, const std::string& names,
                        const std::string& rule) {
    const Shape& as = ctx.shape(a);
    const Shape& bs = ctx.shape(b);
    bool same = as.size() == bs.size();
    for (size_t i = 0; same && i < as.size(); ++i) same = as[i] < 0 || bs[i] < 0 || as[i] == bs[i];
    if (!same) ctx.fail(names + " have shapes " + to_string(as) + " and " + to_string(bs) + ", which " + rule);
}

Output broadcast_operand(NodeContext& ctx) {
    const Output a = ctx.input(0), b = ctx.input(1);
    if (ctx.opset() >= 7) {
        // An axis would change the meaning that numpy broadcasting gives the node; refuse rather than guess.
        if (ctx.has_attr("axis"))
            ctx.fail("has attribute 'axis', which only the legacy broadcasting of opsets before 7 defines, but the "
                     "model imports opset " + std::to_string(ctx.opset()) + "; remove it or fix the model's opset");
        return b;
    }
    if (ctx.attr_int("broadcast", 0) == 0) {
        require_same_shape(ctx, a, b, "inputs A and B",
                           "must be equal without broadcast=1 (opsets before 7); set broadcast=1 to broadcast B "
                           "over A");
        return b;
    }
    return align_at_axis(ctx, a, b, ctx.attr_int("axis", ctx.rank(a) - ctx.rank(b)), "input B");
}

}  // namespace mosaic::onnx_import
