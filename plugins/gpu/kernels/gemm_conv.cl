// A convolution's GEMM with im2col fused in (conv_ops.cpp), for OpenCL CPU devices. im2col_packed_f32
// followed by gemm_tiled_f32 writes every packed column of the image out (7 MB for a 3x3 convolution
// of ResNet-50's first stage, more than the cores' L2) and reads it back. Here one work item takes one
// panel of GEMM_NR output positions of one group: it writes the panel's k packed rows into its own
// part of the scratch buffer, where they are still in the core's cache, and multiplies every tile
// of A by them. Global size (panels, groups), local size 1; the arguments after ConvShape are
// gemm_tiled_f32's, with the panels' region of the scratch buffer as B (packed, so b_panel_stride and
// b_step are the packed layout's, which this kernel knows).
__kernel void conv_gemm_tiled_f32(__global const float* x, int x_offset, ConvShape s, __global const float* ap,
                                  int ap_offset, int ap_batch, __global float* bp, int bp_offset, int bp_batch,
                                  __global float* c, int c_offset, int c_batch, int ldc, int m, int n, int k,
                                  __global const float* bias, __global const float* residual, Epilogue e,
                                  int b_panel_stride, int b_step) {
    const int panel = get_global_id(0), group = get_global_id(1);
    const int n0 = panel * GEMM_NR, oh0 = n0 / s.out_w, ow0 = n0 - oh0 * s.out_w;
    __global float* dst = bp + bp_offset + group * bp_batch + panel * k * GEMM_NR;
    __global const float* b_panel = dst;
    // Rows kk = (channel * KH + kh) * KW + kw in order, counted rather than divided out.
    for (int channel = 0; channel < s.channels; ++channel) {
        __global const float* plane = x + x_offset + (group * s.channels + channel) * s.in_h * s.in_w;
        for (int kh = 0; kh < s.kernel_h; ++kh)
            for (int kw = 0; kw < s.kernel_w; ++kw, dst += GEMM_NR) im2col_panel_row(plane, s, kh, kw, oh0, ow0, n0, n, dst);
    }
    const int tiles = (m + GEMM_MR - 1) / GEMM_MR;
    for (int t = 0; t < tiles; ++t)
        gemm_tile_f32(ap + ap_offset + group * ap_batch + t * k * GEMM_MR, b_panel, GEMM_NR, k, c,
                      c_offset + group * c_batch + t * GEMM_MR * ldc + n0, ldc, m - t * GEMM_MR, n - n0, e, bias, residual);
}
