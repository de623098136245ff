// Convolution pieces (ops/conv_ops.cpp): im2col (feeding a GEMM) and a direct depthwise convolution.

// col[(c * KH + kh) * KW + kw][oh * OW + ow] = x[c][oh * SH - PT + kh * DH][ow * SW - PL + kw * DW] (0 outside).
__kernel void im2col_f32(__global const real* x, int x_offset, __global real* col, ConvShape s) {
    const int spatial = s.out_h * s.out_w;
    const int i = get_global_id(0);  // over channels * KH * KW * spatial
    const int p = i % spatial, row = i / spatial;
    const int kw = row % s.kernel_w, kh = (row / s.kernel_w) % s.kernel_h, c = row / (s.kernel_w * s.kernel_h);
    const int oh = p / s.out_w, ow = p % s.out_w;
    const int ih = oh * s.stride_h - s.pad_top + kh * s.dilation_h, iw = ow * s.stride_w - s.pad_left + kw * s.dilation_w;
    STORE(col, i, (ih >= 0 && ih < s.in_h && iw >= 0 && iw < s.in_w) ? LOAD(x, x_offset + (c * s.in_h + ih) * s.in_w + iw) : 0.0f);
}

// Stores into a panel of local memory (float), as STOREn and STORE into global memory (real).
#define LOCAL_STORE16(v, p) (*(__local float16_unaligned*)(p) = (v))
#define LOCAL_STORE8(v, p) (*(__local float8_unaligned*)(p) = (v))
#define LOCAL_STORE4(v, p) (*(__local float4_unaligned*)(p) = (v))
#define LOCAL_STORE2(v, p) (*(__local float2_unaligned*)(p) = (v))
#define LOCAL_STORE(p, i, v) ((p)[i] = (v))

// Copies `count` (under 16) values in at most four moves (8, 4, 2 and 1), where a loop of one move
// a value cost the copy of 14- and 7-wide rows most of its time. One name for either destination
// (overloadable: global real, local float), so that MOSAIC_DEFINE_IM2COL_PANEL_TAP's body serves both.
#define MOSAIC_DEFINE_COPY_UNDER16(SPACE, T, PUT)                                                                 \
    __attribute__((overloadable)) inline void copy_under16(__global const real* src, int count, SPACE T* dst) {   \
        if (count & 8) {                                                                                          \
            PUT##8(LOAD8(src), dst);                                                                              \
            src += 8;                                                                                             \
            dst += 8;                                                                                             \
        }                                                                                                         \
        if (count & 4) {                                                                                          \
            PUT##4(LOAD4(src), dst);                                                                              \
            src += 4;                                                                                             \
            dst += 4;                                                                                             \
        }                                                                                                         \
        if (count & 2) {                                                                                          \
            PUT##2(LOAD2(src), dst);                                                                              \
            src += 2;                                                                                             \
            dst += 2;                                                                                             \
        }                                                                                                         \
        if (count & 1) PUT(dst, 0, LOAD(src, 0));                                                                 \
    }
MOSAIC_DEFINE_COPY_UNDER16(__global, real, STORE)
MOSAIC_DEFINE_COPY_UNDER16(__local, float, LOCAL_STORE)

