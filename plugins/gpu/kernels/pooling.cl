// Max and average pooling over the two trailing dims of an N, C, H, W tensor (ops/pooling_ops.cpp).

__kernel void max_pool_f32(__global const real* x, __global real* y, PoolShape s) {
    const int i = get_global_id(0);
    const int ow = i % s.out_w, oh = (i / s.out_w) % s.out_h, nc = i / (s.out_w * s.out_h);
    __global const real* xp = x + nc * s.in_h * s.in_w;
    float best = -FLT_MAX;  // an empty window gives the lowest value, as the reference does
    for (int kh = 0; kh < s.kernel_h; ++kh) {
        const int ih = oh * s.stride_h - s.pad_top + kh * s.dilation_h;
        if (ih < 0 || ih >= s.in_h) continue;
        for (int kw = 0; kw < s.kernel_w; ++kw) {
            const int iw = ow * s.stride_w - s.pad_left + kw * s.dilation_w;
            if (iw >= 0 && iw < s.in_w) best = fmax(best, LOAD(xp, ih * s.in_w + iw));
        }
    }
    STORE(y, i, best);
}

__kernel void avg_pool_f32(__global const real* x, __global real* y, PoolShape s) {
    const int i = get_global_id(0);
    const int ow = i % s.out_w, oh = (i / s.out_w) % s.out_h, nc = i / (s.out_w * s.out_h);
    __global const real* xp = x + nc * s.in_h * s.in_w;
    float sum = 0.0f;
    int count = 0;
    for (int kh = 0; kh < s.kernel_h; ++kh) {
        const int ih = oh * s.stride_h - s.pad_top + kh * s.dilation_h;
        for (int kw = 0; kw < s.kernel_w; ++kw) {
            const int iw = ow * s.stride_w - s.pad_left + kw * s.dilation_w;
            if (ih >= 0 && ih < s.in_h && iw >= 0 && iw < s.in_w) {
                sum += LOAD(xp, ih * s.in_w + iw);
                ++count;
            }
        }
    }
    if (s.count_padding) count = s.kernel_h * s.kernel_w;
    STORE(y, i, count > 0 ? sum / (float)count : 0.0f);
}

// Sixteen outputs of one output row a work item, for OpenCL CPU devices (as depthwise_conv16_f32:
// PoCL keeps the float16 in a vector register, where the kernels above stay scalar). Global size:
// output rows (image, channel, oh) times blocks of 16 along the row; the last block of a row
// stores only its outputs in the row (store16). Max and average differ only in how taps combine.
__kernel void max_pool16_f32(__global const real* x, __global real* y, PoolShape s) {
    const int blocks = (s.out_w + 15) / 16;
    const int row = get_global_id(0) / blocks, ow0 = (get_global_id(0) % blocks) * 16;
    const int oh = row % s.out_h, nc = row / s.out_h;
    __global const real* xp = x + nc * s.in_h * s.in_w;
    float16 best = (float16)(-FLT_MAX), inside;
    for (int kh = 0; kh < s.kernel_h; ++kh) {
        const int ih = oh * s.stride_h - s.pad_top + kh * s.dilation_h;
        if (ih < 0 || ih >= s.in_h) continue;
        for (int kw = 0; kw < s.kernel_w; ++kw) {
            const int iw0 = ow0 * s.stride_w - s.pad_left + kw * s.dilation_w;
            best = fmax(best, load_row16(xp + ih * s.in_w, iw0, s.stride_w, s.in_w, -FLT_MAX, &inside));
        }
    }
    store16(y, row * s.out_w + ow0, s.out_w - ow0, best);
}

__kernel void avg_pool16_f32(__global const real* x, __global real* y, PoolShape s) {
    const int blocks = (s.out_w + 15) / 16;
    const int row = get_global_id(0) / blocks, ow0 = (get_global_id(0) % blocks) * 16;
    const int oh = row % s.out_h, nc = row / s.out_h;
    __global const real* xp = x + nc * s.in_h * s.in_w;
    float16 sum = (float16)(0.0f), count = (float16)(0.0f), inside;
    for (int kh = 0; kh < s.kernel_h; ++kh) {
        const int ih = oh * s.stride_h - s.pad_top + kh * s.dilation_h;
        if (ih < 0 || ih >= s.in_h) continue;
        for (int kw = 0; kw < s.kernel_w; ++kw) {
            const int iw0 = ow0 * s.stride_w - s.pad_left + kw * s.dilation_w;
            sum += load_row16(xp + ih * s.in_w, iw0, s.stride_w, s.in_w, 0.0f, &inside);
            count += inside;
        }
    }
    if (s.count_padding) count = (float16)((float)(s.kernel_h * s.kernel_w));
    store16(y, row * s.out_w + ow0, s.out_w - ow0, select((float16)(0.0f), sum / count, count > 0.0f));
}
