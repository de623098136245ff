// Register-tiled single-precision GEMM for OpenCL CPU devices (PoCL's pthread device), where
// CLBlast's kernels, written for GPUs' local memory and thousands of work items, run at a few
// percent of the cores' peak. One work item (a work group of one) computes GEMM_MR x 32 tiles of C
// in 2 * GEMM_MR float16 accumulators, which the device compiler maps to vector registers
// (AVX-512: 16 of its 32), with one broadcast of A and two vector loads of B per k step: the shape
// of BLIS's micro-kernel. Both operands are first packed (gemm_pack_*_f32) so that those loads are
// contiguous: a row-major B read along k strides by its row length, and at 4 KiB strides every row
// falls into the same L1 set. Packing pads with zeros to whole tiles, so the inner loop has no
// edge cases; only the store checks the matrix's edges.
//
// GEMM_MR (rows per tile), GEMM_NR (columns per panel of B: 32, two float16) and GEMM_MT (tiles
// per work item) are kernel_interface.h's, which gemm/tiled_gemm.cpp packs and launches with, so
// the host and the kernels cannot disagree. conv.cl's im2col_packed_f32 and gemm_conv.cl write B in this packed
// form directly.

// Packs A (element (i, kk) at a[a_offset + i * tile_stride + kk * k_stride], so either layout) into tiles of
// GEMM_MR rows stored k-major: ap[(t * k + kk) * GEMM_MR + r] = A[t * GEMM_MR + r][kk], 0 past row m.
// Global size (k, tiles, batch): a work item writes one k step of a tile, GEMM_MR floats in a row.
__kernel void gemm_pack_a_f32(__global const real* a, int a_offset, int a_batch, int tile_stride, int k_stride, int m,
                              int k, __global real* ap, int ap_offset, int ap_batch) {
    const int kk = get_global_id(0), t = get_global_id(1), batch = get_global_id(2);
    __global const real* src = a + a_offset + batch * a_batch + kk * k_stride;
    __global real* dst = ap + ap_offset + batch * ap_batch + (t * k + kk) * GEMM_MR;
    const int m0 = t * GEMM_MR;
    for (int r = 0; r < GEMM_MR; ++r) STORE(dst, r, m0 + r < m ? LOAD(src, (m0 + r) * tile_stride) : 0.0f);
}

// Packs B (element (kk, j) at b[b_offset + j * tile_stride + kk * k_stride]) into panels of 32 columns stored
// k-major: bp[(t * k + kk) * 32 + c] = B[kk][t * 32 + c], 0 past column n. Global size (k, panels,
// batch): a work item writes one k step of a panel, from one row of B where its columns lie in a row.
__kernel void gemm_pack_b_f32(__global const real* b, int b_offset, int b_batch, int tile_stride, int k_stride, int n,
                              int k, __global real* bp, int bp_offset, int bp_batch) {
    const int kk = get_global_id(0), t = get_global_id(1), batch = get_global_id(2);
    __global const real* src = b + b_offset + batch * b_batch + kk * k_stride;
    __global real* dst = bp + bp_offset + batch * bp_batch + (t * k + kk) * GEMM_NR;
    const int n0 = t * GEMM_NR;
    if (tile_stride == 1 && n0 + GEMM_NR <= n) {
        STORE16(LOAD16(src + n0), dst);
        STORE16(LOAD16(src + n0 + 16), dst + 16);
        return;
    }
    for (int c = 0; c < GEMM_NR; ++c) STORE(dst, c, n0 + c < n ? LOAD(src, (n0 + c) * tile_stride) : 0.0f);
}

// Stores a register tile (its first `rows` rows and `cols` columns from flat index c_at of C, rows
// ldc apart) with the epilogue `e` (common/epilogue.cl's apply_epilogue, none when all zero) applied in
// registers, one step at a time over the whole tile. The bias is one value a row (a convolution's
// output channel, inner == n) or one run of columns every row shares (e.bias_per_column: a MatMul's
// last axis, channels == n == ldc); TiledGemm::applies_epilogue checks which. Reads and stores stop at
// the tile's edge (load16_lanes, store16).
inline void gemm_store_tile(__global real* c, int c_at, int ldc, int rows, int cols, float16* lo, float16* hi,
                            EpilogueArgs e, __global const real* bias, __global const real* residual) {
    rows = min(rows, GEMM_MR);
    const int lo_lanes = min(cols, 16), hi_lanes = cols - 16;
    if (e.has_bias) {
        if (e.bias_per_column) {
            const int j0 = c_at % e.channels;
            const float16 b_lo = load16_lanes(bias + j0, lo_lanes), b_hi = load16_lanes(bias + j0 + 16, hi_lanes);
            for (int r = 0; r < rows; ++r) {
                lo[r] += b_lo;
                hi[r] += b_hi;
            }
        } else {
            // Row r's channel: where rows are `inner` long (ldc == inner, as the host lays C out), the
            // one after row r - 1's, so one division a tile rather than two a row.
            int channel = (c_at / e.inner) % e.channels;
            for (int r = 0; r < rows; ++r) {
                if (ldc != e.inner) channel = ((c_at + r * ldc) / e.inner) % e.channels;
                const float b = LOAD(bias, channel);
                lo[r] += b;
                hi[r] += b;
                if (++channel == e.channels) channel = 0;
            }
        }
    }
    activate_rows16(e.act1, e.act1_a, e.act1_b, lo, rows);
    activate_rows16(e.act1, e.act1_a, e.act1_b, hi, rows);
    if (e.has_residual) {
        for (int r = 0; r < rows; ++r) {
            const int i = c_at + r * ldc;
            lo[r] += load16_lanes(residual + i, lo_lanes);
            hi[r] += load16_lanes(residual + i + 16, hi_lanes);
        }
    }
    activate_rows16(e.act2, e.act2_a, e.act2_b, lo, rows);
    activate_rows16(e.act2, e.act2_a, e.act2_b, hi, rows);
    for (int r = 0; r < rows; ++r) {
        const int i = c_at + r * ldc;
        store16(c, i, lo_lanes, lo[r]);
        if (hi_lanes > 0) store16(c, i + 16, hi_lanes, hi[r]);
    }
}