// The rows of one filter tap (kh, kw) of a packed panel of im2col's columns, for every input
// channel of a group (`group_x`, the group's first plane): row (c * KH + kh) * KW + kw of `panel`
// gets channel c's values at output positions p0, p0 + 1, ... (p = oh * OW + ow; p0 at row oh0,
// column ow0), 0 past position n. The positions run along output rows; in a run, input columns
// step by the stride, so the values inside the image are one strided read (vector moves at stride
// 1 and 2, one value at a time elsewhere and in the last few) with zeros either side: no test per
// element. Where a run lies in the image depends on the tap, not the channel, so it is worked out
// once for all channels: one row at a time, that setup cost more than the copy (ResNet-50's 3x3
// convolutions). One definition for a panel in global memory (im2col_packed_f32) and in local
// memory (im2col_panel_tap_local, gemm_conv.cl's: float, stored by LOCAL_STORE).
#define MOSAIC_DEFINE_IM2COL_PANEL_TAP(NAME, SPACE, T, PUT)                                                     \
    inline void NAME(__global const real* group_x, ConvShape s, int kh, int kw, int oh0, int ow0, int p0, int n, \
                     SPACE T* panel) {                                                                          \
        const int plane = s.in_h * s.in_w, row_step = s.kernel_h * s.kernel_w * GEMM_NR;                       \
        SPACE T* tap_rows = panel + (kh * s.kernel_w + kw) * GEMM_NR;                                          \
        int p = p0, oh = oh0, ow = ow0, j = 0;                                                                  \
        const int end = min(p + GEMM_NR, n);                                                                    \
        while (p < end) {                                                                                       \
            const int run = min(s.out_w - ow, end - p);                                                         \
            const int ih = oh * s.stride_h - s.pad_top + kh * s.dilation_h;                                     \
            const int iw0 = ow * s.stride_w - s.pad_left + kw * s.dilation_w;                                   \
            /* The run's positions q in [lo, hi) read inside the row: 0 <= iw0 + q * stride < in_w. */          \
            int lo = 0, hi = 0;                                                                                 \
            if (ih >= 0 && ih < s.in_h) {                                                                       \
                if (s.stride_w == 1) {                                                                          \
                    lo = max(0, -iw0);                                                                          \
                    hi = s.in_w - iw0;                                                                          \
                } else {                                                                                        \
                    lo = iw0 >= 0 ? 0 : (-iw0 + s.stride_w - 1) / s.stride_w;                                   \
                    hi = iw0 >= s.in_w ? 0 : (s.in_w - iw0 + s.stride_w - 1) / s.stride_w;                      \
                }                                                                                               \
                lo = min(lo, run);                                                                              \
                hi = clamp(hi, lo, run);                                                                        \
            }                                                                                                   \
            /* Vectors at stride 2: every other value of two loads, which must stay inside the row. */          \
            const int vectors = s.stride_w == 1 ? (hi - lo) / 16                                                \
                                : s.stride_w == 2 ? max(min(hi - lo, (s.in_w - iw0 - 2 * lo) / 2) / 16, 0)    \
                                                  : 0;                                                          \
            const int scalar_from = lo + 16 * vectors;                                                          \
            __global const real* src = group_x + ih * s.in_w + iw0;                                             \
            SPACE T* dst = tap_rows + j;                                                                        \
            for (int c = 0; c < s.channels; ++c, src += plane, dst += row_step) {                               \
                for (int q = 0; q < lo; ++q) PUT(dst, q, 0.0f);                                                 \
                for (int v = 0, q = lo; v < vectors; ++v, q += 16) {                                            \
                    float16 values;                                                                             \
                    if (s.stride_w == 1) {                                                                      \
                        values = LOAD16(src + q);                                                               \
                    } else {                                                                                    \
                        const float16 a = LOAD16(src + 2 * q), b = LOAD16(src + 2 * q + 16);                    \
                        values = (float16)(a.even, b.even);                                                     \
                    }                                                                                           \
                    PUT##16(values, dst + q);                                                                   \
                }                                                                                               \
                if (s.stride_w == 1) /* the last few by the binary digits of their count */                     \
                    copy_under16(src + scalar_from, hi - scalar_from, dst + scalar_from);                       \
                else                                                                                            \
                    for (int q = scalar_from; q < hi; ++q) PUT(dst, q, LOAD(src, q * s.stride_w));              \
                for (int q = hi; q < run; ++q) PUT(dst, q, 0.0f);                                               \
            }                                                                                                   \
            j += run;                                                                                           \
            p += run;                                                                                           \
            ow = 0;                                                                                             \
            ++oh;                                                                                               \
        }                                                                                                       \
        if (j < GEMM_NR)                                                                                        \
            for (int c = 0; c < s.channels; ++c)                                                                \
                for (int q = j; q < GEMM_NR; ++q) PUT(tap_rows, c * row_step + q, 0.0f);                        \
    }
MOSAIC_DEFINE_IM2COL_PANEL_TAP(im2col_panel_tap, __global, real, STORE)
MOSAIC_DEFINE_IM2COL_PANEL_TAP(im2col_panel_tap_local, __local, float, LOCAL_STORE)

