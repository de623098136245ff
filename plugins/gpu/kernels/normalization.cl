// Softmax, LogSoftmax, MVN and the reductions (ops/normalization_ops.cpp). Each gives each row (or
// output) a work group: its work items take every group-size-th element and combine their partial
// results in local memory, halving each step (the group size is a power of two). A GPU needs a row
// spread over many work items: with one per row, LayerNorm's means over 768 channels of 128 tokens
// kept 128 work items busy and took 60% of BERT-base's time on an H200, and its attention's
// Softmax (1536 rows of 128) 12%.

// How partial results combine, for one value and for sixteen: sums, means and both norms add.
#define MOSAIC_DEFINE_REDUCE_COMBINE(name, T)      \
    T name(int op, T a, T b) {                     \
        switch (op) {                              \
            case REDUCE_MAX: return fmax(a, b);    \
            case REDUCE_MIN: return fmin(a, b);    \
            case REDUCE_PROD: return a * b;        \
            default: return a + b;                 \
        }                                          \
    }
MOSAIC_DEFINE_REDUCE_COMBINE(reduce_combine, float)
MOSAIC_DEFINE_REDUCE_COMBINE(reduce_combine16, float16)

// The sixteen lanes of a vector of partial results combined into one.
inline float reduce_lanes16(int op, float16 v) {
    float lanes[16];
    vstore16_private(v, lanes);
    float acc = lanes[0];
    for (int l = 1; l < 16; ++l) acc = reduce_combine(op, acc, lanes[l]);
    return acc;
}

// A reduction's starting value, what an input adds to it (|v| for L1, v * v for L2), and its
// result from the combined value.
inline float reduce_init(int op) {
    return op == REDUCE_MAX ? -INFINITY : (op == REDUCE_MIN ? INFINITY : (op == REDUCE_PROD ? 1.0f : 0.0f));
}
#define REDUCE_TERM(op, v) ((op) == REDUCE_L1 ? fabs(v) : ((op) == REDUCE_L2 ? (v) * (v) : (v)))
inline float reduce_finish(int op, float acc, int count) {
    if (op == REDUCE_MEAN) return acc / (float)count;
    return op == REDUCE_L2 ? sqrt(acc) : acc;
}

