// col2im of a transposed convolution (ops/conv_transpose_ops.cpp): output element (c, oh, ow) of one
// image sums the columns' values of every tap that lands on it, the columns being, per group, the
// filters' transpose times the image: row (co * kernel_h + kh) * kernel_w + kw, column ih * in_w +
// iw. A tap lands on oh where oh + pad_top - kh * dilation_h is stride_h times an input row. Then
// the fused epilogue, at the element's index in the whole output.
__kernel void col2im_f32(__global const real* cols, __global real* y, int y_offset, ConvShape s,
                         __global const real* bias, __global const real* residual, EpilogueArgs e) {
    const int i = get_global_id(0);
    const int ow = i % s.out_w, oh = (i / s.out_w) % s.out_h, c = i / (s.out_w * s.out_h);
    const int spatial = s.in_h * s.in_w;
    __global const real* col = cols + c * s.kernel_h * s.kernel_w * spatial;  // groups' rows follow each other
    float acc = 0.0f;
    for (int kh = 0; kh < s.kernel_h; ++kh) {
        const int row = oh + s.pad_top - kh * s.dilation_h;
        if (row < 0 || row % s.stride_h != 0 || row / s.stride_h >= s.in_h) continue;
        for (int kw = 0; kw < s.kernel_w; ++kw) {
            const int column = ow + s.pad_left - kw * s.dilation_w;
            if (column < 0 || column % s.stride_w != 0 || column / s.stride_w >= s.in_w) continue;
            acc += LOAD(col, (kh * s.kernel_w + kw) * spatial + (row / s.stride_h) * s.in_w + column / s.stride_w);
        }
    }
    STORE(y, y_offset + i, apply_epilogue(e, y_offset + i, acc, bias, residual));
}
