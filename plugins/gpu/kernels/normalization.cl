// Softmax and MVN: one work item per row, a row being `length` elements `stride` apart.

__kernel void softmax_f32(__global const float* x, __global float* y, int length, int inner, int log_softmax) {
    const int r = get_global_id(0);
    const int base = (r / inner) * length * inner + r % inner;
    float m = -INFINITY;
    for (int k = 0; k < length; ++k) m = fmax(m, x[base + k * inner]);
    float sum = 0.0f;
    for (int k = 0; k < length; ++k) sum += exp(x[base + k * inner] - m);
    if (log_softmax) {
        const float l = log(sum);
        for (int k = 0; k < length; ++k) y[base + k * inner] = x[base + k * inner] - m - l;
    } else {
        const float inv = 1.0f / sum;
        for (int k = 0; k < length; ++k) y[base + k * inner] = exp(x[base + k * inner] - m) * inv;
    }
}

// MVN over the `length` trailing elements of each row; eps inside or outside the square root.
__kernel void mvn_f32(__global const float* x, __global float* y, int length, int normalize_variance, float eps,
                      int eps_inside_sqrt) {
    const int r = get_global_id(0);
    __global const float* xp = x + r * length;
    __global float* yp = y + r * length;
    float mean = 0.0f;
    for (int k = 0; k < length; ++k) mean += xp[k];
    mean /= (float)length;
    if (!normalize_variance) {
        for (int k = 0; k < length; ++k) yp[k] = xp[k] - mean;
        return;
    }
    float var = 0.0f;
    for (int k = 0; k < length; ++k) var += (xp[k] - mean) * (xp[k] - mean);
    var /= (float)length;
    const float inv = eps_inside_sqrt ? 1.0f / sqrt(var + eps) : 1.0f / (sqrt(var) + eps);
    for (int k = 0; k < length; ++k) yp[k] = (xp[k] - mean) * inv;
}

#define REDUCE_SUM 0
#define REDUCE_MEAN 1
#define REDUCE_MAX 2
#define REDUCE_MIN 3
#define REDUCE_PROD 4
#define REDUCE_L1 5
#define REDUCE_L2 6

// One output element per work item. `out` walks the output (kept dims) with the input strides
// of the kept axes; `red` walks the reduced axes (dims and input strides in in_strides).
__kernel void reduce_f32(__global const float* x, __global float* y, Walk out, Walk red, int count, int op) {
    const int i = get_global_id(0);
    const int base = walk_offset(&out, i, out.in_strides);
    float acc = op == REDUCE_MAX ? -INFINITY : (op == REDUCE_MIN ? INFINITY : (op == REDUCE_PROD ? 1.0f : 0.0f));
    for (int k = 0; k < count; ++k) {
        const float v = x[base + walk_offset(&red, k, red.in_strides)];
        switch (op) {
            case REDUCE_MAX: acc = fmax(acc, v); break;
            case REDUCE_MIN: acc = fmin(acc, v); break;
            case REDUCE_PROD: acc *= v; break;
            case REDUCE_L1: acc += fabs(v); break;
            case REDUCE_L2: acc += v * v; break;
            default: acc += v; break;
        }
    }
    if (op == REDUCE_MEAN) acc /= (float)count;
    if (op == REDUCE_L2) acc = sqrt(acc);
    y[i] = acc;
}
