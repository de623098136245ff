// Translators of ONNX's sliding-window ops: Conv, ConvTranspose, MaxPool, AveragePool, LpPool,
// their Global* forms, and MaxUnpool (ConvInteger and QLinearConv are in quantization.cpp). They
// map onto Convolution, GroupConvolution, their BackpropData forms, MaxPool-8 and AvgPool-1 as
// OpenVINO's ONNX frontend does; ONNX's flat `pads` becomes pads_begin/pads_end, and
// ConvTranspose's padding rules are resolved here into explicit pads so that the Mosaic op needs
// no output_shape input.
#include "readers/onnx/onnx_node_context.hpp"
#include "ops/nn_ops.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <string>

namespace mosaic::onnx_import {

namespace {

// Number of spatial axes of data [N, C, spatial...].
size_t spatial_rank(NodeContext& ctx, const Output& x) {
    if (ctx.rank(x) < 3)
        ctx.fail("input X must have rank >= 3 ([N, C, spatial...]), got shape " + to_string(ctx.shape(x)));
    return static_cast<size_t>(ctx.rank(x) - 2);
}

// A per-spatial-axis attribute with one value per axis (`fallback` repeated when absent).
std::vector<int64_t> spatial_ints(NodeContext& ctx, const char* name, size_t n, int64_t fallback) {
    std::vector<int64_t> v = ctx.attr_ints(name, std::vector<int64_t>(n, fallback));
    if (v.size() != n)
        ctx.fail(std::string("attribute '") + name + "' has " + std::to_string(v.size()) +
                 " values, expected one per spatial axis (" + std::to_string(n) + ")");
    return v;
}

// The window attributes shared by Conv and the pools, in Mosaic's terms.
struct Window {
    std::vector<int64_t> strides, dilations, pads_begin, pads_end;
    std::string auto_pad;  // explicit, same_upper, same_lower or valid
};

Window window_of(NodeContext& ctx, size_t n) {
    Window w;
    w.strides = spatial_ints(ctx, "strides", n, 1);
    w.dilations = spatial_ints(ctx, "dilations", n, 1);
    w.pads_begin.assign(n, 0);
    w.pads_end.assign(n, 0);
    const std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
    if (auto_pad == "NOTSET") {
        w.auto_pad = "explicit";
        const std::vector<int64_t> pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
        if (pads.size() != 2 * n)
            ctx.fail("attribute 'pads' has " + std::to_string(pads.size()) + " values, expected " +
                     std::to_string(2 * n) + " (begin and end of each spatial axis)");
        w.pads_begin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(n));
        w.pads_end.assign(pads.begin() + static_cast<std::ptrdiff_t>(n), pads.end());
    } else if (auto_pad == "SAME_UPPER") {
        w.auto_pad = "same_upper";
    } else if (auto_pad == "SAME_LOWER") {
        w.auto_pad = "same_lower";
    } else if (auto_pad == "VALID") {
        w.auto_pad = "valid";
    } else {
        ctx.fail("attribute 'auto_pad' is '" + auto_pad + "', expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
    }
    return w;
}

Attributes window_attrs(const Window& w) {
    Attributes a;
    a.set("strides", w.strides);
    a.set("dilations", w.dilations);
    a.set("pads_begin", w.pads_begin);
    a.set("pads_end", w.pads_end);
    a.set("auto_pad", w.auto_pad);
    return a;
}

// `values` reshaped to [1, C, 1, ...] so that it broadcasts over data of rank `rank` along axis 1.
Output per_channel(NodeContext& ctx, const Output& values, int64_t rank) {
    std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
    shape[1] = -1;
    return ctx.op("Reshape", {values, ctx.const_i64(shape)}, {{"special_zero", "false"}});
}

// Filters [A, B, k...] regrouped as [group, A / group, B, k...] for the grouped Mosaic ops.
Output grouped_filters(NodeContext& ctx, const Output& w, int64_t group) {
    const Shape& ws = ctx.shape(w);
    for (int64_t d : ws)
        if (d < 0) ctx.unsupported("grouped filters need a static shape, got " + to_string(ws));
    if (ws[0] % group != 0)
        ctx.fail("filter shape " + to_string(ws) + " has " + std::to_string(ws[0]) +
                 " channels, not divisible by group " + std::to_string(group));
    std::vector<int64_t> shape{group, ws[0] / group};
    shape.insert(shape.end(), ws.begin() + 1, ws.end());
    return ctx.op("Reshape", {w, ctx.const_i64(shape)}, {{"special_zero", "false"}});
}

Output add_bias(NodeContext& ctx, const Output& y) {
    if (!ctx.has_input(2)) return y;
    return ctx.op("Add", {y, per_channel(ctx, ctx.input(2), ctx.rank(y))});
}

int64_t group_attr(NodeContext& ctx) {
    const int64_t group = ctx.attr_int("group", 1);
    if (group < 1) ctx.fail("attribute 'group' must be positive, got " + std::to_string(group));
    return group;
}

Outputs conv(NodeContext& ctx) {
    const Output x = ctx.input(0), w = ctx.input(1);
    const size_t n = spatial_rank(ctx, x);
    const Attributes attrs = window_attrs(window_of(ctx, n));
    const int64_t group = group_attr(ctx);
    const Output y = group == 1 ? ctx.op("Convolution", {x, w}, attrs)
                                : ctx.op("GroupConvolution", {x, grouped_filters(ctx, w, group)}, attrs);
    return {add_bias(ctx, y)};
}

// ConvTranspose: ONNX derives the output size and the leading crop ("pads begin") from pads,
// output_padding, output_shape and auto_pad. Both are resolved here; the trailing size is then
// expressed as pads_end, or as output_padding when the output grows past the full result.
Outputs conv_transpose(NodeContext& ctx) {
    const Output x = ctx.input(0), w = ctx.input(1);
    const size_t n = spatial_rank(ctx, x);
    const Shape& xs = ctx.shape(x);
    const Shape& ws = ctx.shape(w);
    if (ws.size() != n + 2) ctx.fail("filter shape " + to_string(ws) + " must have rank " + std::to_string(n + 2));
    Window win = window_of(ctx, n);
    const std::vector<int64_t> output_padding = spatial_ints(ctx, "output_padding", n, 0);
    std::vector<int64_t> output_shape = ctx.attr_ints("output_shape", {});
    if (output_shape.size() == n + 2) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
    if (!output_shape.empty() && output_shape.size() != n)
        ctx.fail("attribute 'output_shape' must have one value per spatial axis (" + std::to_string(n) + ")");

    // In 128 bits: attributes of any int64 value (a pad of INT64_MIN was found by fuzzing) must give
    // a size that is refused, not a signed overflow. Products of two int64 and sums of a few of them
    // fit; what is kept must fit int64 again.
    using Wide = __int128;
    const auto narrow = [&](Wide v, const char* what, size_t axis) {
        if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max())
            ctx.fail(std::string(what) + " on spatial axis " + std::to_string(axis) +
                     " is out of the 64-bit range: check the strides, dilations, pads and output_shape");
        return static_cast<int64_t>(v);
    };
    const auto half_down = [](Wide v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };  // floor(v / 2)
    std::vector<int64_t> begin(n), end(n), extra(n, 0);
    for (size_t i = 0; i < n; ++i) {
        // The crops do not depend on the input's length but through output_shape: a dynamic length
        // is measured as 1 (its sizes then checked when the model's shapes are set).
        const bool dynamic = xs[i + 2] < 0;
        if (dynamic && !output_shape.empty())
            ctx.unsupported("output_shape with a dynamic input needs input X's spatial dimensions, got shape " + to_string(xs) +
                            "; give shapes with --shape or ReadOptions::input_shapes");
        const int64_t length = dynamic ? 1 : xs[i + 2];
        const Wide full = Wide{win.strides[i]} * (length - 1) + Wide{ws[i + 2] - 1} * win.dilations[i] + 1;
        Wide out = 0, first = 0;
        if (!output_shape.empty() || win.auto_pad == "same_upper" || win.auto_pad == "same_lower") {
            out = !output_shape.empty() ? Wide{output_shape[i]} : Wide{length} * win.strides[i];
            const Wide total = full + output_padding[i] - out;
            first = win.auto_pad == "same_upper" ? half_down(total) : total - half_down(total);
        } else if (win.auto_pad == "valid") {
            out = full + output_padding[i];
        } else {
            first = win.pads_begin[i];
            out = full + output_padding[i] - win.pads_begin[i] - win.pads_end[i];
        }
        begin[i] = narrow(first, "the leading crop", i);
        if (begin[i] < 0)
            ctx.unsupported("the output would start before the full transposed convolution (padding " +
                            std::to_string(begin[i]) + " on spatial axis " + std::to_string(i) + ")");
        const int64_t size = narrow(out, "the output size", i);
        if (size <= 0 && !dynamic) ctx.fail("output spatial axis " + std::to_string(i) + " would have size " + std::to_string(size));
        const Wide trailing = full - first - out;
        if (trailing < 0) extra[i] = narrow(-trailing, "the output padding", i);
        else end[i] = narrow(trailing, "the trailing crop", i);
    }
    Attributes attrs;
    attrs.set("strides", win.strides);
    attrs.set("dilations", win.dilations);
    attrs.set("pads_begin", begin);
    attrs.set("pads_end", end);
    attrs.set("auto_pad", "explicit");
    attrs.set("output_padding", extra);
    const int64_t group = group_attr(ctx);
    const Output y = group == 1 ? ctx.op("ConvolutionBackpropData", {x, w}, attrs)
                                : ctx.op("GroupConvolutionBackpropData", {x, grouped_filters(ctx, w, group)}, attrs);
    return {add_bias(ctx, y)};
}

std::vector<int64_t> kernel_shape(NodeContext& ctx, size_t n) {
    const std::vector<int64_t> k = ctx.attr_ints("kernel_shape", {});
    if (k.size() != n)
        ctx.fail("attribute 'kernel_shape' has " + std::to_string(k.size()) +
                 " values, expected one per spatial axis (" + std::to_string(n) + ")");
    return k;
}

Attributes pool_attrs(NodeContext& ctx, const Window& w, size_t n) {
    Attributes a = window_attrs(w);
    a.set("kernel", kernel_shape(ctx, n));
    // ONNX Runtime's ceil_mode drops a last window that would start in the end padding, as
    // PyTorch's does: OpenVINO's ceil_torch (pooling-14), not its ceil, which keeps it.
    a.set("rounding_type", ctx.attr_int("ceil_mode", 0) ? "ceil_torch" : "floor");
    return a;
}

// ONNX numbers MaxPool's Indices over the whole tensor, row-major; with storage_order 1 the
// spatial part is numbered column-major instead: the row-major index is split into its spatial
// coordinates and renumbered. A dynamic spatial size is read from the data's shape when it runs.
Output column_major_indices(NodeContext& ctx, const Output& indices, const Output& data) {
    const Shape& shape = ctx.shape(data);
    const size_t n = shape.size() - 2;
    std::optional<Output> data_shape;
    auto size = [&](size_t axis) {
        if (shape[axis] >= 0) return ctx.scalar_i64(shape[axis]);
        if (!data_shape) data_shape = ctx.shape_of(data);
        return ctx.op("Gather", {*data_shape, ctx.scalar_i64(static_cast<int64_t>(axis)), ctx.scalar_i64(0)},
                      {{"batch_dims", "0"}}, "opset8");
    };
    // The product of the spatial sizes in [first, last).
    auto product = [&](size_t first, size_t last) {
        Output p = ctx.scalar_i64(1);
        for (size_t d = first; d < last; ++d) p = ctx.op("Multiply", {p, size(d + 2)});
        return p;
    };
    Output rest = ctx.op("FloorMod", {indices, product(0, n)});
    Output result = ctx.op("Subtract", {indices, rest});  // the [N, C] part, times the spatial size
    for (size_t d = 0; d < n; ++d) {
        const Output row_stride = product(d + 1, n), col_stride = product(0, d);
        const Output coord = ctx.op("Divide", {rest, row_stride}, {{"m_pythondiv", "true"}});
        rest = ctx.op("FloorMod", {rest, row_stride});
        result = ctx.op("Add", {result, ctx.op("Multiply", {coord, col_stride})});
    }
    return result;
}

Outputs max_pool(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const size_t n = spatial_rank(ctx, x);
    Attributes attrs = pool_attrs(ctx, window_of(ctx, n), n);
    attrs.set("index_element_type", "i64");
    attrs.set("axis", int64_t{0});
    const Output y = ctx.op("MaxPool", {x}, attrs, "opset14");
    if (!ctx.has_output(1)) return {y};
    Output indices{y.node, 1};
    if (ctx.attr_int("storage_order", 0) != 0) indices = column_major_indices(ctx, indices, x);
    return {y, indices};
}

// With count_include_pad, ONNX averages over the part of each window inside the padded input;
// AvgPool divides by the whole kernel whenever there is padding, which differs for the windows
// that ceil_mode lets run past the end. The input is padded with zeros explicitly instead, and
// pooled excluding what lies beyond. Over the padded input, ceil rounding also keeps a last
// window that starts in the end padding, which ceil_mode drops: the result is cut to the shape
// of the pooling as declared (a ShapeOf that folds to a constant when the input's shape is known).
Output avg_pool_over_padded(NodeContext& ctx, const Output& x, Window w, size_t n) {
    Attributes declared = pool_attrs(ctx, w, n);
    declared.set("exclude-pad", true);
    const Output shape = ctx.shape_of(ctx.op("AvgPool", {x}, declared, "opset14"));
    std::vector<int64_t> begin{0, 0}, end{0, 0};
    begin.insert(begin.end(), w.pads_begin.begin(), w.pads_begin.end());
    end.insert(end.end(), w.pads_end.begin(), w.pads_end.end());
    const Output padded = ctx.op("Pad", {x, ctx.const_i64(begin), ctx.const_i64(end), ctx.scalar_of(ctx.type(x), 0)},
                                 {{"pad_mode", "constant"}});
    w.pads_begin.assign(n, 0);
    w.pads_end.assign(n, 0);
    Attributes attrs = pool_attrs(ctx, w, n);
    attrs.set("rounding_type", "ceil");
    attrs.set("exclude-pad", true);
    const Output pooled = ctx.op("AvgPool", {padded}, attrs);
    return ctx.op("Slice", {pooled, ctx.const_i64(std::vector<int64_t>(n + 2, 0)), shape,
                            ctx.const_i64(std::vector<int64_t>(n + 2, 1))}, {}, "opset8");
}

Outputs average_pool(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const size_t n = spatial_rank(ctx, x);
    const Window w = window_of(ctx, n);
    for (int64_t d : w.dilations)
        if (d != 1) ctx.unsupported("dilations other than 1 are not supported (AvgPool has none)");
    const bool include_pad = ctx.attr_int("count_include_pad", 0) != 0;
    bool padded = false;
    for (size_t i = 0; i < n; ++i) padded |= w.pads_begin[i] != 0 || w.pads_end[i] != 0;
    if (include_pad && padded && ctx.attr_int("ceil_mode", 0) != 0) return {avg_pool_over_padded(ctx, x, w, n)};
    Attributes attrs = pool_attrs(ctx, w, n);
    attrs.set("exclude-pad", !include_pad);
    return {ctx.op("AvgPool", {x}, attrs, "opset14")};
}

// The order p of the norm: a float attribute in LpPool-1 and GlobalLpPool-1 (opset 1), an integer
// from opset 2; 2 by default in both.
double lp_order(NodeContext& ctx) {
    return ctx.opset() < 2 ? ctx.attr_float("p", 2.0) : static_cast<double>(ctx.attr_int("p", 2));
}

// LpPool: (sum over the window of |x|^p)^(1/p). The sum is an AvgPool over |x|^p times the
// kernel size, taken over windows that all lie inside explicitly zero-padded data: the pads,
// plus what ceil_mode's last window reaches past them.
Outputs lp_pool(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const size_t n = spatial_rank(ctx, x);
    Window w = window_of(ctx, n);
    for (int64_t d : w.dilations)
        if (d != 1) ctx.unsupported("dilations other than 1 are not supported");
    const std::vector<int64_t> k = kernel_shape(ctx, n);
    const Shape& xs = ctx.shape(x);
    std::vector<int64_t> begin{0, 0}, end{0, 0};
    // The window arithmetic runs in 128 bits: a kernel_shape or pad near INT64_MAX overflowed it
    // (UBSan, found by fuzzing); sizes past 64 bits are refused.
    using Wide = __int128;
    auto narrow = [&](Wide v, size_t axis) {
        if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min())
            ctx.fail("the window on spatial axis " + std::to_string(axis) +
                     " has sizes beyond 64 bits; check kernel_shape, strides and pads");
        return static_cast<int64_t>(v);
    };
    for (size_t i = 0; i < n; ++i) {
        const int64_t in = xs[i + 2], s = w.strides[i];
        if (in < 0) ctx.unsupported("input X needs static spatial dimensions, got shape " + to_string(xs));
        if (k[i] < 1 || s < 1 || w.pads_begin[i] < 0 || w.pads_end[i] < 0)
            ctx.fail("spatial axis " + std::to_string(i) + " has kernel " + std::to_string(k[i]) + ", stride " +
                     std::to_string(s) + " and pads " + std::to_string(w.pads_begin[i]) + ", " +
                     std::to_string(w.pads_end[i]) + "; kernel_shape and strides must be positive, pads not negative");
        Wide out = 0;
        if (w.auto_pad == "same_upper" || w.auto_pad == "same_lower") {
            out = (Wide{in} + s - 1) / s;
            const int64_t total = narrow(std::max<Wide>(0, (out - 1) * s + k[i] - in), i);
            w.pads_begin[i] = w.auto_pad == "same_upper" ? total / 2 : total - total / 2;
            w.pads_end[i] = total - w.pads_begin[i];
        } else {
            const Wide span = Wide{in} + w.pads_begin[i] + w.pads_end[i] - k[i];
            if (span < 0) ctx.fail("kernel_shape is larger than the padded input on spatial axis " + std::to_string(i));
            // ceil_mode rounds as pool_attrs says (ceil_torch).
            out = ops::nn::window_count<Wide>(span, s, Wide{in} + w.pads_begin[i],
                                              ctx.attr_int("ceil_mode", 0) ? ops::nn::Rounding::ceil_torch : ops::nn::Rounding::floor);
        }
        narrow(out, i);  // the padded input, and so the output, must have a 64-bit size
        begin.push_back(w.pads_begin[i]);
        end.push_back(narrow(std::max<Wide>(0, (out - 1) * s + k[i] - in - w.pads_begin[i]), i));
    }
    const ElementType t = ctx.type(x);
    const double p = lp_order(ctx);
    const Output powered = ctx.op("Power", {ctx.op("Abs", {x}), ctx.scalar_of(t, p)});
    const Output padded = ctx.op("Pad", {powered, ctx.const_i64(begin), ctx.const_i64(end), ctx.scalar_of(t, 0)},
                                 {{"pad_mode", "constant"}});
    Attributes attrs;
    attrs.set("kernel", k);
    attrs.set("strides", w.strides);
    attrs.set("pads_begin", std::vector<int64_t>(n, 0));
    attrs.set("pads_end", std::vector<int64_t>(n, 0));
    attrs.set("auto_pad", "explicit");
    attrs.set("rounding_type", "floor");
    attrs.set("exclude-pad", true);
    // In double: the kernel's volume may pass int64 (each axis is at most the padded input).
    const double k_size = std::accumulate(k.begin(), k.end(), 1.0, [](double a, int64_t b) { return a * static_cast<double>(b); });
    const Output sum = ctx.op("Multiply", {ctx.op("AvgPool", {padded}, attrs), ctx.scalar_of(t, k_size)});
    return {ctx.op("Power", {sum, ctx.scalar_of(t, 1.0 / p)})};
}

