// A MatMul, and a Gather, by compressed weights (ops/compressed_matmul_ops.cpp): an LLM's int8/int4 codes, a byte
// each in device memory, dequantized as they are read. On a GPU one work group per output element:
// its work items take every lanes-th of the K products, then combine their partial sums in local
// memory. On an OpenCL CPU device one work item per output, sixteen codes at a time (a work group
// per output costs PoCL a scheduling and barriers each: 2.4 s per token of the benchmark's LLM).
//
//   y[m, n] = sum_g s[n, g] * (sum_{k in g} x[m, k] * code[n, k] - z[n, g] * sum_{k in g} x[m, k])
//
// over the groups g of G consecutive codes (one scale and zero point each).
#define COMPRESSED_MATMUL(NAME, C)                                                                      \
    __kernel void NAME(__global const real* x, __global const C* codes, __global const float* scale,   \
                       __global const float* zero, __global real* y, int n_count, int k_count, int group, \
                       __local float* partial) {                                                        \
        const int out = get_group_id(0), lane = get_local_id(0), lanes = get_local_size(0);             \
        const int m = out / n_count, n = out % n_count, groups = k_count / group;                       \
        __global const real* xr = x + (long)m * k_count;                                                \
        __global const C* row = codes + (long)n * k_count;                                              \
        float total = 0.0f;                                                                             \
        for (int g = 0; g < groups; ++g) {                                                              \
            float products = 0.0f, sum = 0.0f;                                                          \
            for (int k = g * group + lane; k < (g + 1) * group; k += lanes) {                           \
                const float v = LOAD(xr, k);                                                            \
                products += v * (float)row[k];                                                          \
                sum += v;                                                                               \
            }                                                                                           \
            total += scale[n * groups + g] * (products - zero[n * groups + g] * sum);                   \
        }                                                                                               \
        partial[lane] = total;                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                   \
        for (int step = lanes / 2; step > 0; step /= 2) {                                               \
            if (lane < step) partial[lane] += partial[lane + step];                                     \
            barrier(CLK_LOCAL_MEM_FENCE);                                                               \
        }                                                                                               \
        if (lane == 0) STORE(y, out, partial[0]);                                                       \
    }
COMPRESSED_MATMUL(compressed_matmul_u8, uchar)
COMPRESSED_MATMUL(compressed_matmul_i8, char)

// The sum of a float16's lanes.
inline float sum_lanes16(float16 v) {
    const float8 a = v.lo + v.hi;
    const float4 b = a.lo + a.hi;
    const float2 c = b.lo + b.hi;
    return c.x + c.y;
}

// One work item per output, sixteen codes at a time where the groups allow (G a multiple of 16).
#define COMPRESSED_MATMUL_ROWS(NAME, C, C16)                                                             \
    __kernel void NAME(__global const real* x, __global const C* codes, __global const float* scale,    \
                       __global const float* zero, __global real* y, int n_count, int k_count, int group) { \
        const int out = get_global_id(0);                                                                \
        const int m = out / n_count, n = out % n_count, groups = k_count / group;                        \
        __global const real* xr = x + (long)m * k_count;                                                 \
        __global const C* row = codes + (long)n * k_count;                                               \
        float total = 0.0f;                                                                              \
        for (int g = 0; g < groups; ++g) {                                                               \
            float16 products16 = (float16)(0.0f), sum16 = (float16)(0.0f);                               \
            float products = 0.0f, sum = 0.0f;                                                           \
            const int end = (g + 1) * group;                                                             \
            int k = g * group;                                                                           \
            for (; k + 16 <= end; k += 16) {                                                             \
                const float16 v = LOAD16(xr + k);                                                        \
                products16 += v * convert_float16(vload16(0, row + k));                                  \
                sum16 += v;                                                                              \
            }                                                                                            \
            for (; k < end; ++k) {                                                                       \
                const float v = LOAD(xr, k);                                                             \
                products += v * (float)row[k];                                                           \
                sum += v;                                                                                \
            }                                                                                            \
            products += sum_lanes16(products16);                                                         \
            sum += sum_lanes16(sum16);                                                                   \
            total += scale[n * groups + g] * (products - zero[n * groups + g] * sum);                    \
        }                                                                                                \
        STORE(y, out, total);                                                                            \
    }
COMPRESSED_MATMUL_ROWS(compressed_matmul_rows_u8, uchar, uchar16)
COMPRESSED_MATMUL_ROWS(compressed_matmul_rows_i8, char, char16)

// A Gather of compressed weights' rows (an embedding table, tied to the head's weights): y[i, k] is
// row indices[i]'s code k dequantized; a negative index counts from the end, one out of range gives
// zeros (Gather-8).
#define COMPRESSED_GATHER(NAME, C, I)                                                                    \
    __kernel void NAME(__global const C* codes, __global const I* indices, __global const float* scale, \
                       __global const float* zero, __global real* y, int n_count, int k_count, int group) { \
        const int i = get_global_id(0);                                                                  \
        const int row = i / k_count, k = i % k_count, groups = k_count / group;                          \
        long n = (long)indices[row];                                                                     \
        if (n < 0) n += n_count;                                                                         \
        if (n < 0 || n >= n_count) {                                                                     \
            STORE(y, i, 0.0f);                                                                           \
            return;                                                                                      \
        }                                                                                                \
        const int g = (int)n * groups + k / group;                                                       \
        STORE(y, i, ((float)codes[n * k_count + k] - zero[g]) * scale[g]);                               \
    }
COMPRESSED_GATHER(compressed_gather_u8_i32, uchar, int)
COMPRESSED_GATHER(compressed_gather_u8_i64, uchar, long)
COMPRESSED_GATHER(compressed_gather_i8_i32, char, int)
COMPRESSED_GATHER(compressed_gather_i8_i64, char, long)
