// ONNX Runtime's contrib ops as ONNX Runtime GenAI's model builder writes LLMs with them (f32/f16
// on CPU): SimplifiedLayerNormalization (RMSNorm; the builder puts it in the default domain),
// SkipSimplifiedLayerNormalization and GroupQueryAttention (com.microsoft). Each is spelled out in
// Mosaic's ops, as ONNX Runtime's CPU kernels compute them:
// - RMSNorm: x / sqrt(mean(x^2 over the normalized axes) + epsilon) * scale.
// - GroupQueryAttention for a batch whose rows share one length (what a generation of one
//   sequence feeds): query, key and value (packed in one input, or three), rotary embeddings from
//   the cos/sin caches at positions past_length.., the new keys and values appended to the past
//   (present = concat), causal attention of each query head over its key/value head.
#include "readers/onnx/onnx_node_context.hpp"

#include <cmath>

namespace mosaic::onnx_import {

namespace {

Output slice_last(NodeContext& ctx, const Output& x, int64_t from, int64_t to) {
    return ctx.op("Slice", {x, ctx.const_i64({from}), ctx.const_i64({to}), ctx.const_i64({1}), ctx.const_i64({-1})});
}

// x / sqrt(mean(x^2 over axes [axis, rank)) + eps) * scale, in x's type.
Output rms_norm(NodeContext& ctx, const Output& x, const Output& scale, int64_t axis, double eps) {
    const int64_t rank = ctx.rank(x);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) ctx.fail("axis " + std::to_string(axis) + " is outside the input's rank " + std::to_string(rank));
    std::vector<int64_t> axes;
    for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
    const ElementType t = ctx.type(x);
    const Output mean = ctx.op("ReduceMean", {ctx.op("Multiply", {x, x}), ctx.const_i64(axes)}, {{"keep_dims", "true"}});
    const Output rms = ctx.op("Sqrt", {ctx.op("Add", {mean, ctx.scalar_of(t, eps)})});
    return ctx.op("Multiply", {ctx.op("Divide", {x, rms}), scale});
}

Outputs simplified_layer_normalization(NodeContext& ctx) {
    if (ctx.has_output(1)) ctx.unsupported("output 1 (inv_std_var) is not supported");
    return {rms_norm(ctx, ctx.input(0), ctx.input(1), ctx.attr_int("axis", -1), ctx.attr_float("epsilon", 1e-5))};
}

// Outputs: the normalized sum, mean and inv_std_var (which ONNX Runtime leaves unused), the sum.
Outputs skip_simplified_layer_normalization(NodeContext& ctx) {
    if (ctx.has_output(1) || ctx.has_output(2)) ctx.unsupported("outputs 1 and 2 (mean, inv_std_var) are not supported");
    Output sum = ctx.op("Add", {ctx.input(0), ctx.input(1)});
    if (ctx.has_input(3)) sum = ctx.op("Add", {sum, ctx.input(3)});
    return {rms_norm(ctx, sum, ctx.input(2), -1, ctx.attr_float("epsilon", 1e-5)), {}, {}, sum};
}

// [B, S, heads * head_size] as [B, heads, S, head_size].
Output split_heads(NodeContext& ctx, const Output& x, int64_t heads, int64_t head_size) {
    const Output r = ctx.op("Reshape", {x, ctx.const_i64({0, 0, heads, head_size})}, {{"special_zero", "true"}});
    return ctx.op("Transpose", {r, ctx.const_i64({0, 2, 1, 3})});
}

// Rotary embedding of x [B, N, S, H] (rotate-half, non-interleaved) with cos/sin [S, R/2] over its
// first R channels; the rest pass through.
Output rotate(NodeContext& ctx, const Output& x, const Output& cos, const Output& sin, int64_t rotary, int64_t head_size) {
    const int64_t half = rotary / 2;
    const Output x1 = slice_last(ctx, x, 0, half), x2 = slice_last(ctx, x, half, rotary);
    std::vector<Output> parts = {
        ctx.op("Subtract", {ctx.op("Multiply", {x1, cos}), ctx.op("Multiply", {x2, sin})}),
        ctx.op("Add", {ctx.op("Multiply", {x2, cos}), ctx.op("Multiply", {x1, sin})})};
    if (rotary < head_size) parts.push_back(slice_last(ctx, x, rotary, head_size));
    return ctx.op("Concat", parts, {{"axis", "-1"}});
}

Outputs group_query_attention(NodeContext& ctx) {
    const int64_t heads = ctx.attr_int("num_heads"), kv_heads = ctx.attr_int("kv_num_heads");
    if (heads <= 0 || kv_heads <= 0 || heads % kv_heads != 0)
        ctx.fail("num_heads (" + std::to_string(heads) + ") must be a positive multiple of kv_num_heads (" +
                 std::to_string(kv_heads) + ")");
    if (ctx.attr_int("local_window_size", -1) != -1) ctx.unsupported("local_window_size (sliding-window attention) is not supported");
    if (ctx.attr_float("softcap", 0.0) != 0.0) ctx.unsupported("softcap is not supported");
    if (ctx.attr_int("rotary_interleaved", 0) != 0) ctx.unsupported("rotary_interleaved=1 is not supported");
    for (size_t i : {size_t{9}, size_t{10}})
        if (ctx.has_input(i)) ctx.unsupported("input " + std::to_string(i) + " (position_ids / attention_bias) is not supported");
    const bool packed = !ctx.has_input(1);
    const Output query = ctx.input(0);
    const int64_t width = ctx.shape(query).back();
    const int64_t head_size = packed ? width / (heads + 2 * kv_heads) : width / heads;
    if (width < 0 || head_size * (packed ? heads + 2 * kv_heads : heads) != width)
        ctx.fail("the query's last dimension " + std::to_string(width) + " is not " +
                 (packed ? "(num_heads + 2 * kv_num_heads)" : "num_heads") + " times a head size");
    Output q = packed ? slice_last(ctx, query, 0, heads * head_size) : query;
    Output k = packed ? slice_last(ctx, query, heads * head_size, (heads + kv_heads) * head_size) : ctx.input(1);
    Output v = packed ? slice_last(ctx, query, (heads + kv_heads) * head_size, width) : ctx.input(2);
    q = split_heads(ctx, q, heads, head_size);
    k = split_heads(ctx, k, kv_heads, head_size);
    v = split_heads(ctx, v, kv_heads, head_size);

    // The new tokens' first position: the total length less the new tokens (rows share lengths).
    const Output length = ctx.op("Gather", {ctx.shape_of(query), ctx.scalar_i64(1), ctx.scalar_i64(0)});
    const Output total = ctx.op("Reshape", {ctx.convert(ctx.input(6), ElementType::i64), ctx.const_i64({}, Shape{0})},
                                {{"special_zero", "false"}});
    const Output past_length = ctx.op("Subtract", {total, length});
    const Attributes i64_range = {{"output_type", "i64"}};
    const Output positions = ctx.op("Range", {past_length, total, ctx.scalar_i64(1)}, i64_range);
    if (ctx.attr_int("do_rotary", 0) != 0) {
        const Output cos = ctx.op("Gather", {ctx.input(7), positions, ctx.scalar_i64(0)});
        const Output sin = ctx.op("Gather", {ctx.input(8), positions, ctx.scalar_i64(0)});
        const int64_t rotary = 2 * ctx.shape(ctx.input(7)).back();
        if (rotary <= 0 || rotary > head_size) ctx.fail("cos_cache's width " + std::to_string(rotary / 2) + " does not fit the head size");
        q = rotate(ctx, q, cos, sin, rotary, head_size);
        k = rotate(ctx, k, cos, sin, rotary, head_size);
    }
    const Output present_k = ctx.has_input(3) ? ctx.op("Concat", {ctx.input(3), k}, {{"axis", "2"}}) : k;
    const Output present_v = ctx.has_input(4) ? ctx.op("Concat", {ctx.input(4), v}, {{"axis", "2"}}) : v;

    // Query i (at position past_length + i) sees keys 0..past_length + i.
    const Output keys = ctx.op("Gather", {ctx.shape_of(present_k), ctx.scalar_i64(2), ctx.scalar_i64(0)});
    const Output rows = ctx.op("Unsqueeze", {positions, ctx.scalar_i64(1)});
    const Output columns = ctx.op("Range", {ctx.scalar_i64(0), keys, ctx.scalar_i64(1)}, i64_range);
    const Output mask = ctx.op("LessEqual", {columns, rows});

    // Each key/value head serves heads / kv_heads query heads: query [B, KV, G, S, H] against
    // key/value [B, KV, 1, T, H], broadcast over G.
    const int64_t group = heads / kv_heads;
    const Output q5 = ctx.op("Reshape", {q, ctx.const_i64({0, kv_heads, group, -1, head_size})}, {{"special_zero", "true"}});
    const Output k5 = ctx.op("Unsqueeze", {present_k, ctx.scalar_i64(2)});
    const Output v5 = ctx.op("Unsqueeze", {present_v, ctx.scalar_i64(2)});
    double scale = ctx.attr_float("scale", 0.0);
    if (scale == 0.0) scale = 1.0 / std::sqrt(static_cast<double>(head_size));
    const Output attended = ctx.op("ScaledDotProductAttention", {q5, k5, v5, mask, ctx.scalar_of(ctx.type(query), scale)},
                                   {{"causal", "false"}}, "opset13");
    const Output per_head = ctx.op("Reshape", {attended, ctx.const_i64({0, heads, -1, head_size})}, {{"special_zero", "true"}});
    const Output tokens = ctx.op("Transpose", {per_head, ctx.const_i64({0, 2, 1, 3})});
    const Output output = ctx.op("Reshape", {tokens, ctx.const_i64({0, 0, heads * head_size})}, {{"special_zero", "true"}});
    return {output, present_k, present_v};
}

const TranslatorRegistration default_domain({
    {"SimplifiedLayerNormalization", simplified_layer_normalization},
});

const TranslatorRegistration microsoft("com.microsoft", {
    {"SkipSimplifiedLayerNormalization", skip_simplified_layer_normalization},
    {"GroupQueryAttention", group_query_attention},
});

}  // namespace

}  // namespace mosaic::onnx_import