Output spatial_axes(NodeContext& ctx, const Output& x) { return ctx.const_i64(range_from(2, ctx.rank(x))); }

Outputs global_average_pool(NodeContext& ctx) {
    const Output x = ctx.input(0);
    spatial_rank(ctx, x);
    return {ctx.op("ReduceMean", {x, spatial_axes(ctx, x)}, {{"keep_dims", "true"}})};
}

Outputs global_max_pool(NodeContext& ctx) {
    const Output x = ctx.input(0);
    spatial_rank(ctx, x);
    return {ctx.op("ReduceMax", {x, spatial_axes(ctx, x)}, {{"keep_dims", "true"}})};
}

Outputs global_lp_pool(NodeContext& ctx) {
    const Output x = ctx.input(0);
    spatial_rank(ctx, x);
    const ElementType t = ctx.type(x);
    const double p = lp_order(ctx);
    const Output powered = ctx.op("Power", {ctx.op("Abs", {x}), ctx.scalar_of(t, p)});
    const Output sum = ctx.op("ReduceSum", {powered, spatial_axes(ctx, x)}, {{"keep_dims", "true"}});
    return {ctx.op("Power", {sum, ctx.scalar_of(t, 1.0 / p)})};
}

// MaxUnpool scatters X into zeros at the flat positions in I, which number the elements of the
// tensor the pool read: of the shape that undoes the pool. A larger `output_shape` input pads
// that result at the end of each axis (what ONNX's reference does).
Outputs max_unpool(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const size_t n = spatial_rank(ctx, x);
    const Shape& xs = ctx.shape(x);
    const std::vector<int64_t> k = kernel_shape(ctx, n);
    const Window w = window_of(ctx, n);
    std::vector<int64_t> unpooled{xs[0], xs[1]}, grown, shift;
    for (size_t i = 0; i < n; ++i) {
        unpooled.push_back((xs[i + 2] - 1) * w.strides[i] + k[i] - w.pads_begin[i] - w.pads_end[i]);
        grown.push_back(w.strides[i]);
        shift.push_back(k[i] - w.pads_begin[i] - w.pads_end[i] - w.strides[i]);
    }
    const int64_t total = std::accumulate(unpooled.begin(), unpooled.end(), int64_t{1}, std::multiplies<>());
    const Output flat_shape = ctx.const_i64({-1});
    const Attributes reshape{{"special_zero", "false"}};
    const Output zero = ctx.scalar_of(ctx.type(x), 0);
    // With dynamic dims the unpooled shape is computed from X's when the model runs: the spatial
    // sizes times the strides, plus kernel - pads - stride (folded once the shape is known).
    Output unpooled_shape = ctx.const_i64(unpooled), element_count = ctx.const_i64({total});
    if (!is_static(xs)) {
        const Output shape = ctx.shape_of(x);
        auto slice = [&](int64_t from, int64_t to) {
            return ctx.op("Slice", {shape, ctx.const_i64({from}), ctx.const_i64({to}), ctx.const_i64({1}), ctx.const_i64({0})});
        };
        const Output spatial = ctx.op("Add", {ctx.op("Multiply", {slice(2, static_cast<int64_t>(n) + 2), ctx.const_i64(grown)}),
                                              ctx.const_i64(shift)});
        unpooled_shape = ctx.op("Concat", {slice(0, 2), spatial}, {{"axis", "0"}});
        element_count = ctx.op("ReduceProd", {unpooled_shape, ctx.const_i64({0})}, {{"keep_dims", "true"}});
    }
    const Output zeros = ctx.op("Broadcast", {zero, element_count}, {{"mode", "numpy"}});
    const Output indices = ctx.op("Reshape", {ctx.convert(ctx.input(1), ElementType::i64), flat_shape}, reshape);
    const Output updates = ctx.op("Reshape", {x, flat_shape}, reshape);
    const Output scattered = ctx.op("ScatterElementsUpdate", {zeros, indices, updates, ctx.scalar_i64(0)},
                                    {{"reduction", "none"}, {"use_init_val", "true"}});
    const Output y = ctx.op("Reshape", {scattered, unpooled_shape}, reshape);
    if (!ctx.has_input(2)) return {y};
    if (!is_static(xs)) ctx.unsupported("output_shape with an input of dynamic shape; give the input's shape");

    const std::vector<int64_t> out_shape = ctx.const_ints(2, "output_shape");
    if (out_shape.size() != unpooled.size())
        ctx.fail("output_shape must have " + std::to_string(unpooled.size()) + " values, got " +
                 std::to_string(out_shape.size()));
    std::vector<int64_t> grow(out_shape.size());
    for (size_t i = 0; i < grow.size(); ++i) {
        grow[i] = out_shape[i] - unpooled[i];
        if (grow[i] < 0)
            ctx.fail("output_shape is smaller than the unpooled shape " + to_string(Shape(unpooled)) + " on axis " +
                     std::to_string(i));
    }
    const Output begin = ctx.const_i64(std::vector<int64_t>(grow.size(), 0));
    return {ctx.op("Pad", {y, begin, ctx.const_i64(grow), zero}, {{"pad_mode", "constant"}})};
}

