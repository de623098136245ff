// Helpers shared by the nn group's schemas (declared in nn_ops.hpp).
#include "ops/nn_ops.hpp"

#include <algorithm>
#include <cctype>

namespace mosaic::ops::nn {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Window arithmetic on attributes a model may set to anything (a pad, stride or dilation of
// INT64_MAX): an overflow is refused naming the axis instead of wrapping (undefined behaviour).
int64_t checked_sum(const InferContext& ctx, int64_t a, int64_t b, size_t axis) {
    int64_t sum = 0;
    ctx.check(!__builtin_add_overflow(a, b, &sum), "the padded input or window on spatial axis " + std::to_string(axis) +
                                                       " overflows 64 bits (" + std::to_string(a) + " + " +
                                                       std::to_string(b) + "); check pads, kernel and dilations");
    return sum;
}

// dilation * (kernel - 1) + 1: the extent of a dilated kernel.
int64_t dilated_extent(const InferContext& ctx, int64_t kernel, int64_t dilation, size_t axis) {
    int64_t scaled = 0;
    ctx.check(!__builtin_mul_overflow(dilation, kernel - 1, &scaled),
              "kernel " + std::to_string(kernel) + " with dilation " + std::to_string(dilation) + " on spatial axis " +
                  std::to_string(axis) + " overflows 64 bits");
    return checked_sum(ctx, scaled, 1, axis);
}

}  // namespace

std::string join(const std::vector<int64_t>& values) {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
    return out;
}

std::string choice_attr(const InferContext& ctx, const char* name, std::initializer_list<const char*> choices,
                        std::optional<std::string> fallback) {
    const std::string* raw = ctx.attrs().find(name);
    if (!raw) {
        ctx.check(fallback.has_value(), std::string("missing attribute '") + name + "'");
        return *fallback;
    }
    const std::string value = lower(*raw);
    std::string allowed;
    for (const char* c : choices) {
        if (value == c) return value;
        allowed += std::string(allowed.empty() ? "" : ", ") + c;
    }
    ctx.fail(std::string("attribute '") + name + "' has unsupported value '" + *raw + "', expected one of: " +
             allowed);
}

AutoPad auto_pad_attr(const InferContext& ctx) {
    const std::string v =
        choice_attr(ctx, "auto_pad", {"explicit", "notset", "same_upper", "same_lower", "valid"}, "explicit");
    if (v == "same_upper") return AutoPad::same_upper;
    if (v == "same_lower") return AutoPad::same_lower;
    if (v == "valid") return AutoPad::valid;
    return AutoPad::explicit_pads;
}

std::vector<int64_t> spatial_attr(const InferContext& ctx, const char* name, size_t count, int64_t min_value,
                                  std::optional<int64_t> fallback) {
    if (!ctx.attrs().has(name)) {
        ctx.check(fallback.has_value(), std::string("missing attribute '") + name + "'");
        return std::vector<int64_t>(count, *fallback);
    }
    std::vector<int64_t> values = ctx.attrs().get_ints(name);
    ctx.check(values.size() == count, std::string("attribute '") + name + "' has " + std::to_string(values.size()) +
                                          " values (" + join(values) + "), expected one per spatial axis (" +
                                          std::to_string(count) + ")");
    for (int64_t v : values)
        ctx.check(v >= min_value, std::string("attribute '") + name + "' = " + join(values) +
                                      " has a value below " + std::to_string(min_value));
    return values;
}

Padding forward_padding(const InferContext& ctx, AutoPad auto_pad, const Shape& in_spatial,
                        const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                        const std::vector<int64_t>& dilations) {
    const size_t n = in_spatial.size();
    Padding p{std::vector<int64_t>(n, 0), std::vector<int64_t>(n, 0)};
    if (auto_pad == AutoPad::explicit_pads) {
        p.begin = spatial_attr(ctx, "pads_begin", n, 0);
        p.end = spatial_attr(ctx, "pads_end", n, 0);
    } else if (auto_pad != AutoPad::valid) {
        for (size_t i = 0; i < n; ++i) {
            if (in_spatial[i] < 0) continue;
            const int64_t out = in_spatial[i] / strides[i] + (in_spatial[i] % strides[i] != 0 ? 1 : 0);
            const int64_t dilated = dilated_extent(ctx, kernel[i], dilations[i], i);
            const int64_t total = std::max<int64_t>(0, checked_sum(ctx, (out - 1) * strides[i], dilated, i) - in_spatial[i]);
            const int64_t small = total / 2;
            p.begin[i] = auto_pad == AutoPad::same_upper ? small : total - small;
            p.end[i] = total - p.begin[i];
        }
    }
    return p;
}

Rounding rounding_attr(const InferContext& ctx, bool with_torch) {
    const std::string v = with_torch ? choice_attr(ctx, "rounding_type", {"floor", "ceil", "ceil_torch"}, "floor")
                                     : choice_attr(ctx, "rounding_type", {"floor", "ceil"}, "floor");
    if (v == "ceil") return Rounding::ceil;
    if (v == "ceil_torch") return Rounding::ceil_torch;
    return Rounding::floor;
}

int64_t window_output_dim(const InferContext& ctx, int64_t in, int64_t pad_begin, int64_t pad_end, int64_t kernel,
                          int64_t stride, int64_t dilation, Rounding rounding, size_t axis) {
    if (in < 0) return kDynamicDim;
    const int64_t padded = checked_sum(ctx, checked_sum(ctx, in, pad_begin, axis), pad_end, axis);
    const int64_t dilated = dilated_extent(ctx, kernel, dilation, axis);
    ctx.check(dilated <= padded, "window of size " + std::to_string(dilated) + " (kernel " + std::to_string(kernel) +
                                     ", dilation " + std::to_string(dilation) + ") is larger than the padded input " +
                                     std::to_string(padded) + " on spatial axis " + std::to_string(axis));
    const int64_t span = padded - dilated;
    return window_count<int64_t>(span, stride, in + pad_begin, rounding);
}

void check_floating(const InferContext& ctx, size_t input, const char* what) {
    const ElementType t = ctx.input_type(input);
    ctx.check(is_floating(t), std::string(what) + " (input " + std::to_string(input) +
                                  ") must have a floating-point type, got " + to_string(t));
}

void check_numeric(const InferContext& ctx, size_t input, const char* what) {
    const ElementType t = ctx.input_type(input);
    ctx.check(t != ElementType::boolean && t != ElementType::undefined,
              std::string(what) + " (input " + std::to_string(input) + ") must have a numeric type, got " +
                  to_string(t));
}

void check_integer(const InferContext& ctx, size_t input, const char* what) {
    const ElementType t = ctx.input_type(input);
    ctx.check(is_integral(t), std::string(what) + " (input " + std::to_string(input) +
                                  ") must have an integer type, got " + to_string(t));
}

void check_same_type(const InferContext& ctx, size_t a, size_t b) {
    ctx.check(ctx.input_type(a) == ctx.input_type(b),
              "inputs " + std::to_string(a) + " and " + std::to_string(b) + " must have the same element type, got " +
                  to_string(ctx.input_type(a)) + " and " + to_string(ctx.input_type(b)));
}

void check_rank(const InferContext& ctx, size_t input, const char* what, int64_t min_rank, int64_t max_rank) {
    const auto rank = static_cast<int64_t>(ctx.input_shape(input).size());
    const bool ok = rank >= min_rank && (max_rank < 0 || rank <= max_rank);
    std::string expected = max_rank < 0          ? "at least " + std::to_string(min_rank)
                           : max_rank == min_rank ? std::to_string(min_rank)
                                                  : std::to_string(min_rank) + " to " + std::to_string(max_rank);
    ctx.check(ok, std::string(what) + " (input " + std::to_string(input) + ") must have rank " + expected +
                      ", got shape " + to_string(ctx.input_shape(input)));
}

std::vector<int64_t> normalize_axes(const InferContext& ctx, const std::vector<int64_t>& axes, int64_t rank,
                                    const char* what) {
    std::vector<int64_t> out;
    for (int64_t a : axes) {
        const int64_t n = normalize_axis(ctx, a, rank, what);
        ctx.check(std::find(out.begin(), out.end(), n) == out.end(),
                  std::string(what) + " " + join(axes) + " name axis " + std::to_string(n) + " twice");
        out.push_back(n);
    }
    return out;
}

}  // namespace mosaic::ops::nn
