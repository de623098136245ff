// Reference kernels of Interpolate-4 and Interpolate-11 in the modes nearest, linear (with
// antialias), linear_onnx and cubic, following OpenVINO's reference: coordinates are mapped in
// single precision, the data is zero-padded by pads_begin/pads_end first, and integer results are
// rounded to nearest (saturating).
#include "nn_kernels.hpp"

#include <mosaic/reference/interpolation.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace mosaic::reference::nn {

namespace {

enum class Mode { nearest, linear, linear_onnx, cubic };
enum class Transform { half_pixel, pytorch_half_pixel, asymmetric, tf_half_pixel_for_nn, align_corners };
enum class Nearest { round_prefer_floor, round_prefer_ceil, floor, ceil, simple };

struct Resize {
    Mode mode = Mode::nearest;
    Transform transform = Transform::half_pixel;
    Nearest nearest = Nearest::round_prefer_floor;
    bool antialias = false;
    float cube_coeff = -0.75f;
    Shape in, out;                  // in: the padded data shape
    std::vector<int64_t> axes;      // interpolated axes
    std::vector<float> scales;      // one per entry of `axes`
    std::vector<float> all_scales;  // one per data axis, 1 where not interpolated
};

template <typename E, size_t N>
E parse(const KernelArgs& args, const char* name, const char* fallback, const std::array<const char*, N>& names) {
    const std::string v = lower_attr(args, name, fallback);
    for (size_t i = 0; i < N; ++i)
        if (v == names[i]) return static_cast<E>(i);
    throw std::runtime_error(std::string(args.op_type) + ": unsupported " + name + " '" + v + "'");
}

Resize setup(const KernelArgs& args, bool v11) {
    Resize r;
    const std::string mode = lower_attr(args, "mode", "nearest");
    if (mode.find("pillow") != std::string::npos)
        throw std::runtime_error("Interpolate: mode '" + mode + "' is not implemented");
    r.mode = parse<Mode>(args, "mode", "nearest",
                         std::array<const char*, 4>{"nearest", "linear", "linear_onnx", "cubic"});
    r.transform = parse<Transform>(args, "coordinate_transformation_mode", "half_pixel",
                                   std::array<const char*, 5>{"half_pixel", "pytorch_half_pixel", "asymmetric",
                                                              "tf_half_pixel_for_nn", "align_corners"});
    r.nearest = parse<Nearest>(args, "nearest_mode", "round_prefer_floor",
                               std::array<const char*, 5>{"round_prefer_floor", "round_prefer_ceil", "floor",
                                                          "ceil", "simple"});
    r.antialias = args.attrs.get_bool("antialias", false);
    r.cube_coeff = static_cast<float>(args.attrs.get_float("cube_coeff", -0.75));

    const Shape& data = args.inputs.at(0).shape;
    const size_t rank = data.size();
    auto pads_begin = args.attrs.get_ints("pads_begin", {});
    auto pads_end = args.attrs.get_ints("pads_end", {});
    pads_begin.resize(rank, 0);
    pads_end.resize(rank, 0);
    r.in = data;
    for (size_t i = 0; i < rank; ++i) r.in[i] += pads_begin[i] + pads_end[i];
    r.out = args.outputs.at(0).shape;

    const size_t axes_port = v11 ? 2 : 3, scales_port = v11 ? 1 : 2;
    if (args.inputs.size() > axes_port) {
        for (int64_t a : read_ints(args.inputs[axes_port])) r.axes.push_back(a < 0 ? a + static_cast<int64_t>(rank) : a);
    } else {
        for (size_t i = 0; i < rank; ++i) r.axes.push_back(static_cast<int64_t>(i));
    }
    const bool use_scales = lower_attr(args, "shape_calculation_mode", "sizes") == "scales";
    if (use_scales) {
        for (double s : read_floats(args.inputs.at(scales_port))) r.scales.push_back(static_cast<float>(s));
    } else {
        for (int64_t a : r.axes)
            r.scales.push_back(static_cast<float>(r.out[static_cast<size_t>(a)]) /
                               static_cast<float>(r.in[static_cast<size_t>(a)]));
    }
    if (r.scales.size() != r.axes.size())
        throw std::runtime_error("Interpolate: the number of scales does not match the number of axes");
    r.all_scales.assign(rank, 1.0f);
    for (size_t i = 0; i < r.axes.size(); ++i) r.all_scales[static_cast<size_t>(r.axes[i])] = r.scales[i];
    return r;
}

// The input coordinate that output coordinate x of data axis `dim` maps to.
float source_coordinate(const Resize& r, size_t dim, float x) {
    const float scale = r.all_scales[dim];
    const auto len_out = static_cast<float>(r.out[dim]), len_in = static_cast<float>(r.in[dim]);
    if (scale == 1.0f || len_out == len_in) return x;
    switch (r.transform) {
        case Transform::pytorch_half_pixel: return len_out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
        case Transform::asymmetric: return x / scale;
        case Transform::tf_half_pixel_for_nn: return (x + 0.5f) / scale;
        case Transform::align_corners: return len_out == 1 ? 0.0f : x * (len_in - 1) / (len_out - 1);
        case Transform::half_pixel: break;
    }
    return (x + 0.5f) / scale - 0.5f;
}

int64_t nearest_pixel(Nearest mode, float x, bool downsample) {
    switch (mode) {
        case Nearest::round_prefer_ceil: return static_cast<int64_t>(std::round(x));
        case Nearest::floor: return static_cast<int64_t>(std::floor(x));
        case Nearest::ceil: return static_cast<int64_t>(std::ceil(x));
        case Nearest::simple: return downsample ? static_cast<int64_t>(std::ceil(x)) : static_cast<int64_t>(x);
        case Nearest::round_prefer_floor: break;
    }
    if (x == static_cast<float>(static_cast<int64_t>(x)) + 0.5f) return static_cast<int64_t>(std::floor(x));
    return static_cast<int64_t>(std::round(x));
}

int64_t clip(int64_t v, int64_t len) { return std::max<int64_t>(0, std::min(v, len - 1)); }

// Keys' cubic convolution weights of the four pixels around a source coordinate `s` past the
// pixel before it (floor(s) - 1 .. floor(s) + 2).
std::array<float, 4> cubic_coefficients(float s, float a) {
    const float t = std::fabs(s);
    return {((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
            ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
            ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a};
}

// The taps of data axis d: nearest maps every coordinate through the transform (an identity where
// the axis keeps its size); linear_onnx weighs the two nearest pixels of the clamped source
// coordinate of an interpolated axis by their distances (0.5 each where they coincide); cubic
// weighs the four around it (Keys' convolution), edge pixels clamped into the data.
AxisTaps axis_taps(const Resize& r, size_t d) {
    AxisTaps t;
    const bool interpolated = std::find(r.axes.begin(), r.axes.end(), static_cast<int64_t>(d)) != r.axes.end();
    t.count = !interpolated ? 1 : r.mode == Mode::linear_onnx ? 2 : r.mode == Mode::cubic ? 4 : 1;
    for (int64_t o = 0; o < r.out[d]; ++o) {
        const float src = source_coordinate(r, d, static_cast<float>(o));
        if (r.mode == Mode::nearest) {
            t.index.push_back(clip(nearest_pixel(r.nearest, src, r.all_scales[d] < 1.0f), r.in[d]));
            t.weight.push_back(1.0f);
        } else if (t.count == 1) {
            t.index.push_back(o);
            t.weight.push_back(1.0f);
        } else if (r.mode == Mode::cubic) {
            const auto before = static_cast<int64_t>(std::floor(src));
            const std::array<float, 4> w = cubic_coefficients(src - static_cast<float>(before), r.cube_coeff);
            for (int64_t k = 0; k < 4; ++k) t.index.push_back(clip(before - 1 + k, r.in[d]));
            t.weight.insert(t.weight.end(), w.begin(), w.end());
        } else {
            const auto last = static_cast<float>(r.in[d] - 1);
            const float clamped = std::max(0.0f, std::min(src, last));
            const int64_t lo = std::min(static_cast<int64_t>(clamped), r.in[d] - 1), hi = std::min(lo + 1, r.in[d] - 1);
            t.index.insert(t.index.end(), {lo, hi});
            t.weight.push_back(lo == hi ? 0.5f : std::fabs(clamped - static_cast<float>(hi)));
            t.weight.push_back(lo == hi ? 0.5f : std::fabs(clamped - static_cast<float>(lo)));
        }
    }
    return t;
}

std::vector<AxisTaps> taps_of(const Resize& r) {
    std::vector<AxisTaps> taps;
    for (size_t d = 0; d < r.out.size(); ++d) taps.push_back(axis_taps(r, d));
    return taps;
}

// Each mode computes one output element from the padded data `x` (row-major strides `st`).
using Values = std::vector<double>;

// Nearest, linear_onnx and cubic: every choice of one tap per axis, weighted by the product of the taps'
// weights (float, as OpenVINO's reference), summed in double.
double separable_value(const std::vector<AxisTaps>& taps, const Values& x, const std::vector<int64_t>& st,
                       const std::vector<int64_t>& o) {
    int64_t choices = 1;
    for (const AxisTaps& t : taps) choices *= t.count;
    double sum = 0;
    for (int64_t choice = 0; choice < choices; ++choice) {
        float w = 1.0f;
        int64_t offset = 0, rest = choice;
        for (size_t d = 0; d < taps.size(); ++d) {
            const auto e = static_cast<size_t>(o[d] * taps[d].count + rest % taps[d].count);
            rest /= taps[d].count;
            w *= taps[d].weight[e];
            offset += taps[d].index[e] * st[d];
        }
        sum += static_cast<double>(w) * x[static_cast<size_t>(offset)];
    }
    return sum;
}

// Triangle filter over the taps within r of the rounded source coordinate; with antialias and a
// downscale the filter is widened by 1/scale. Weights are normalised by their sum.
double linear_value(const Resize& r, const Values& x, const std::vector<int64_t>& st, const std::vector<int64_t>& o) {
    const size_t n = r.axes.size();
    bool downsample = false;
    for (float s : r.scales) downsample |= s < 1.0f;
    const bool antialias = r.antialias && downsample;
    std::vector<float> a(n), src(n);
    std::vector<int64_t> radius(n), center(n);
    float prod_a = 1.0f;
    int64_t base = 0;
    for (size_t d = 0; d < o.size(); ++d) base += o[d] * st[d];
    for (size_t i = 0; i < n; ++i) {
        const auto d = static_cast<size_t>(r.axes[i]);
        base -= o[d] * st[d];
        a[i] = antialias ? r.scales[i] : 1.0f;
        prod_a *= a[i];
        radius[i] = r.scales[i] > 1.0f ? 2 : static_cast<int64_t>(std::ceil(2.0f / a[i]));
        src[i] = source_coordinate(r, d, static_cast<float>(o[d]));
        center[i] = static_cast<int64_t>(std::round(src[i]));
    }
    Shape window(n);
    for (size_t i = 0; i < n; ++i) window[i] = 2 * radius[i] + 1;
    double sum = 0, weights = 0;
    NdIndex taps(window);
    do {
        float w = prod_a;
        int64_t offset = base;
        bool inside = true;
        for (size_t i = 0; i < n && inside; ++i) {
            const auto d = static_cast<size_t>(r.axes[i]);
            const int64_t pos = center[i] + taps.coord[i] - radius[i];
            inside = pos >= 0 && pos < r.in[d];
            w *= std::max(0.0f, 1.0f - std::fabs(a[i] * (src[i] - static_cast<float>(pos))));
            offset += pos * st[d];
        }
        if (!inside) continue;
        sum += static_cast<double>(w) * x[static_cast<size_t>(offset)];
        weights += w;
    } while (taps.next());
    return weights == 0 ? 0.0 : sum / weights;
}

template <typename T>
T store(double v) {
    if constexpr (std::is_floating_point_v<T>) {
        return static_cast<T>(v);
    } else {
        const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
        const double hi = static_cast<double>(std::numeric_limits<T>::max());
        return static_cast<T>(std::min(hi, std::max(lo, std::round(v))));
    }
}

template <typename T>
void interpolate(const KernelArgs& args, const Resize& r) {
    // Zero-pad the data into a double buffer of the padded shape.
    const Shape& data = args.inputs[0].shape;
    const auto pads_begin = [&] {
        auto p = args.attrs.get_ints("pads_begin", {});
        p.resize(data.size(), 0);
        return p;
    }();
    const auto st = strides_of(r.in);
    Values x(static_cast<size_t>(shape_size(r.in)), 0.0);
    const T* src = args.inputs[0].as<T>();
    NdIndex in_it(data);
    if (in_it.valid()) do {
            int64_t offset = 0;
            for (size_t d = 0; d < data.size(); ++d) offset += (in_it.coord[d] + pads_begin[d]) * st[d];
            x[static_cast<size_t>(offset)] = static_cast<double>(*src++);
        } while (in_it.next());

    const bool separable = r.mode != Mode::linear;
    const std::vector<AxisTaps> taps = separable ? taps_of(r) : std::vector<AxisTaps>{};
    T* y = args.outputs[0].as<T>();
    NdIndex out_it(r.out);
    if (out_it.valid()) do {
            *y++ = store<T>(separable ? separable_value(taps, x, st, out_it.coord) : linear_value(r, x, st, out_it.coord));
        } while (out_it.next());
}

template <bool V11>
void interpolate_kernel(const KernelArgs& args) {
    const Resize r = setup(args, V11);
    dispatch_numeric(args, args.inputs[0].type, [&](auto tag) { interpolate<decltype(tag)>(args, r); });
}

}  // namespace

void register_interpolate_kernels(KernelRegistry& r) {
    r.add("Interpolate", {"opset4"}, interpolate_kernel<false>);
    r.add("Interpolate", {"opset11"}, interpolate_kernel<true>);
}

}  // namespace mosaic::reference::nn

namespace mosaic::reference {

std::vector<AxisTaps> separable_interpolate_taps(const KernelArgs& args) {
    const nn::Resize r = nn::setup(args, args.version == "opset11");
    if (r.mode == nn::Mode::linear)
        throw std::runtime_error("Interpolate: mode '" + nn::lower_attr(args, "mode", "nearest") +
                                 "' is not separable into per-axis taps");
    return nn::taps_of(r);
}

}  // namespace mosaic::reference
