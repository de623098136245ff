// Sixteen lanes loaded and stored up to a row's end: the last block of sixteen outputs along a row
// (a GEMM tile's edge, a window op's row) reads and writes only what lies in the row.

// The first `count` of sixteen floats from p (all sixteen from 16 on), zeros in the other lanes:
// the last block of a row reads nothing past the row's end.
inline float16 load16_lanes(__global const real* p, int count) {
    if (count >= 16) return LOAD16(p);
    float lanes[16];
    for (int l = 0; l < 16; ++l) lanes[l] = l < count ? LOAD(p, l) : 0.0f;
    return vload16(0, lanes);
}

// Stores the first `lanes_left` of sixteen results from flat index i on (all sixteen from 16 on):
// the last block of a row stores only its outputs in the row.
inline void store16(__global real* y, int i, int lanes_left, float16 v) {
    if (lanes_left >= 16) {
        STORE16(v, y + i);
        return;
    }
    // By the binary digits of the count: at most four stores (8, 4, 2 and 1 values), where a loop
    // of one store a lane cost a depthwise convolution's 14- and 7-wide rows as much as its taps.
    __global real* p = y + i;
    float8 eight = v.lo;
    if (lanes_left & 8) {
        STORE8(v.lo, p);
        p += 8;
        eight = v.hi;
    }
    float4 four = eight.lo;
    if (lanes_left & 4) {
        STORE4(eight.lo, p);
        p += 4;
        four = eight.hi;
    }
    float2 two = four.lo;
    if (lanes_left & 2) {
        STORE2(four.lo, p);
        p += 2;
        two = four.hi;
    }
    if (lanes_left & 1) STORE(p, 0, two.x);
}

