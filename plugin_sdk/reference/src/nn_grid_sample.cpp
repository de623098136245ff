// Reference kernel of GridSample-9, with the sampling rules PyTorch's grid_sample and ONNX
// Runtime share: grid (x, y) in [-1, 1] maps to the centres of the corner pixels (align_corners)
// or to the outer edges of the corner pixels; padding applies to each tap that interpolation
// reads (zeros outside, the nearest border pixel, or the pixel mirrored at the border); bicubic
// uses Keys' kernel with a = -0.75; nearest rounds half to even.
#include "nn_kernels.hpp"

#include <algorithm>
#include <cmath>

namespace mosaic::reference::nn {

namespace {

enum class Mode { bilinear, bicubic, nearest };
enum class Padding { zeros, border, reflection };

template <typename T>
struct Sampler {
    const T* image;  // one channel, [H, W]
    int64_t H, W;
    Padding padding;
    T x_min, x_max, y_min, y_max;  // the reflection borders

    // Mirrors v into [low, high] as often as it takes.
    static T reflect(T v, T low, T high) {
        const T range = high - low;
        if (range <= 0) return low;
        if (v < low) {
            const T d = low - v;
            const auto n = static_cast<int64_t>(d / range);
            const T r = d - static_cast<T>(n) * range;
            return n % 2 == 0 ? low + r : high - r;
        }
        if (v > high) {
            const T d = v - high;
            const auto n = static_cast<int64_t>(d / range);
            const T r = d - static_cast<T>(n) * range;
            return n % 2 == 0 ? high - r : low + r;
        }
        return v;
    }

    T at(int64_t y, int64_t x) const {
        switch (padding) {
            case Padding::zeros:
                if (x < 0 || x >= W || y < 0 || y >= H) return T{0};
                break;
            case Padding::border:
                x = std::clamp<int64_t>(x, 0, W - 1);
                y = std::clamp<int64_t>(y, 0, H - 1);
                break;
            case Padding::reflection:
                x = std::clamp<int64_t>(static_cast<int64_t>(reflect(static_cast<T>(x), x_min, x_max)), 0, W - 1);
                y = std::clamp<int64_t>(static_cast<int64_t>(reflect(static_cast<T>(y), y_min, y_max)), 0, H - 1);
                break;
        }
        return image[y * W + x];
    }
};

template <typename T>
void cubic_coefficients(T t, T c[4]) {
    constexpr T a = T(-0.75);
    t = std::abs(t);
    c[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
    c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
    c[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
    c[3] = ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a;
}

template <typename T>
T sample(const Sampler<T>& s, Mode mode, T x, T y) {
    if (mode == Mode::nearest)
        return s.at(static_cast<int64_t>(std::nearbyint(y)), static_cast<int64_t>(std::nearbyint(x)));
    const auto x0 = static_cast<int64_t>(std::floor(x)), y0 = static_cast<int64_t>(std::floor(y));
    if (mode == Mode::bilinear) {
        const T dx = x - static_cast<T>(x0), dy = y - static_cast<T>(y0);
        return (1 - dy) * ((1 - dx) * s.at(y0, x0) + dx * s.at(y0, x0 + 1)) +
               dy * ((1 - dx) * s.at(y0 + 1, x0) + dx * s.at(y0 + 1, x0 + 1));
    }
    T cx[4], cy[4];
    cubic_coefficients(x - static_cast<T>(x0), cx);
    cubic_coefficients(y - static_cast<T>(y0), cy);
    T sum = 0;
    for (int64_t i = 0; i < 4; ++i) {
        T row = 0;
        for (int64_t j = 0; j < 4; ++j) row += cx[j] * s.at(y0 - 1 + i, x0 - 1 + j);
        sum += cy[i] * row;
    }
    return sum;
}

template <typename T>
void grid_sample(const KernelArgs& args, Mode mode, Padding padding, bool align_corners) {
    const Shape& in = args.inputs[0].shape;
    const Shape& out = args.outputs[0].shape;
    const int64_t N = in[0], C = in[1], H = in[2], W = in[3], H_out = out[2], W_out = out[3];
    const std::vector<double> grid = read_floats(args.inputs[1]);
    const T* data = args.inputs[0].as<T>();
    T* y_out = args.outputs[0].as<T>();

    // [-1, 1] -> [0, size - 1] with align_corners, else [-0.5, size - 0.5].
    auto denormalize = [&](T v, int64_t size) {
        return align_corners ? (v + 1) / 2 * static_cast<T>(size - 1) : ((v + 1) * static_cast<T>(size) - 1) / 2;
    };
    Sampler<T> s{nullptr, H, W, padding, T(-0.5), static_cast<T>(W) - T(0.5), T(-0.5), static_cast<T>(H) - T(0.5)};
    if (align_corners) s.x_min = 0, s.x_max = static_cast<T>(W - 1), s.y_min = 0, s.y_max = static_cast<T>(H - 1);

    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c) {
            s.image = data + (n * C + c) * H * W;
            const double* g = grid.data() + n * H_out * W_out * 2;
            for (int64_t p = 0; p < H_out * W_out; ++p, ++y_out)
                *y_out = sample(s, mode, denormalize(static_cast<T>(g[2 * p]), W),
                                denormalize(static_cast<T>(g[2 * p + 1]), H));
        }
}

void grid_sample_kernel(const KernelArgs& args) {
    const std::string m = lower_attr(args, "mode", "bilinear");
    const Mode mode = m == "nearest" ? Mode::nearest : m == "bicubic" ? Mode::bicubic : Mode::bilinear;
    const std::string p = lower_attr(args, "padding_mode", "zeros");
    const Padding padding = p == "border" ? Padding::border : p == "reflection" ? Padding::reflection : Padding::zeros;
    const bool align_corners = args.attrs.get_bool("align_corners", false);
    if (args.inputs[0].shape.size() != 4 || args.inputs[1].shape.size() != 4)
        throw std::runtime_error("GridSample: data and grid must be 4-D, got " + to_string(args.inputs[0].shape) +
                                 " and " + to_string(args.inputs[1].shape));
    dispatch_floating(args, args.inputs[0].type, [&](auto tag) {
        grid_sample<decltype(tag)>(args, mode, padding, align_corners);
    });
}

}  // namespace

void register_grid_sample_kernels(KernelRegistry& r) { r.add("GridSample", {"opset9"}, grid_sample_kernel); }

}  // namespace mosaic::reference::nn
