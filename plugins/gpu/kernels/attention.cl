// ScaledDotProductAttention-13 (ops/attention_ops.cpp): one work item a query row, the keys in one
// pass with a running maximum, so the [L, S] scores are never stored (an online softmax: when a
// score beats the maximum, the sum and the weighted values so far are rescaled to it). A masked
// key contributes nothing; a row with every key masked divides 0 by 0 and comes out NaN, as the
// specification's pseudo-code and the reference kernel give. Computed in float; q, k, v and a
// float mask are `real` (f16 storage under the f16 hint).
__kernel void sdpa(__global const real* q, __global const real* k, __global const real* v,
                   __global const uchar* mask, __global real* out, AttentionArgs a) {
    const int row = get_global_id(0);
    const int l = row % a.queries;
    int batch = row / a.queries, qo = 0, ko = 0, vo = 0, mo = 0;
    for (int d = a.batch_rank - 1; d >= 0; --d) {
        const int i = batch % a.batch_dims[d];
        batch /= a.batch_dims[d];
        qo += i * a.q_strides[d];
        ko += i * a.k_strides[d];
        vo += i * a.v_strides[d];
        mo += i * a.mask_strides[d];
    }
    qo += l * a.depth;
    mo += l * a.mask_row_stride;
    float acc[ATTENTION_MAX_VALUE];
    for (int e = 0; e < a.value_depth; ++e) acc[e] = 0.0f;
    float best = -INFINITY, sum = 0.0f;
    for (int s = 0; s < a.keys; ++s) {
        float bias = 0.0f;
        if (a.mask == ATTENTION_CAUSAL && s > l) continue;
        if (a.mask == ATTENTION_BOOLEAN_MASK && mask[mo + s * a.mask_col_stride] == 0) continue;
        if (a.mask == ATTENTION_ADDITIVE_MASK) bias = LOAD((__global const real*)mask, mo + s * a.mask_col_stride);
        float dot = 0.0f;
        for (int e = 0; e < a.depth; ++e) dot += LOAD(q, qo + e) * LOAD(k, ko + s * a.depth + e);
        const float score = dot * a.scale + bias;
        if (score == -INFINITY) continue;  // an additive mask's -inf
        if (score > best) {
            const float shrink = exp(best - score);
            sum *= shrink;
            for (int e = 0; e < a.value_depth; ++e) acc[e] *= shrink;
            best = score;
        }
        const float p = exp(score - best);
        sum += p;
        for (int e = 0; e < a.value_depth; ++e) acc[e] += p * LOAD(v, vo + s * a.value_depth + e);
    }
    for (int e = 0; e < a.value_depth; ++e) STORE(out, row * a.value_depth + e, acc[e] / sum);
}
