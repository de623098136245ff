// A convolution's GEMM with im2col fused in (conv_ops.cpp), for OpenCL CPU devices. im2col_packed_f32
// followed by gemm_tiled_f32 writes every packed column of the image out (7 MB for a 3x3 convolution
// of ResNet-50's first stage, more than the cores' L2) and reads it back. Here one work item takes one
// panel of GEMM_NR output positions of one group: it packs the panel's k rows into local memory
// (`panel_b`, k * GEMM_NR floats), then multiplies every tile of A by them. On an OpenCL CPU device a
// work group's local memory is its thread's own block, reused group after group, so the panel
// stays in the core's cache and is never written back: packed into global scratch, 7 MB of dirty
// panels a convolution went out to memory while the next ops ran (ResNet-50's first stage: 20-21
// against 13-16 ms). Global size (panels, groups), local size 1; the arguments from `ap` to `b_step`
// are gemm_tiled_f32's (B's are unused: the panel is packed here).
__kernel void conv_gemm_tiled_f32(__global const real* x, int x_offset, ConvShape s, __global const real* ap,
                                  int ap_offset, int ap_batch, __global real* bp, int bp_offset, int bp_batch,
                                  __global real* c, int c_offset, int c_batch, int ldc, int m, int n, int k,
                                  __global const real* bias, __global const real* residual, EpilogueArgs e,
                                  int b_panel_stride, int b_step, __local float* panel_b) {
    const int panel = get_global_id(0), group = get_global_id(1);
    const int n0 = panel * GEMM_NR, oh0 = n0 / s.out_w, ow0 = n0 - oh0 * s.out_w;
    __global const real* group_x = x + x_offset + group * s.channels * s.in_h * s.in_w;
    for (int kh = 0; kh < s.kernel_h; ++kh)
        for (int kw = 0; kw < s.kernel_w; ++kw) im2col_panel_tap_local(group_x, s, kh, kw, oh0, ow0, n0, n, panel_b);
    const int tiles = (m + GEMM_MR - 1) / GEMM_MR;
    for (int t = 0; t < tiles; ++t)
        gemm_tile_local_f32(ap + ap_offset + group * ap_batch + t * k * GEMM_MR, panel_b, GEMM_NR, k, c,
                            c_offset + group * c_batch + t * GEMM_MR * ldc + n0, ldc, m - t * GEMM_MR, n - n0, e, bias,
                            residual);
}