// im2col straight into the packed B of the tiled GEMM (gemm.cl's gemm_pack_b_f32 layout), for
// one group of one image, so the columns are never written unpacked: row kk = (c * KH + kh) * KW +
// kw of `k`, column p = oh * OW + ow of `n`, at bp[(t * k + kk) * GEMM_NR + j] for p = t * GEMM_NR
// + j. Global size (KH * KW taps, panels, groups): a work item packs one tap's rows of one panel
// for every channel of its group; a group's channels follow the previous group's in the image.
__kernel void im2col_packed_f32(__global const real* x, int x_offset, __global real* bp, int bp_offset, ConvShape s,
                                int k, int n) {
    const int tap = get_global_id(0), t = get_global_id(1), group = get_global_id(2);
    __global real* panel = bp + bp_offset + (group * get_global_size(1) + t) * k * GEMM_NR;
    const int p0 = t * GEMM_NR, oh0 = p0 / s.out_w;
    im2col_panel_tap(x + x_offset + group * s.channels * s.in_h * s.in_w, s, tap / s.kernel_w, tap % s.kernel_w, oh0,
                     p0 - oh0 * s.out_w, p0, n, panel);
}

// Sixteen results of one output row of a depthwise convolution from flat index i on, with the
// epilogue `e` (common/epilogue.cl's apply_epilogue, its bias `bias_value`: one channel's), stored where
// they lie in the row (`lanes_left` of them, store16; the residual read there too).
inline void store_epilogue16(EpilogueArgs e, int i, int lanes_left, float16 acc, float bias_value,
                             __global const real* residual, __global real* y) {
    acc += bias_value;
    activate_rows16(e.act1, e.act1_a, e.act1_b, &acc, 1);
    if (e.has_residual) acc += load16_lanes(residual + i, lanes_left);
    activate_rows16(e.act2, e.act2_a, e.act2_b, &acc, 1);
    store16(y, i, lanes_left, acc);
}

// Sixteen outputs of one output row a work item, for OpenCL CPU devices, where PoCL keeps the
// float16 accumulator in a vector register (the one-output kernel below stays scalar there:
// MobileNetV2's depthwise convolutions took 40 of its 52 ms on 2 cores). Global size: output rows
// (image, channel, oh) times blocks of 16 along the row; a stride-1 row read inside the image is one
// vector load, any other a gather (load_row16). depthwise_column16_f32 below takes the strides
// and windows it can (conv_ops.cpp); this kernel the others.
__kernel void depthwise_conv16_f32(__global const real* x, __global const real* w, __global real* y, ConvShape s,
                                   __global const real* bias, __global const real* residual, EpilogueArgs e) {
    const int blocks = (s.out_w + 15) / 16;
    const int row = get_global_id(0) / blocks, ow0 = (get_global_id(0) % blocks) * 16;
    const int oh = row % s.out_h, nc = row / s.out_h, c = nc % s.channels;
    __global const real* xp = x + nc * s.in_h * s.in_w;
    __global const real* wp = w + c * s.kernel_h * s.kernel_w;
    float16 acc = (float16)(0.0f);
    for (int kh = 0; kh < s.kernel_h; ++kh) {
        const int ih = oh * s.stride_h - s.pad_top + kh * s.dilation_h;
        if (ih < 0 || ih >= s.in_h) continue;
        __global const real* xr = xp + ih * s.in_w;
        for (int kw = 0; kw < s.kernel_w; ++kw) {
            const int iw0 = ow0 * s.stride_w - s.pad_left + kw * s.dilation_w;
            float16 inside;
            const float16 v = load_row16(xr, iw0, s.stride_w, s.in_w, 0.0f, &inside);
            acc = fma(v, (float16)(LOAD(wp, kh * s.kernel_w + kw)), acc);
        }
    }
    store_epilogue16(e, row * s.out_w + ow0, s.out_w - ow0, acc, e.has_bias ? LOAD(bias, c) : 0.0f, residual, y);
}

