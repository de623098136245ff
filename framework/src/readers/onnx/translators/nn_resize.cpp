// Translators of ONNX's Resize (opsets 10-19) and Upsample (opsets 1-9). Both become Interpolate-11, as
// OpenVINO's ONNX frontend does, wherever Interpolate computes what ONNX specifies. ONNX also
// defines what Interpolate cannot express: tf_crop_and_resize (a region of interest and an
// extrapolation value), exclude_outside, antialias, keep_aspect_ratio_policy, half_pixel_symmetric,
// and align_corners measured against the unrounded output length (scale * in) when scales are
// given. Those are built separably instead: for each resized axis, the taps (source indices and
// weights) of every output position are computed here in double precision, following ONNX's
// reference implementation, and applied with Gather, Multiply and Add.
#include "readers/onnx/onnx_node_context.hpp"

#include <algorithm>
#include <cmath>

namespace mosaic::onnx_import {

namespace {

struct ResizeSpec {
    std::string mode = "nearest";  // nearest, linear or cubic
    std::string transform = "half_pixel";
    std::string nearest_mode = "round_prefer_floor";
    std::string policy = "stretch";  // keep_aspect_ratio_policy
    double cubic_a = -0.75, extrapolation = 0.0;
    bool exclude_outside = false, antialias = false;
    bool sizes_given = false;
    std::vector<int64_t> axes;               // resized axes, normalised
    std::vector<int64_t> in, out;            // per entry of `axes`
    std::vector<double> scales;              // per entry of `axes`
    std::vector<double> roi_start, roi_end;  // per entry of `axes` (tf_crop_and_resize)
};

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Interpolate's mode name for ONNX's.
std::string interpolate_mode(const std::string& mode) { return mode == "linear" ? "linear_onnx" : mode; }

// Interpolate-11 over s.axes, its sizes or scales (as s.sizes_given says) read from `target`.
Output interpolate_by(NodeContext& ctx, const Output& x, const ResizeSpec& s, const Output& target) {
    Attributes attrs;
    attrs.set("mode", interpolate_mode(s.mode));
    attrs.set("shape_calculation_mode", s.sizes_given ? "sizes" : "scales");
    attrs.set("coordinate_transformation_mode", s.transform);
    attrs.set("nearest_mode", s.nearest_mode);
    attrs.set("antialias", false);
    attrs.set("pads_begin", std::vector<int64_t>{0});
    attrs.set("pads_end", std::vector<int64_t>{0});
    attrs.set("cube_coeff", s.cubic_a);
    return ctx.op("Interpolate", {x, target, ctx.const_i64(s.axes)}, attrs, "opset11");
}

Output interpolate(NodeContext& ctx, const Output& x, const ResizeSpec& s) {
    const auto count = static_cast<int64_t>(s.axes.size());
    return interpolate_by(ctx, x, s,
                          s.sizes_given ? ctx.const_i64(s.out) : ctx.const_of(ElementType::f32, s.scales, {count}));
}

// --- the separable form -------------------------------------------------------------------

// The taps of one output position: source indices (clamped into the axis) and their weights, or
// none when the position falls outside the region of interest and takes the extrapolation value.
struct Taps {
    std::vector<int64_t> index;
    std::vector<double> weight;
    bool extrapolate = false;
};

// The n positions of the edge-padded axis nearest to x (the smaller one first on ties), ascending,
// in unpadded coordinates: ONNX's reference pads by ceil(n/2) and searches the padded axis.
std::vector<int64_t> neighbors(double x, int64_t n, int64_t len) {
    const int64_t pad = (n + 1) / 2, limit = len + 2 * pad;
    const double xp = x + static_cast<double>(pad);
    const int64_t center = std::clamp<int64_t>(static_cast<int64_t>(std::floor(xp)), 0, limit - 1);
    std::vector<int64_t> candidates;
    for (int64_t i = std::max<int64_t>(0, center - n - 1); i <= std::min(limit - 1, center + n + 1); ++i)
        candidates.push_back(i);
    std::stable_sort(candidates.begin(), candidates.end(), [&](int64_t a, int64_t b) {
        return std::fabs(xp - static_cast<double>(a)) < std::fabs(xp - static_cast<double>(b));
    });
    candidates.resize(static_cast<size_t>(std::min<int64_t>(n, static_cast<int64_t>(candidates.size()))));
    std::sort(candidates.begin(), candidates.end());
    for (int64_t& c : candidates) c -= pad;
    return candidates;
}

double cubic_weight(double x, double a) {
    x = std::fabs(x);
    if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0;
}

// The weights of the neighbours of a source coordinate whose distance past the left neighbour is
// `ratio` (in (0, 1]).
std::vector<double> coefficients(const ResizeSpec& s, double ratio, double scale) {
    if (s.mode == "nearest") {
        if (ratio == 1.0) return {0, 1};
        bool right = false;
        if (s.nearest_mode == "round_prefer_floor") right = ratio > 0.5;
        else if (s.nearest_mode == "round_prefer_ceil") right = ratio >= 0.5;
        else if (s.nearest_mode == "ceil") right = true;
        return {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
    }
    std::vector<double> w;
    if (s.antialias && scale < 1.0) {
        // The filter is widened by 1 / scale and its weights normalised.
        const double reach = s.mode == "linear" ? 1.0 : 2.0;
        const auto start = static_cast<int64_t>(std::floor(-reach / scale) + 1);
        for (int64_t i = start; i < 2 - start; ++i) {
            const double arg = scale * (static_cast<double>(i) - ratio);
            w.push_back(s.mode == "linear" ? std::clamp(1 - std::fabs(arg), 0.0, 1.0) : cubic_weight(arg, s.cubic_a));
        }
        double sum = 0;
        for (double v : w) sum += v;
        for (double& v : w) v /= sum;
        return w;
    }
    if (s.mode == "linear") return {1 - ratio, ratio};
    return {cubic_weight(ratio + 1, s.cubic_a), cubic_weight(ratio, s.cubic_a), cubic_weight(1 - ratio, s.cubic_a),
            cubic_weight(2 - ratio, s.cubic_a)};
}

// Where output position x of axis entry i reads from, as ONNX's reference computes it.
double source_coordinate(const ResizeSpec& s, size_t i, double x, bool* outside) {
    const double scale = s.scales[i], in = static_cast<double>(s.in[i]);
    const double out_width = scale * in;  // unrounded, as the reference uses it
    const std::string& t = s.transform;
    if (t == "align_corners") return out_width == 1 ? 0.0 : x * (in - 1) / (out_width - 1);
    if (t == "asymmetric") return x / scale;
    // Unscaled axes are copied, as Interpolate, OpenVINO and ONNX Runtime do (ONNX's reference
    // no longer defines this deprecated mode).
    if (t == "tf_half_pixel_for_nn") return scale == 1.0 ? x : (x + 0.5) / scale;
    if (t == "pytorch_half_pixel") return out_width == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    if (t == "half_pixel_symmetric") {
        const double adjustment = static_cast<double>(s.out[i]) / out_width;
        return in / 2 * (1 - adjustment) + (x + 0.5) / scale - 0.5;
    }
    if (t == "tf_crop_and_resize") {
        const double start = s.roi_start[i], end = s.roi_end[i];
        const double v =
            (out_width == 1 ? (end - start) * (in - 1) / 2 : x * (end - start) * (in - 1) / (out_width - 1)) +
            start * (in - 1);
        *outside = v < 0 || v > in - 1;
        return v;
    }
    return (x + 0.5) / scale - 0.5;  // half_pixel
}

std::vector<Taps> axis_taps(const ResizeSpec& s, size_t i) {
    const int64_t len = s.in[i];
    std::vector<Taps> rows(static_cast<size_t>(s.out[i]));
    for (int64_t o = 0; o < s.out[i]; ++o) {
        Taps& row = rows[static_cast<size_t>(o)];
        const double x = source_coordinate(s, i, static_cast<double>(o), &row.extrapolate);
        if (row.extrapolate) continue;
        const double ratio = x == std::floor(x) ? 1.0 : x - std::floor(x);
        std::vector<double> w = coefficients(s, ratio, s.scales[i]);
        const std::vector<int64_t> idx = neighbors(x, static_cast<int64_t>(w.size()), len);
        if (s.exclude_outside) {
            double sum = 0;
            for (size_t k = 0; k < idx.size(); ++k) {
                if (idx[k] < 0 || idx[k] >= len) w[k] = 0;
                sum += w[k];
            }
            for (double& v : w) v /= sum;
        }
        for (size_t k = 0; k < idx.size(); ++k) {
            row.index.push_back(std::clamp<int64_t>(idx[k], 0, len - 1));
            row.weight.push_back(w[k]);
        }
    }
    return rows;
}

// Whether the taps copy the axis unchanged.
bool is_identity(const std::vector<Taps>& rows, int64_t len) {
    if (static_cast<int64_t>(rows.size()) != len) return false;
    for (size_t o = 0; o < rows.size(); ++o) {
        if (rows[o].extrapolate) return false;
        double own = 0;
        for (size_t k = 0; k < rows[o].index.size(); ++k) {
            if (rows[o].weight[k] == 0) continue;
            if (rows[o].index[k] != static_cast<int64_t>(o)) return false;
            own += rows[o].weight[k];
        }
        if (own != 1.0) return false;
    }
    return true;
}

// Resamples axis `axis` of x by `rows`: sum over k of Gather(x, index_k) * weight_k, then the
// extrapolation value where a position is outside the region of interest.
Output resample_axis(NodeContext& ctx, Output x, int64_t axis, const std::vector<Taps>& rows, const ResizeSpec& s) {
    const ElementType t = ctx.type(x);
    const auto count = static_cast<int64_t>(rows.size());
    Shape along(static_cast<size_t>(ctx.rank(x)), 1);
    along[static_cast<size_t>(axis)] = count;
    size_t taps = 0;
    for (const Taps& r : rows) taps = std::max(taps, r.index.size());
    const bool weighted = s.mode != "nearest";
    if (!weighted) taps = 1;
    Output sum;
    for (size_t k = 0; k < taps; ++k) {
        std::vector<int64_t> index(rows.size(), 0);
        std::vector<double> weight(rows.size(), 0.0);
        for (size_t o = 0; o < rows.size(); ++o) {
            const Taps& r = rows[o];
            if (r.extrapolate || k >= r.index.size()) continue;
            if (weighted) {
                index[o] = r.index[k], weight[o] = r.weight[k];
            } else {  // the one neighbour with weight 1
                for (size_t j = 0; j < r.index.size(); ++j)
                    if (r.weight[j] != 0) index[o] = r.index[j];
            }
        }
        Output term = ctx.op("Gather", {x, ctx.const_i64(index), ctx.scalar_i64(axis)});
        if (weighted) term = ctx.op("Multiply", {term, ctx.const_of(t, weight, along)});
        sum = k == 0 ? term : ctx.op("Add", {sum, term});
    }
    std::vector<double> outside(rows.size(), 0.0);
    bool any_outside = false;
    for (size_t o = 0; o < rows.size(); ++o) {
        outside[o] = rows[o].extrapolate ? 1 : 0;
        any_outside |= rows[o].extrapolate;
    }
    if (!any_outside) return sum;
    return ctx.op("Select",
                  {ctx.const_of(ElementType::boolean, outside, along), ctx.scalar_of(t, s.extrapolation), sum});
}

Output separable_resize(NodeContext& ctx, Output x, const ResizeSpec& s) {
    for (size_t i = s.axes.size(); i-- > 0;) {
        const std::vector<Taps> rows = axis_taps(s, i);
        if (is_identity(rows, s.in[i])) continue;
        x = resample_axis(ctx, x, s.axes[i], rows, s);
    }
    return x;
}

// Whether Interpolate-11 computes exactly what ONNX specifies for `s`.
bool interpolate_matches(const ResizeSpec& s) {
    if (s.transform == "tf_crop_and_resize" || s.transform == "half_pixel_symmetric") return false;
    if (s.exclude_outside || s.antialias || s.policy != "stretch") return false;
    for (size_t i = 0; i < s.axes.size(); ++i) {
        const double in = static_cast<double>(s.in[i]);
        // Interpolate measures align_corners against the rounded output length.
        if (s.transform == "align_corners" && !s.sizes_given && static_cast<double>(s.out[i]) != s.scales[i] * in)
            return false;
        // Interpolate maps a one-element output to 0, ONNX to -0.5; only cubic sees the difference.
        if (s.transform == "pytorch_half_pixel" && s.mode == "cubic" && s.out[i] == 1 && s.in[i] > 1) return false;
        // Interpolate sizes its output with a small epsilon (floor(in * (scale + 1e-6)) in single
        // precision); ONNX floors in * scale exactly.
        if (!s.sizes_given && s.scales[i] != 1.0 &&
            static_cast<int64_t>(static_cast<float>(s.in[i]) * (static_cast<float>(s.scales[i]) + 1.0e-6f)) != s.out[i])
            return false;
    }
    return true;
}

// --- reading the node ---------------------------------------------------------------------

// A constant input's values, or none when the input is absent or empty (ONNX marks an unused
// scales input with an empty tensor).
std::vector<double> optional_floats(NodeContext& ctx, size_t input, const char* what) {
    if (!ctx.has_input(input)) return {};
    if (shape_size(ctx.shape(ctx.input(input))) == 0) return {};
    return ctx.const_floats(input, what);
}

std::vector<int64_t> all_axes(int64_t rank) {
    std::vector<int64_t> v;
    for (int64_t i = 0; i < rank; ++i) v.push_back(i);
    return v;
}

// Output sizes and scales of the resized axes from either scales or sizes, as ONNX's reference
// derives them (floor(in * scale); or out / in, adjusted by keep_aspect_ratio_policy).
void resolve_sizes(NodeContext& ctx, ResizeSpec& s, const std::vector<double>& scales,
                   const std::vector<int64_t>& sizes) {
    const size_t n = s.axes.size();
    if (!sizes.empty()) {
        if (sizes.size() != n)
            ctx.fail("sizes has " + std::to_string(sizes.size()) + " values, expected " + std::to_string(n));
        s.sizes_given = true;
        s.out = sizes;
        for (size_t i = 0; i < n; ++i)
            s.scales.push_back(static_cast<double>(sizes[i]) / static_cast<double>(s.in[i]));
        if (s.policy == "stretch") return;
        double scale = s.scales[0];
        for (double v : s.scales) scale = s.policy == "not_larger" ? std::min(scale, v) : std::max(scale, v);
        for (size_t i = 0; i < n; ++i) {
            s.scales[i] = scale;
            s.out[i] = static_cast<int64_t>(scale * static_cast<double>(s.in[i]) + 0.5);
        }
        return;
    }
    if (scales.size() != n)
        ctx.fail("scales has " + std::to_string(scales.size()) + " values, expected " + std::to_string(n) +
                 " (or give sizes)");
    for (size_t i = 0; i < n; ++i) {
        if (!(scales[i] > 0)) ctx.fail("scales must be positive, got " + std::to_string(scales[i]));
        // ONNX's scales are f32; the product is taken in double as numpy does.
        const double scale = static_cast<double>(static_cast<float>(scales[i]));
        s.scales.push_back(scale);
        s.out.push_back(static_cast<int64_t>(std::floor(scale * static_cast<double>(s.in[i]))));
    }
}

// Integer data is interpolated (linear, cubic) in floating point and truncated back, as ONNX's
// reference does; Interpolate itself would round to nearest.
template <typename Build>
Output in_float(NodeContext& ctx, const Output& x, const std::string& mode, Build build) {
    const ElementType t = ctx.type(x);
    if (mode == "nearest" || is_floating(t)) return build(x);
    const ElementType wide = element_size(t) <= 2 ? ElementType::f32 : ElementType::f64;
    return ctx.convert(build(ctx.convert(x, wide)), t);
}

bool is_static_shape(NodeContext& ctx, const Output& x) {
    for (int64_t d : ctx.shape(x))
        if (d < 0) return false;
    return true;
}

// A scale whose product with any length below 2^16 is exact to 1/16: Interpolate's floor(in *
// (scale + 1e-6)) then equals ONNX's floor(in * scale) at every input length.
bool exact_scale(double scale) { return scale * 16 == std::floor(scale * 16); }

// Resize where the input's shape or the sizes are known only when the model runs (a detector's
// [?,3,?,?] input, sizes from the Shape of the tensor it upsamples to): one Interpolate-11 reading
// the sizes or scales as they are computed, which folds into a static one once the shapes are
// set. Only where Interpolate computes ONNX's result at every length; the rest needs the shapes,
// and says so.
Output resize_at_run_time(NodeContext& ctx, const Output& x, const ResizeSpec& s, bool sizes_given, const Output& target) {
    auto refuse = [&](const std::string& why) {
        ctx.unsupported(why + ": input X's shape and the " + (sizes_given ? "sizes" : "scales") +
                        " must be known when the model is read (X has shape " + to_string(ctx.shape(x)) +
                        "); give shapes with --shape or ReadOptions::input_shapes, or the inputs they depend on with "
                        "ReadOptions::input_values");
    };
    if (s.transform == "tf_crop_and_resize" || s.transform == "half_pixel_symmetric")
        refuse("coordinate_transformation_mode " + s.transform);
    if (s.exclude_outside || s.antialias) refuse(s.exclude_outside ? "exclude_outside" : "antialias");
    if (sizes_given && s.policy != "stretch") refuse("keep_aspect_ratio_policy " + s.policy);
    if (s.transform == "pytorch_half_pixel" && s.mode == "cubic") refuse("cubic pytorch_half_pixel");
    if (!sizes_given) {
        const ops::KnownValue* scales = ctx.value(target);
        if (!scales) refuse("scales computed when the model runs");
        for (double v : scales->as_floats())
            if (!(v > 0) || !exact_scale(v) || s.transform == "align_corners")
                refuse(s.transform == "align_corners" ? "align_corners with scales" : "the scale " + std::to_string(v));
    }
    ResizeSpec run = s;
    run.sizes_given = sizes_given;
    return interpolate_by(ctx, x, run, ctx.convert(target, sizes_given ? ElementType::i64 : ElementType::f32));
}

void require_static(NodeContext& ctx, const Output& x) {
    if (!is_static_shape(ctx, x)) ctx.unsupported("input X needs a static shape, got " + to_string(ctx.shape(x)));
}

Outputs resize_11(NodeContext& ctx) {
    const Output x = ctx.input(0);
    const int64_t rank = ctx.rank(x);
    ResizeSpec s;
    s.mode = lower(ctx.attr_string("mode", "nearest"));
    if (s.mode != "nearest" && s.mode != "linear" && s.mode != "cubic")
        ctx.fail("attribute 'mode' is '" + s.mode + "', expected nearest, linear or cubic");
    s.transform = lower(ctx.attr_string("coordinate_transformation_mode", "half_pixel"));
    static const char* transforms[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                                       "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
    if (std::find(std::begin(transforms), std::end(transforms), s.transform) == std::end(transforms))
        ctx.fail("attribute 'coordinate_transformation_mode' has unknown value '" + s.transform + "'");
    s.nearest_mode = lower(ctx.attr_string("nearest_mode", "round_prefer_floor"));
    if (s.nearest_mode != "round_prefer_floor" && s.nearest_mode != "round_prefer_ceil" && s.nearest_mode != "floor" &&
        s.nearest_mode != "ceil")
        ctx.fail("attribute 'nearest_mode' has unknown value '" + s.nearest_mode + "'");
    s.policy = lower(ctx.attr_string("keep_aspect_ratio_policy", "stretch"));
    if (s.policy != "stretch" && s.policy != "not_larger" && s.policy != "not_smaller")
        ctx.fail("attribute 'keep_aspect_ratio_policy' has unknown value '" + s.policy + "'");
    s.cubic_a = ctx.attr_float("cubic_coeff_a", -0.75);
    s.exclude_outside = ctx.attr_int("exclude_outside", 0) != 0;
    s.antialias = ctx.attr_int("antialias", 0) != 0 && s.mode != "nearest";
    s.extrapolation = ctx.attr_float("extrapolation_value", 0.0);

    s.axes = all_axes(rank);
    if (ctx.has_attr("axes")) {
        s.axes.clear();
        for (int64_t a : ctx.attr_ints("axes")) {
            if (a < -rank || a >= rank) ctx.fail("attribute 'axes' names axis " + std::to_string(a) + " of a rank-" +
                                                 std::to_string(rank) + " input");
            s.axes.push_back(a < 0 ? a + rank : a);
        }
    }
    for (int64_t a : s.axes) s.in.push_back(ctx.shape(x)[static_cast<size_t>(a)]);

    const bool sizes_given = ctx.has_input(3) && shape_size(ctx.shape(ctx.input(3))) != 0;
    if (!is_static_shape(ctx, x) || (sizes_given && !ctx.value(ctx.input(3)))) {
        if (!sizes_given && !(ctx.has_input(2) && shape_size(ctx.shape(ctx.input(2))) != 0))
            ctx.fail("needs either scales or sizes");
        return {in_float(ctx, x, s.mode, [&](const Output& v) {
            return resize_at_run_time(ctx, v, s, sizes_given, ctx.input(sizes_given ? 3 : 2));
        })};
    }
    const std::vector<double> scales = optional_floats(ctx, 2, "scales");
    std::vector<int64_t> sizes;
    if (sizes_given) sizes = ctx.const_ints(3, "sizes");
    if (scales.empty() && sizes.empty()) ctx.fail("needs either scales or sizes");
    if (!scales.empty() && !sizes.empty()) ctx.fail("has both scales and sizes; give only one");
    resolve_sizes(ctx, s, scales, sizes);

    if (s.transform == "tf_crop_and_resize") {
        const std::vector<double> roi = optional_floats(ctx, 1, "roi");
        const size_t n = s.axes.size();
        if (roi.size() != 2 * n)
            ctx.fail("tf_crop_and_resize needs roi with " + std::to_string(2 * n) +
                     " values (starts, then ends), got " + std::to_string(roi.size()));
        s.roi_start.assign(roi.begin(), roi.begin() + static_cast<std::ptrdiff_t>(n));
        s.roi_end.assign(roi.begin() + static_cast<std::ptrdiff_t>(n), roi.end());
    }
    return {in_float(ctx, x, s.mode, [&](const Output& v) {
        return interpolate_matches(s) ? interpolate(ctx, v, s) : separable_resize(ctx, v, s);
    })};
}

// Resize-10 and Upsample: scales only, asymmetric coordinates, and for nearest the "simple"
// rounding (floor when enlarging) that OpenVINO and ONNX Runtime use for these opsets.
Output resize_by_scales(NodeContext& ctx, const Output& x, const std::vector<double>& scales) {
    require_static(ctx, x);
    std::string mode = lower(ctx.attr_string("mode", "nearest"));
    if (mode == "bilinear") mode = "linear";
    if (mode != "nearest" && mode != "linear")
        ctx.fail("attribute 'mode' is '" + mode + "', expected nearest or linear");
    if (static_cast<int64_t>(scales.size()) != ctx.rank(x))
        ctx.fail("scales has " + std::to_string(scales.size()) + " values for a rank-" + std::to_string(ctx.rank(x)) +
                 " input");
    ResizeSpec s;
    s.mode = mode;
    s.transform = "asymmetric";
    s.nearest_mode = "simple";
    s.axes = all_axes(ctx.rank(x));
    s.scales = scales;
    return in_float(ctx, x, s.mode, [&](const Output& v) { return interpolate(ctx, v, s); });
}

Outputs resize_10(NodeContext& ctx) {
    if (ctx.opset() >= 11) return resize_11(ctx);
    return {resize_by_scales(ctx, ctx.input(0), ctx.const_floats(1, "scales"))};
}

// Upsample's scales: an input from opset 9, the `scales` attribute in Upsample-7, and in Upsample-1
// (opsets before 7) the height_scale and width_scale attributes of a 4D [N, C, H, W] input.
std::vector<double> upsample_scales(NodeContext& ctx) {
    if (ctx.opset() >= 9) return ctx.const_floats(1, "scales");
    if (ctx.opset() >= 7) {
        if (!ctx.has_attr("scales")) ctx.fail("attribute 'scales' is missing");
        return ctx.attr_floats("scales");
    }
    if (!ctx.has_attr("height_scale") || !ctx.has_attr("width_scale"))
        ctx.fail("attributes 'height_scale' and 'width_scale' are required before opset 7");
    if (ctx.rank(ctx.input(0)) != 4)
        ctx.fail("input X must be 4D ([N, C, H, W]) before opset 7, got shape " + to_string(ctx.shape(ctx.input(0))));
    return {1.0, 1.0, ctx.attr_float("height_scale", 1.0), ctx.attr_float("width_scale", 1.0)};
}

Outputs upsample(NodeContext& ctx) { return {resize_by_scales(ctx, ctx.input(0), upsample_scales(ctx))}; }

const TranslatorRegistration registration({
    {"Resize", resize_10},
    {"Upsample", upsample},
});

}  // namespace

}  // namespace mosaic::onnx_import
