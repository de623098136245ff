// The activations (kernel_interface.h's ACT_* codes), standalone (eltwise.cl's unary_f32) and fused
// after a binary op, a convolution or a MatMul (epilogue.cl).
//
// activate() on one float and activate16() on 16 (a row of the tiled GEMM's register tile), from
// one definition: select(else, then, condition) picks per lane for vectors as for scalars.
#define MOSAIC_DEFINE_ACTIVATE(NAME, T)                                                                      \
    inline T NAME##_softplus(T x) { return select(log1p(exp(x)), x, x > 20.0f); }                             \
    inline T NAME(int kind, T x, float a, float b) {                                                          \
        switch (kind) {                                                                                       \
            case ACT_RELU: return fmax(x, 0.0f);                                                              \
            case ACT_CLAMP: return fmin(fmax(x, a), b);                                                       \
            case ACT_SIGMOID: return 1.0f / (1.0f + exp(-x));                                                 \
            case ACT_TANH: return tanh(x);                                                                    \
            case ACT_ELU: return select(a * (exp(x) - 1.0f), x, x > 0.0f);                                    \
            case ACT_GELU_ERF: return 0.5f * x * (1.0f + erf(x * 0.70710678118654752f));                      \
            case ACT_GELU_TANH: return 0.5f * x * (1.0f + tanh(0.79788456080286536f * (x + 0.044715f * x * x * x))); \
            case ACT_SWISH: return x / (1.0f + exp(-a * x));                                                  \
            case ACT_HSWISH: return x * fmin(fmax(x + 3.0f, 0.0f), 6.0f) / 6.0f;                              \
            case ACT_HSIGMOID: return fmin(fmax(x + 3.0f, 0.0f), 6.0f) / 6.0f;                                \
            case ACT_MISH: return x * tanh(NAME##_softplus(x));                                               \
            case ACT_SOFTPLUS: return NAME##_softplus(x);                                                     \
            case ACT_EXP: return exp(x);                                                                      \
            case ACT_LOG: return log(x);                                                                      \
            case ACT_SQRT: return sqrt(x);                                                                    \
            case ACT_ABS: return fabs(x);                                                                     \
            case ACT_NEGATIVE: return -x;                                                                     \
            case ACT_ERF: return erf(x);                                                                      \
            case ACT_FLOOR: return floor(x);                                                                  \
            case ACT_CEIL: return ceil(x);                                                                    \
            case ACT_LINEAR: return a * x + b;                                                                \
            case ACT_SIN: return sin(x);                                                                      \
            case ACT_COS: return cos(x);                                                                      \
            case ACT_RECIPROCAL: return 1.0f / x;                                                             \
            case ACT_SIGN: return select(select((T)(0.0f), (T)(-1.0f), x < 0.0f), (T)(1.0f), x > 0.0f);       \
            case ACT_LEAKY: return select(x, a * x, x < 0.0f);                                                \
            case ACT_HARD_SIGMOID: return fmin(fmax(a * x + b, 0.0f), 1.0f);                                  \
            case ACT_SELU: return b * select(a * (exp(x) - 1.0f), x, x > 0.0f);                               \
            case ACT_SQUARE: return x * x;                                                                    \
            case ACT_POW: return pow(x, (T)(a));                                                              \
            case ACT_TAN: return tan(x);                                                                      \
            case ACT_ASIN: return asin(x);                                                                    \
            case ACT_ACOS: return acos(x);                                                                    \
            case ACT_ATAN: return atan(x);                                                                    \
            case ACT_SINH: return sinh(x);                                                                    \
            case ACT_COSH: return cosh(x);                                                                    \
            case ACT_ASINH: return asinh(x);                                                                  \
            case ACT_ACOSH: return acosh(x);                                                                  \
            case ACT_ATANH: return atanh(x);                                                                  \
            case ACT_ROUND_EVEN: return rint(x);                                                              \
            case ACT_ROUND_AWAY: return round(x);                                                             \
            case ACT_DIVIDE: return x / a;                                                                    \
            default: return x;                                                                                \
        }                                                                                                     \
    }
MOSAIC_DEFINE_ACTIVATE(activate, float)
MOSAIC_DEFINE_ACTIVATE(activate16, float16)

// activate16() over `count` vectors (the rows of the tiled GEMM's register tile, a depthwise
// convolution's output row), the kind tested once rather than per vector: out of line, each call
// spilled its vector and switched on the kind, and a tile's stores cost as much as its multiply at
// depth 64 (ResNet-50's first-stage 1x1 convolutions). Relu and Clamp, the activations CNNs fuse,
// run inline; the others cost an exp or more per value anyway.
inline void activate_rows16(int kind, float a, float b, float16* v, int count) {
    switch (kind) {
        case ACT_NONE: return;
        case ACT_RELU:
            for (int r = 0; r < count; ++r) v[r] = fmax(v[r], 0.0f);
            return;
        case ACT_CLAMP:
            for (int r = 0; r < count; ++r) v[r] = fmin(fmax(v[r], a), b);
            return;
        default:
            for (int r = 0; r < count; ++r) v[r] = activate16(kind, v[r], a, b);
    }
}
