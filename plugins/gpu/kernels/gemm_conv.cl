// A convolution's GEMM with im2col fused in (conv_ops.cpp), for OpenCL CPU devices. im2col_packed_f32
// followed by gemm_tiled_f32 writes every packed column of the image out (7 MB for a 3x3 convolution
// of ResNet-50's first stage, more than the cores' L2) and reads it back. Here one work item takes one
// panel of GEMM_NR output positions of one group: it writes the panel's k packed rows into its own
// part of the scratch buffer, where they are still in the core's cache, and multiplies every tile
// of A by them. Global size (panels, groups), local size 1; the arguments after ConvShape are
// gemm_tiled_f32's, with the panels' region of the scratch buffer as B.
__kernel void conv_gemm_tiled_f32(__global const float* x, int x_offset, ConvShape s, __global const float* ap,
                                  int ap_offset, int ap_batch, __global float* bp, int bp_offset, int bp_batch,
                                  __global float* c, int c_offset, int c_batch, int ldc, int m, int n, int k,
                                  __global const float* bias, __global const float* residual, Epilogue e) {
    const int panel = get_global_id(0), group = get_global_id(1);
    const int n0 = panel * GEMM_NR, taps = s.kernel_h * s.kernel_w;
    __global float* b_panel = bp + bp_offset + group * bp_batch + panel * k * GEMM_NR;
    for (int kk = 0; kk < k; ++kk) {
        const int channel = kk / taps, tap = kk - channel * taps, kh = tap / s.kernel_w;
        __global const float* plane = x + x_offset + (group * s.channels + channel) * s.in_h * s.in_w;
        im2col_panel_row(plane, s, kh, tap - kh * s.kernel_w, n0, n, b_panel + kk * GEMM_NR);
    }
    const int tiles = (m + GEMM_MR - 1) / GEMM_MR;
    for (int t = 0; t < tiles; ++t)
        gemm_tile_f32(ap + ap_offset + group * ap_batch + t * k * GEMM_MR, b_panel, k, c,
                      c_offset + group * c_batch + t * GEMM_MR * ldc + n0, ldc, m - t * GEMM_MR, n - n0, e, bias, residual);
}