// A column of sixteen outputs wide down a band of `rows` output rows of one channel's plane, for
// OpenCL CPU devices at stride 1 or 2 along the row. Each input row the column reads is loaded once
// (load_window: a copy inside the image, zeros past its edges) into a ring of the kernel's height,
// and every tap of every output row takes its sixteen values from there: the row-at-a-time kernel
// above gathers each tap apart from the image, which on 14- and 7-wide planes (every block at an
// edge) cost several times the arithmetic. Global size: (image, channel) times blocks along the
// row times bands. WINDOW_MAX and RING_MAX: kernel_interface.h.
__kernel void depthwise_column16_f32(__global const real* x, __global const real* w, __global real* y, ConvShape s,
                                     __global const real* bias, __global const real* residual, EpilogueArgs e,
                                     int rows) {
    const int blocks = (s.out_w + 15) / 16, bands = (s.out_h + rows - 1) / rows;
    const int id = get_global_id(0), band = id % bands, column = id / bands;
    const int nc = column / blocks, ow0 = (column % blocks) * 16, c = nc % s.channels;
    __global const real* xp = x + nc * s.in_h * s.in_w;
    __global const real* wp = w + c * s.kernel_h * s.kernel_w;
    const int iw0 = ow0 * s.stride_w - s.pad_left;
    const int span = (s.kernel_w - 1) * s.dilation_w + 16 * s.stride_w;  // one row's window
    const int ring = (s.kernel_h - 1) * s.dilation_h + 1;                // the rows one output row reads
    const float bias_value = e.has_bias ? LOAD(bias, c) : 0.0f;
    float win[RING_MAX * WINDOW_MAX];
    const int oh_end = min(s.out_h, (band + 1) * rows);
    int next = INT_MIN;  // the first input row not loaded yet
    for (int oh = band * rows; oh < oh_end; ++oh) {
        const int top = oh * s.stride_h - s.pad_top, bottom = top + ring - 1;
        for (int ih = max(max(next, top), 0); ih <= min(bottom, s.in_h - 1); ++ih)
            load_window(xp + ih * s.in_w, iw0, span, s.in_w, 0.0f, win + (ih % ring) * WINDOW_MAX);
        next = bottom + 1;
        float16 acc = (float16)(0.0f);
        for (int kh = 0; kh < s.kernel_h; ++kh) {
            const int ih = top + kh * s.dilation_h;
            if (ih < 0 || ih >= s.in_h) continue;
            const float* row = win + (ih % ring) * WINDOW_MAX;
            __global const real* wr = wp + kh * s.kernel_w;
            for (int kw = 0; kw < s.kernel_w; ++kw)
                acc = fma(window_taps16(row, kw * s.dilation_w, s.stride_w), (float16)(LOAD(wr, kw)), acc);
        }
        store_epilogue16(e, (nc * s.out_h + oh) * s.out_w + ow0, s.out_w - ow0, acc, bias_value, residual, y);
    }
}

// One output element per work item; `s.channels` is the total channel count, one filter each.
__kernel void depthwise_conv_f32(__global const real* x, __global const real* w, __global real* y, ConvShape s,
                                 __global const real* bias, __global const real* residual, EpilogueArgs e) {
    const int i = get_global_id(0);
    const int ow = i % s.out_w, oh = (i / s.out_w) % s.out_h, nc = i / (s.out_w * s.out_h);
    const int c = nc % s.channels;
    __global const real* xp = x + nc * s.in_h * s.in_w;
    __global const real* wp = w + c * s.kernel_h * s.kernel_w;
    float acc = 0.0f;
    for (int kh = 0; kh < s.kernel_h; ++kh) {
        const int ih = oh * s.stride_h - s.pad_top + kh * s.dilation_h;
        if (ih < 0 || ih >= s.in_h) continue;
        for (int kw = 0; kw < s.kernel_w; ++kw) {
            const int iw = ow * s.stride_w - s.pad_left + kw * s.dilation_w;
            if (iw >= 0 && iw < s.in_w) acc += LOAD(xp, ih * s.in_w + iw) * LOAD(wp, kh * s.kernel_w + kw);
        }
    }
    STORE(y, i, apply_epilogue(e, i, acc, bias, residual));
}
