// Reference kernels of the normalisation ops: MVN-1 (opset2), MVN-6, BatchNormInference-1/-5,
// NormalizeL2-1, LRN-1 and GroupNormalization-12. Statistics are accumulated in double precision.
#include "nn_kernels.hpp"

#include <algorithm>
#include <cmath>

namespace mosaic::reference::nn {

namespace {

std::vector<int64_t> normalized_axes(const KernelArgs& args, std::vector<int64_t> axes, size_t rank) {
    const auto r = static_cast<int64_t>(rank);
    for (int64_t& a : axes) {
        if (a < -r || a >= r)
            throw std::runtime_error(std::string(args.op_type) + ": axis " + std::to_string(a) +
                                     " out of range for rank " + std::to_string(rank));
        if (a < 0) a += r;
    }
    return axes;
}

// Groups the elements of `shape` by their coordinates outside `axes`: group[i] is element i's
// group, `size` the number of elements in each group.
struct Groups {
    std::vector<int64_t> group;
    int64_t count = 0, size = 1;
};

Groups groups_over(const Shape& shape, const std::vector<int64_t>& axes) {
    std::vector<bool> reduced(shape.size(), false);
    for (int64_t a : axes) reduced[static_cast<size_t>(a)] = true;
    Groups g;
    g.count = 1;
    for (size_t i = 0; i < shape.size(); ++i) (reduced[i] ? g.size : g.count) *= shape[i];
    NdIndex it(shape);
    if (!it.valid()) return g;
    do {
        int64_t index = 0;
        for (size_t i = 0; i < shape.size(); ++i)
            if (!reduced[i]) index = index * shape[i] + it.coord[i];
        g.group.push_back(index);
    } while (it.next());
    return g;
}

template <typename T>
void mvn(const KernelArgs& args, const std::vector<int64_t>& axes, bool normalize_variance, double eps,
         bool eps_inside_sqrt) {
    const T* x = args.inputs[0].as<T>();
    T* y = args.outputs[0].as<T>();
    const Groups g = groups_over(args.inputs[0].shape, axes);
    const size_t n = g.group.size();
    std::vector<double> mean(static_cast<size_t>(g.count), 0.0), var(static_cast<size_t>(g.count), 0.0);
    for (size_t i = 0; i < n; ++i) mean[g.group[i]] += static_cast<double>(x[i]) / static_cast<double>(g.size);
    for (size_t i = 0; i < n; ++i) {
        const double d = static_cast<double>(x[i]) - mean[g.group[i]];
        var[g.group[i]] += d * d / static_cast<double>(g.size);
    }
    for (size_t i = 0; i < n; ++i) {
        double v = static_cast<double>(x[i]) - mean[g.group[i]];
        if (normalize_variance) {
            const double s = var[g.group[i]];
            v /= eps_inside_sqrt ? std::sqrt(s + eps) : std::sqrt(s) + eps;
        }
        y[i] = static_cast<T>(v);
    }
}

// GroupNormalization-12: each batch's channels in num_groups consecutive groups, each group
// normalised over its channels and spatial positions, then scaled and shifted per channel.
template <typename T>
void group_normalization(const KernelArgs& args, int64_t groups, double eps) {
    const Shape& shape = args.inputs[0].shape;
    const T* x = args.inputs[0].as<T>();
    const T* scale = args.inputs[1].as<T>();
    const T* bias = args.inputs[2].as<T>();
    T* y = args.outputs[0].as<T>();
    const int64_t batch = shape[0], channels = shape[1];
    if (groups <= 0 || channels % groups != 0)
        throw std::runtime_error("GroupNormalization: num_groups " + std::to_string(groups) + " does not divide " +
                                 std::to_string(channels) + " channels");
    const int64_t spatial = shape_size(Shape(shape.begin() + 2, shape.end()));
    const int64_t per_group = channels / groups * spatial;  // the elements of one group, consecutive
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t g = 0; g < groups; ++g) {
            const int64_t first = (b * groups + g) * per_group;
            double mean = 0, var = 0;
            for (int64_t i = 0; i < per_group; ++i) mean += static_cast<double>(x[first + i]);
            mean /= static_cast<double>(per_group);
            for (int64_t i = 0; i < per_group; ++i) {
                const double d = static_cast<double>(x[first + i]) - mean;
                var += d * d;
            }
            const double inv = 1.0 / std::sqrt(var / static_cast<double>(per_group) + eps);
            for (int64_t i = 0; i < per_group; ++i) {
                const int64_t c = g * (channels / groups) + i / spatial;
                y[first + i] = static_cast<T>((static_cast<double>(x[first + i]) - mean) * inv *
                                                  static_cast<double>(scale[c]) +
                                              static_cast<double>(bias[c]));
            }
        }
}

void group_normalization_12(const KernelArgs& args) {
    const int64_t groups = args.attrs.get_int("num_groups");
    const double eps = args.attrs.get_float("epsilon");
    dispatch_floating(args, args.inputs[0].type,
                      [&](auto tag) { group_normalization<decltype(tag)>(args, groups, eps); });
}

void mvn_6(const KernelArgs& args) {
    const auto axes = normalized_axes(args, read_ints(args.inputs.at(1)), args.inputs[0].shape.size());
    const bool normalize_variance = args.attrs.get_bool("normalize_variance");
    const double eps = args.attrs.get_float("eps");
    const bool inside = lower_attr(args, "eps_mode", "inside_sqrt") == "inside_sqrt";
    dispatch_floating(args, args.inputs[0].type,
                      [&](auto tag) { mvn<decltype(tag)>(args, axes, normalize_variance, eps, inside); });
}

// MVN-1: the reduction axes come from `reduction_axes`, else from `across_channels`
// (all but the batch axis, or only the spatial axes). eps is added inside the square root.
void mvn_1(const KernelArgs& args) {
    const size_t rank = args.inputs[0].shape.size();
    std::vector<int64_t> axes = normalized_axes(args, args.attrs.get_ints("reduction_axes", {}), rank);
    if (axes.empty())
        for (size_t a = args.attrs.get_bool("across_channels", false) ? 1 : 2; a < rank; ++a)
            axes.push_back(static_cast<int64_t>(a));
    const bool normalize_variance = args.attrs.get_bool("normalize_variance", false);
    const double eps = args.attrs.get_float("eps");
    dispatch_floating(args, args.inputs[0].type,
                      [&](auto tag) { mvn<decltype(tag)>(args, axes, normalize_variance, eps, true); });
}

// y = gamma * (x - mean) / sqrt(variance + epsilon) + beta, per channel (axis 1).
template <typename T>
void batch_norm(const KernelArgs& args, size_t data, size_t gamma, size_t beta) {
    const Shape& shape = args.inputs[data].shape;
    const T* x = args.inputs[data].as<T>();
    const T* g = args.inputs[gamma].as<T>();
    const T* b = args.inputs[beta].as<T>();
    const T* mean = args.inputs[3].as<T>();
    const T* var = args.inputs[4].as<T>();
    T* y = args.outputs[0].as<T>();
    const double eps = args.attrs.get_float("epsilon");
    const int64_t channels = shape.at(1), inner = shape_size(Shape(shape.begin() + 2, shape.end()));
    const int64_t total = shape_size(shape);
    for (int64_t i = 0; i < total; ++i) {
        const int64_t c = (i / inner) % channels;
        const double normalized =
            (static_cast<double>(x[i]) - static_cast<double>(mean[c])) / std::sqrt(static_cast<double>(var[c]) + eps);
        y[i] = static_cast<T>(static_cast<double>(g[c]) * normalized + static_cast<double>(b[c]));
    }
}

template <bool DataFirst>
void batch_norm_kernel(const KernelArgs& args) {
    const size_t data = DataFirst ? 0 : 2, gamma = DataFirst ? 1 : 0, beta = DataFirst ? 2 : 1;
    dispatch_floating(args, args.inputs.at(data).type,
                      [&](auto tag) { batch_norm<decltype(tag)>(args, data, gamma, beta); });
}

// x / sqrt(sum of squares over axes, combined with eps by `eps_mode`). With no axes each element
// is divided by itself: 1, or 0 for a zero, as OpenVINO specifies.
template <typename T>
void normalize_l2(const KernelArgs& args, const std::vector<int64_t>& axes, double eps, bool eps_max) {
    const T* x = args.inputs[0].as<T>();
    T* y = args.outputs[0].as<T>();
    const int64_t total = args.inputs[0].size();
    if (axes.empty()) {
        for (int64_t i = 0; i < total; ++i) y[i] = x[i] == T{0} ? T{0} : T{1};
        return;
    }
    const Groups g = groups_over(args.inputs[0].shape, axes);
    std::vector<double> sum(static_cast<size_t>(g.count), 0.0);
    for (int64_t i = 0; i < total; ++i) sum[g.group[i]] += static_cast<double>(x[i]) * static_cast<double>(x[i]);
    for (int64_t i = 0; i < total; ++i) {
        const double s = sum[g.group[i]];
        y[i] = static_cast<T>(static_cast<double>(x[i]) / std::sqrt(eps_max ? std::max(s, eps) : s + eps));
    }
}

void normalize_l2_kernel(const KernelArgs& args) {
    const auto axes = normalized_axes(args, read_ints(args.inputs.at(1)), args.inputs[0].shape.size());
    const double eps = args.attrs.get_float("eps");
    const bool eps_max = lower_attr(args, "eps_mode", "add") == "max";
    dispatch_floating(args, args.inputs[0].type,
                      [&](auto tag) { normalize_l2<decltype(tag)>(args, axes, eps, eps_max); });
}

// y = x / (bias + alpha / size^len(axes) * sum of x^2 over the window)^beta, where the window spans
// [i - (size-1)/2, i + (size-1)/2] on each of the axes, clipped to the tensor.
template <typename T>
void lrn(const KernelArgs& args, const std::vector<int64_t>& axes) {
    const Shape& shape = args.inputs[0].shape;
    const T* x = args.inputs[0].as<T>();
    T* y = args.outputs[0].as<T>();
    const double alpha = args.attrs.get_float("alpha"), beta = args.attrs.get_float("beta");
    const double bias = args.attrs.get_float("bias");
    const int64_t size = args.attrs.get_int("size"), half = (size - 1) / 2;
    const double scale = alpha / std::pow(static_cast<double>(size), static_cast<double>(axes.size()));
    const auto strides = strides_of(shape);

    NdIndex it(shape);
    if (!it.valid()) return;
    int64_t i = 0;
    do {
        Shape extent(axes.size());
        std::vector<int64_t> first(axes.size());
        for (size_t a = 0; a < axes.size(); ++a) {
            const auto axis = static_cast<size_t>(axes[a]);
            first[a] = std::max<int64_t>(0, it.coord[axis] - half);
            extent[a] = std::min<int64_t>(shape[axis], it.coord[axis] + half + 1) - first[a];
        }
        double sum = 0;
        NdIndex w(extent);
        if (w.valid()) do {
                int64_t offset = i;
                for (size_t a = 0; a < axes.size(); ++a) {
                    const auto axis = static_cast<size_t>(axes[a]);
                    offset += (first[a] + w.coord[a] - it.coord[axis]) * strides[axis];
                }
                sum += static_cast<double>(x[offset]) * static_cast<double>(x[offset]);
            } while (w.next());
        y[i] = static_cast<T>(static_cast<double>(x[i]) / std::pow(bias + scale * sum, beta));
        ++i;
    } while (it.next());
}

void lrn_kernel(const KernelArgs& args) {
    const auto axes = normalized_axes(args, read_ints(args.inputs.at(1)), args.inputs[0].shape.size());
    dispatch_floating(args, args.inputs[0].type, [&](auto tag) { lrn<decltype(tag)>(args, axes); });
}

}  // namespace

void register_normalization_kernels(KernelRegistry& r) {
    r.add("MVN", {"opset2"}, mvn_1);
    r.add("MVN", {"opset6"}, mvn_6);
    r.add("GroupNormalization", {"opset12"}, group_normalization_12);
    r.add("BatchNormInference", {"opset1"}, batch_norm_kernel<false>);
    r.add("BatchNormInference", {"opset5"}, batch_norm_kernel<true>);
    r.add("NormalizeL2", {"opset1"}, normalize_l2_kernel);
    r.add("LRN", {"opset1"}, lrn_kernel);
}

}  // namespace mosaic::reference::nn