// Every work item of the group passes its partial result and gets the group's (all must call it).
float group_combine(__local float* partial, float v, int op) {
    const int lane = get_local_id(0), lanes = get_local_size(0);
    partial[lane] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = lanes / 2; stride > 0; stride /= 2) {
        if (lane < stride) partial[lane] = reduce_combine(op, partial[lane], partial[lane + stride]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float all = partial[0];
    barrier(CLK_LOCAL_MEM_FENCE);  // every lane has read it before `partial` is written again
    return all;
}

// A row is `length` elements `inner` apart.
__kernel void softmax_f32(__global const real* x, __global real* y, int length, int inner, int log_softmax,
                          __local float* partial) {
    const int r = get_group_id(0), lane = get_local_id(0), lanes = get_local_size(0);
    const int base = (r / inner) * length * inner + r % inner;
    float m = -INFINITY;
    for (int k = lane; k < length; k += lanes) m = fmax(m, LOAD(x, base + k * inner));
    m = group_combine(partial, m, REDUCE_MAX);
    float sum = 0.0f;
    for (int k = lane; k < length; k += lanes) sum += exp(LOAD(x, base + k * inner) - m);
    sum = group_combine(partial, sum, REDUCE_SUM);
    if (log_softmax) {
        const float l = log(sum);
        for (int k = lane; k < length; k += lanes) STORE(y, base + k * inner, LOAD(x, base + k * inner) - m - l);
    } else {
        const float inv = 1.0f / sum;
        for (int k = lane; k < length; k += lanes) STORE(y, base + k * inner, exp(LOAD(x, base + k * inner) - m) * inv);
    }
}

// Softmax over contiguous rows (the last axis) on OpenCL CPU devices: one work item a row, sixteen
// elements at a time, each exp taken once (stored, then scaled). softmax_f32's work groups with
// barriers and one element per step took 1.8 ms for BERT-base's attention (1536 rows of 128) on 2
// cores, 8% of the model.
__kernel void softmax_rows16_f32(__global const real* x, __global real* y, int length, int log_softmax) {
    const int r = get_global_id(0);
    __global const real* xr = x + r * length;
    __global real* yr = y + r * length;
    const int whole = length / 16 * 16;
    float16 m16 = (float16)(-INFINITY);
    for (int k = 0; k < whole; k += 16) m16 = fmax(m16, LOAD16(xr + k));
    float m = reduce_lanes16(REDUCE_MAX, m16);
    for (int k = whole; k < length; ++k) m = fmax(m, LOAD(xr, k));
    float16 sum16 = (float16)(0.0f);
    float sum = 0.0f;
    if (log_softmax) {
        for (int k = 0; k < whole; k += 16) sum16 += exp(LOAD16(xr + k) - m);
        for (int k = whole; k < length; ++k) sum += exp(LOAD(xr, k) - m);
        const float shift = m + log(sum + reduce_lanes16(REDUCE_SUM, sum16));
        for (int k = 0; k < whole; k += 16) STORE16(LOAD16(xr + k) - shift, yr + k);
        for (int k = whole; k < length; ++k) STORE(yr, k, LOAD(xr, k) - shift);
        return;
    }
    // The sum from the exponentials as computed, not as stored (rounded to f16 under MOSAIC_HALF).
    for (int k = 0; k < whole; k += 16) {
        const float16 e = exp(LOAD16(xr + k) - m);
        STORE16(e, yr + k);
        sum16 += e;
    }
    for (int k = whole; k < length; ++k) {
        const float e = exp(LOAD(xr, k) - m);
        STORE(yr, k, e);
        sum += e;
    }
    const float inv = 1.0f / (sum + reduce_lanes16(REDUCE_SUM, sum16));
    for (int k = 0; k < whole; k += 16) STORE16(LOAD16(yr + k) * inv, yr + k);
    for (int k = whole; k < length; ++k) STORE(yr, k, LOAD(yr, k) * inv);
}

// MVN over the `length` trailing elements of each row; eps inside or outside the square root.
// With `scale` and `shift` (has_scale, has_shift), a layer normalisation: each normalised value
// times scale[k] plus shift[k], k its place in the row (normalization_ops.cpp lays them out so).
inline float mvn_inverse_deviation(float var, float eps, int eps_inside_sqrt) {
    return eps_inside_sqrt ? 1.0f / sqrt(var + eps) : 1.0f / (sqrt(var) + eps);
}

// Element k of row r takes scale and shift element ((r % parameter_rows) * length + k) / repeat: a
// layer normalisation's laid out over a row (1, 1); a group normalisation's per channel (G rows
// of a batch, each channel repeated over its spatial positions).
inline int parameter_index(int r, int k, int length, int parameter_rows, int repeat) {
    return ((r % parameter_rows) * length + k) / repeat;
}

__kernel void mvn_f32(__global const real* x, __global real* y, int length, int normalize_variance, float eps,
                      int eps_inside_sqrt, __global const real* scale, int has_scale, __global const real* shift,
                      int has_shift, int parameter_rows, int repeat, __local float* partial) {
    const int r = get_group_id(0), lane = get_local_id(0), lanes = get_local_size(0);
    __global const real* xp = x + r * length;
    __global real* yp = y + r * length;
    float mean = 0.0f;
    for (int k = lane; k < length; k += lanes) mean += LOAD(xp, k);
    mean = group_combine(partial, mean, REDUCE_SUM) / (float)length;
    float inv = 1.0f;
    if (normalize_variance) {
        float var = 0.0f;
        for (int k = lane; k < length; k += lanes) var += (LOAD(xp, k) - mean) * (LOAD(xp, k) - mean);
        var = group_combine(partial, var, REDUCE_SUM) / (float)length;
        inv = mvn_inverse_deviation(var, eps, eps_inside_sqrt);
    }
    for (int k = lane; k < length; k += lanes) {
        const int p = parameter_index(r, k, length, parameter_rows, repeat);
        STORE(yp, k, (LOAD(xp, k) - mean) * inv * (has_scale ? LOAD(scale, p) : 1.0f) + (has_shift ? LOAD(shift, p) : 0.0f));
    }
}

// mvn_f32 on OpenCL CPU devices: one work item a row, sixteen elements at a time (mvn_f32's work
// groups with barriers, as softmax_f32's, cost more than the arithmetic there).
__kernel void mvn_rows16_f32(__global const real* x, __global real* y, int length, int normalize_variance, float eps,
                             int eps_inside_sqrt, __global const real* scale, int has_scale, __global const real* shift,
                             int has_shift, int parameter_rows, int repeat) {
    const int r = get_global_id(0), whole = length / 16 * 16;
    __global const real* xp = x + r * length;
    __global real* yp = y + r * length;
    float16 sum16 = (float16)(0.0f);
    float sum = 0.0f;
    for (int k = 0; k < whole; k += 16) sum16 += LOAD16(xp + k);
    for (int k = whole; k < length; ++k) sum += LOAD(xp, k);
    const float mean = (sum + reduce_lanes16(REDUCE_SUM, sum16)) / (float)length;
    float inv = 1.0f;
    if (normalize_variance) {
        float16 var16 = (float16)(0.0f);
        float var = 0.0f;
        for (int k = 0; k < whole; k += 16) {
            const float16 d = LOAD16(xp + k) - mean;
            var16 = fma(d, d, var16);
        }
        for (int k = whole; k < length; ++k) var += (LOAD(xp, k) - mean) * (LOAD(xp, k) - mean);
        inv = mvn_inverse_deviation((var + reduce_lanes16(REDUCE_SUM, var16)) / (float)length, eps, eps_inside_sqrt);
    }
    const int vectors = repeat == 1 ? whole : 0;  // per-channel parameters (repeat > 1) are read one by one
    for (int k = 0; k < vectors; k += 16) {
        float16 v = (LOAD16(xp + k) - mean) * inv;
        if (has_scale) v *= LOAD16(scale + k);
        if (has_shift) v += LOAD16(shift + k);
        STORE16(v, yp + k);
    }
    for (int k = vectors; k < length; ++k) {
        const int p = parameter_index(r, k, length, parameter_rows, repeat);
        STORE(yp, k, (LOAD(xp, k) - mean) * inv * (has_scale ? LOAD(scale, p) : 1.0f) + (has_shift ? LOAD(shift, p) : 0.0f));
    }
}

// `out` walks the output (kept dims) with the input strides of the kept axes; `red` walks the
// reduced axes.
__kernel void reduce_f32(__global const real* x, __global real* y, Walk out, Walk red, int count, int op,
                         __local float* partial) {
    const int i = get_group_id(0), lane = get_local_id(0), lanes = get_local_size(0);
    const int base = walk_offset(&out, i, out.in_strides);
    float acc = reduce_init(op);
    for (int k = lane; k < count; k += lanes) {
        const float v = LOAD(x, base + walk_offset(&red, k, red.in_strides));
        acc = reduce_combine(op, acc, REDUCE_TERM(op, v));
    }
    acc = group_combine(partial, acc, op);
    if (lane == 0) STORE(y, i, reduce_finish(op, acc, count));
}

// On OpenCL CPU devices, where the reduced axes are the input's trailing ones (a global pooling,
// as in EfficientNet's squeeze-and-excitation blocks): one work item an output, its `count`
// inputs one contiguous run taken sixteen at a time. reduce_f32's work groups of 4 with barriers
// and an index walk per element took a fifth of EfficientNet-B0's time on 2 cores.
__kernel void reduce_trailing16_f32(__global const real* x, __global real* y, int count, int op) {
    const int i = get_global_id(0);
    __global const real* xp = x + i * count;
    float16 acc16 = (float16)(reduce_init(op));
    int k = 0;
    for (; k + 16 <= count; k += 16) {
        const float16 v = LOAD16(xp + k);
        acc16 = reduce_combine16(op, acc16, REDUCE_TERM(op, v));
    }
    float acc = reduce_lanes16(op, acc16);
    for (; k < count; ++k) acc = reduce_combine(op, acc, REDUCE_TERM(op, LOAD(xp, k)));
    STORE(y, i, reduce_finish(op, acc, count));
}
