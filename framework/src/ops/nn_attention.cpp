// Schema of ScaledDotProductAttention-13: softmax(query x key^T * scale + mask) x value over the two
// innermost axes, the leading (batch) axes of every input broadcast numpy-style. Inputs: query
// [N..., L, E], key [N..., S, E], value [N..., S, Ev], optional attention_mask (boolean or query's
// type; a scalar, or rank >= 2 with its last two axes L or 1 and S or 1), optional scale (a scalar
// or one element). With causal=true the mask input is ignored entirely, as OpenVINO does, so its
// type and shape are not checked. The output is [N..., L, Ev] of query's type.
#include "ops/elementwise_ops.hpp"
#include "ops/nn_ops.hpp"

namespace mosaic::ops {

namespace {

constexpr size_t kQuery = 0, kKey = 1, kValue = 2, kMask = 3, kScale = 4;

Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

bool dims_match(int64_t a, int64_t b) { return a == kDynamicDim || b == kDynamicDim || a == b; }

// numpy_broadcast's own message shows only the batch axes; this one names the input and its full shape.
Shape merge_batch(const InferContext& ctx, const Shape& batch, size_t input, const char* what) {
    try {
        return numpy_broadcast(ctx, batch, batch_of(ctx.input_shape(input)));
    } catch (const InferError&) {
        ctx.fail(std::string("the batch axes of ") + what + " (input " + std::to_string(input) + ") " +
                 to_string(ctx.input_shape(input)) + " do not broadcast with those of query " +
                 to_string(ctx.input_shape(kQuery)));
    }
}

void check_mask(const InferContext& ctx, Shape& batch, int64_t l, int64_t s) {
    const ElementType t = ctx.input_type(kMask);
    ctx.check(t == ElementType::boolean || t == ctx.input_type(kQuery),
              std::string("attention_mask (input 3) must be boolean or have query's type ") +
                  to_string(ctx.input_type(kQuery)) + ", got " + to_string(t));
    const Shape& mask = ctx.input_shape(kMask);
    if (mask.empty()) return;
    // A rank-1 mask would broadcast along S only; OpenVINO rejects it rather than guess the intent.
    ctx.check(mask.size() >= 2, "attention_mask (input 3) must be a scalar or have rank at least 2, got shape " +
                                    to_string(mask));
    const int64_t ml = mask[mask.size() - 2], ms = mask.back();
    ctx.check((ml == 1 || dims_match(ml, l)) && (ms == 1 || dims_match(ms, s)),
              "attention_mask (input 3) " + to_string(mask) + " does not broadcast to [..., L=" + std::to_string(l) +
                  ", S=" + std::to_string(s) + "] given by query " + to_string(ctx.input_shape(kQuery)) +
                  " and key " + to_string(ctx.input_shape(kKey)));
    batch = merge_batch(ctx, batch, kMask, "attention_mask");
}

std::vector<PortInfo> infer_sdpa(const InferContext& ctx) {
    const bool causal = ctx.attrs().get_bool("causal");
    nn::check_floating(ctx, kQuery, "query");
    for (size_t i : {kKey, kValue}) nn::check_same_type(ctx, kQuery, i);
    nn::check_rank(ctx, kQuery, "query", 3);
    nn::check_rank(ctx, kKey, "key", 3);
    nn::check_rank(ctx, kValue, "value", 3);

    const Shape& q = ctx.input_shape(kQuery);
    const Shape& k = ctx.input_shape(kKey);
    const Shape& v = ctx.input_shape(kValue);
    const int64_t l = q[q.size() - 2], e = q.back(), s = k[k.size() - 2];
    ctx.check(dims_match(e, k.back()), "query " + to_string(q) + " and key " + to_string(k) +
                                           " must have the same last axis E, got " + std::to_string(e) + " and " +
                                           std::to_string(k.back()));
    ctx.check(dims_match(s, v[v.size() - 2]), "key " + to_string(k) + " and value " + to_string(v) +
                                                  " must have the same sequence axis S (second to last), got " +
                                                  std::to_string(s) + " and " + std::to_string(v[v.size() - 2]));
    Shape batch = merge_batch(ctx, batch_of(q), kKey, "key");
    batch = merge_batch(ctx, batch, kValue, "value");
    if (ctx.input_count() > kMask && !causal) check_mask(ctx, batch, l, s == kDynamicDim ? v[v.size() - 2] : s);

    if (ctx.input_count() > kScale) {
        nn::check_same_type(ctx, kQuery, kScale);
        const Shape& scale = ctx.input_shape(kScale);
        ctx.check(scale.empty() || (scale.size() == 1 && dims_match(scale[0], 1)),
                  "scale (input 4) must be a scalar or hold one element, got shape " + to_string(scale));
    }

    batch.push_back(l);
    batch.push_back(v.back());
    return {{ctx.input_type(kQuery), batch}};
}

}  // namespace

void register_nn_attention_ops(OpRegistry& r) {
    r.add({"ScaledDotProductAttention", {"opset13"}, 3, 5, infer_sdpa});
}

}  // namespace mosaic::ops