// One register tile of C: GEMM_MR rows of packed A (`a`, k-major) times one panel of B (`b`, GEMM_NR
// columns of each k step, the steps `b_step` apart: GEMM_NR packed, B's row length in place),
// stored from flat index `c_at` (the tile's first row and column), rows ldc apart, its first `rows`
// rows and `cols` columns, with the epilogue `e`. (Taking k in blocks that stay in L1 while several
// tiles use them measured no faster on 1 or 2 cores.) One definition for B in global memory
// (gemm_tile_f32) and in local memory (gemm_tile_local_f32: gemm_conv.cl's panel, float: B_T its
// element type, B_LOAD16 its vector load).
// A's GEMM_MR values of one k step: where halves convert by integer arithmetic (common/storage.cl), one
// vector conversion of the 8 rather than one conversion a row.
#if defined(MOSAIC_HALF_BY_BITS) && GEMM_MR == 8
#define GEMM_A_STEP(a)     \
    float a_step[8];       \
    vstore8(LOAD8(a), 0, a_step);
#define GEMM_A(a, r) a_step[r]
#else
#define GEMM_A_STEP(a)
#define GEMM_A(a, r) LOAD(a, r)
#endif
#define MOSAIC_DEFINE_GEMM_TILE(NAME, SPACE, B_T, B_LOAD16)                                                   \
    inline void NAME(__global const real* a, SPACE const B_T* b, int b_step, int k, __global real* c,         \
                     int c_at, int ldc, int rows, int cols, EpilogueArgs e, __global const real* bias,        \
                     __global const real* residual) {                                                        \
        float16 lo[GEMM_MR], hi[GEMM_MR];                                                                    \
        for (int r = 0; r < GEMM_MR; ++r) lo[r] = hi[r] = 0.0f;                                              \
        for (int kk = 0; kk < k; ++kk) {                                                                     \
            const float16 b_lo = B_LOAD16(b), b_hi = B_LOAD16(b + 16);                                       \
            GEMM_A_STEP(a)                                                                                   \
            _Pragma("unroll") for (int r = 0; r < GEMM_MR; ++r) {                                            \
                const float16 av = (float16)(GEMM_A(a, r));                                                  \
                lo[r] = fma(av, b_lo, lo[r]);                                                                \
                hi[r] = fma(av, b_hi, hi[r]);                                                                \
            }                                                                                                \
            a += GEMM_MR;                                                                                    \
            b += b_step;                                                                                     \
        }                                                                                                    \
        gemm_store_tile(c, c_at, ldc, rows, cols, lo, hi, e, bias, residual);                                 \
    }
#define MOSAIC_VLOAD16(p) vload16(0, (p))
MOSAIC_DEFINE_GEMM_TILE(gemm_tile_f32, __global, real, LOAD16)
MOSAIC_DEFINE_GEMM_TILE(gemm_tile_local_f32, __local, float, MOSAIC_VLOAD16)

// C[batch] (m x n, rows ldc apart) = packed A * B, then the epilogue `e`. B is packed (panels
// b_panel_stride = k * GEMM_NR apart, steps b_step = GEMM_NR apart) or read in place where its rows are
// whole panels (a row-major B with n a multiple of GEMM_NR, as a 1x1 convolution's image: panels
// GEMM_NR apart, steps n apart), which spares the packing pass. Global size: (ceil(tiles of A /
// GEMM_MT), panels of B, batch), local size 1. Consecutive work items share a panel of B (k x 32
// floats), which stays in the core's L2 while the tiles of A stream past it.
__kernel void gemm_tiled_f32(__global const real* ap, int ap_offset, int ap_batch, __global const real* bp,
                             int bp_offset, int bp_batch, __global real* c, int c_offset, int c_batch, int ldc, int m,
                             int n, int k, __global const real* bias, __global const real* residual, EpilogueArgs e,
                             int b_panel_stride, int b_step) {
    const int batch = get_global_id(2), panel = get_global_id(1);
    const int tiles = (m + GEMM_MR - 1) / GEMM_MR, first = get_global_id(0) * GEMM_MT;
    const int n0 = panel * GEMM_NR;
    __global const real* b = bp + bp_offset + batch * bp_batch + panel * b_panel_stride;
    for (int t = first; t < min(first + GEMM_MT, tiles); ++t)
        gemm_tile_f32(ap + ap_offset + batch * ap_batch + t * k * GEMM_MR, b, b_step, k, c,
                      c_offset + batch * c_batch + t * GEMM_MR * ldc + n0, ldc, m - t * GEMM_MR, n - n0, e, bias, residual);
}
