// CumSum (ops/scan_ops.cpp): running sums along an axis of `length` elements `inner` apart, one
// work item a line, as the reference sums (integers wrapping, in the unsigned type); exclusive
// stores the sum before each element, reverse runs from the end. One definition for each element
// tag (common/storage.cl) and the sum's type.
#define MOSAIC_DEFINE_CUMSUM(SUFFIX, ACC)                                                                    \
    __kernel void cumsum_##SUFFIX(__global const T_##SUFFIX* x, __global T_##SUFFIX* y, int length, int inner, \
                                  int exclusive, int reverse) {                                             \
        const int line = get_global_id(0);                                                                  \
        const int base = (line / inner) * length * inner + line % inner;                                    \
        ACC sum = 0;                                                                                        \
        for (int step = 0; step < length; ++step) {                                                         \
            const int at = base + (reverse ? length - 1 - step : step) * inner;                             \
            const ACC v = (ACC)GET_##SUFFIX(x, at);                                                         \
            if (exclusive) PUT_##SUFFIX(y, at, sum);                                                        \
            sum += v;                                                                                       \
            if (!exclusive) PUT_##SUFFIX(y, at, sum);                                                       \
        }                                                                                                   \
    }
MOSAIC_DEFINE_CUMSUM(f32, float)
MOSAIC_DEFINE_CUMSUM(i32, uint)
MOSAIC_DEFINE_CUMSUM(i64, ulong)
