// The input rows a window op (a depthwise convolution, a pooling) reads for a block of sixteen
// outputs along a row: gathered at the window's stride, or loaded once into private memory and read
// tap by tap.

// Sixteen input values of one row for sixteen outputs of a window op (a depthwise convolution, a
// pooling) that start at input column iw0 and step by `stride`: vector loads where the run is
// contiguous (or every other value of a contiguous run) and inside the row, else lane by lane with
// `fill` outside it. `inside` gets 1 for the lanes inside the row and 0 for the others (an
// average's divisor counts them).
inline float16 load_row16(__global const real* row, int iw0, int stride, int width, float fill, float16* inside) {
    if (stride == 1 && iw0 >= 0 && iw0 + 16 <= width) {
        *inside = (float16)(1.0f);
        return LOAD16(row + iw0);
    }
    if (stride == 2 && iw0 >= 0 && iw0 + 32 <= width) {  // every other value of two vector loads
        *inside = (float16)(1.0f);
        const float16 lo = LOAD16(row + iw0), hi = LOAD16(row + iw0 + 16);
        return (float16)(lo.even, hi.even);
    }
    float lanes[16], in[16];
    for (int l = 0; l < 16; ++l) {
        const int iw = iw0 + l * stride;
        const bool ok = iw >= 0 && iw < width;
        lanes[l] = ok ? LOAD(row, iw) : fill;
        in[l] = ok ? 1.0f : 0.0f;
    }
    *inside = vload16(0, in);
    return vload16(0, lanes);
}

// The input values of one row that a block of sixteen outputs of a window op reads: win[j] =
// row[iw0 + j] for j < len, `fill` outside the row, as a run of fill, one copy (by vectors) and a
// run of fill, with no test per element. Loaded once, the row serves every tap along it
// (window_taps16). At most WINDOW_MAX values (kernel_interface.h).
inline void load_window(__global const real* row, int iw0, int len, int width, float fill, float* win) {
    const int lo = clamp(-iw0, 0, len), hi = clamp(width - iw0, lo, len);
    for (int j = 0; j < lo; ++j) win[j] = fill;
    int j = lo;
    for (; j + 16 <= hi; j += 16) vstore16_private(LOAD16(row + iw0 + j), win + j);
    for (; j < hi; ++j) win[j] = LOAD(row, iw0 + j);
    for (j = hi; j < len; ++j) win[j] = fill;
}

// The sixteen values of the tap at `offset` of a window (load_window) at stride 1 or 2.
inline float16 window_taps16(const float* win, int offset, int stride) {
    if (stride == 1) return vload16(0, win + offset);
    const float16 lo = vload16(0, win + offset), hi = vload16(0, win + offset + 16);
    return (float16)(lo.even, hi.even);
}