// Col2Im-18 over 2-D images (torch's fold, as MobileViTV2 uses it): OpenVINO's Col2Im-15, its pads
// [top, left, bottom, right] split into begin and end.
Outputs col2im(NodeContext& ctx) {
    // The image's size may be computed when the model runs (torch's fold to a map's own size, read
    // from its shape); its length, the number of spatial dimensions, must be 2.
    const Shape& image = ctx.shape(ctx.input(1));
    if (image.size() != 1 || image[0] != 2)
        ctx.unsupported("Col2Im with image_shape of shape " + to_string(image) + "; Mosaic's Col2Im takes 2 spatial dimensions");
    const std::vector<int64_t> pads = ctx.attr_ints("pads", {0, 0, 0, 0});
    if (pads.size() != 4) ctx.fail("attribute 'pads' must hold 4 values (begin and end of 2 axes), got " + std::to_string(pads.size()));
    Attributes a;
    a.set("strides", ctx.attr_ints("strides", {1, 1}));
    a.set("dilations", ctx.attr_ints("dilations", {1, 1}));
    a.set("pads_begin", std::vector<int64_t>{pads[0], pads[1]});
    a.set("pads_end", std::vector<int64_t>{pads[2], pads[3]});
    return {ctx.op("Col2Im", {ctx.input(0), ctx.input(1), ctx.input(2)}, a, "opset15")};
}

const TranslatorRegistration registration({
    {"Col2Im", col2im},
    {"Conv", conv},
    {"ConvTranspose", conv_transpose},
    {"MaxPool", max_pool},
    {"AveragePool", average_pool},
    {"LpPool", lp_pool},
    {"GlobalAveragePool", global_average_pool},
    {"GlobalMaxPool", global_max_pool},
    {"GlobalLpPool", global_lp_pool},
    {"MaxUnpool", max_unpool},
});

}  // namespace

}  // namespace mosaic::onnx_import
