// Reference kernels of ScatterNDUpdate (opset3, opset15), ScatterElementsUpdate (opset3, opset12)
// and ScatterUpdate (opset3). Each op first resolves, for every element of `updates`, the flat
// position of the output element it lands on; one shared routine then writes or reduces the
// updates there, in order, so repeated indices reduce deterministically.
//
// Negative indices count from the end of their axis, as the newest versions specify; the older ones
// leave them undefined and OpenVINO's implementation normalises them the same way. An index still
// out of range is an error. Integer sums and products wrap; an integer mean rounds toward -inf.
// For boolean data, sum / max act as OR, prod / min as AND, and sub as XOR.
#include "data_movement_kernels.hpp"
#include "data_movement_util.hpp"
#include "type_dispatch.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <type_traits>
#include <utility>

namespace mosaic::reference {

namespace {

enum class Reduction { none, sum, sub, prod, min, max, mean };

Reduction reduction_attr(const KernelArgs& args) {
    std::string name = args.attrs.get_string("reduction", "none");
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    static const std::pair<const char*, Reduction> kNames[] = {
        {"none", Reduction::none}, {"sum", Reduction::sum}, {"sub", Reduction::sub}, {"prod", Reduction::prod},
        {"min", Reduction::min},   {"max", Reduction::max}, {"mean", Reduction::mean}};
    for (const auto& [text, r] : kNames)
        if (name == text) return r;
    dm::fail(args, "unsupported reduction '" + name + "'");
}

// An index along an axis of `size` elements, made non-negative; fails when out of range.
int64_t normalize_index(const KernelArgs& args, int64_t index, int64_t size, int64_t axis) {
    dm::check(args, index >= -size && index < size,
              "index " + std::to_string(index) + " is out of range [" + std::to_string(-size) + ", " +
                  std::to_string(size - 1) + "] for axis " + std::to_string(axis) + " of size " + std::to_string(size));
    return index < 0 ? index + size : index;
}

// The scatter axis (input 3), normalised.
int64_t axis_input(const KernelArgs& args) {
    const std::vector<int64_t> value = dm::read_ints(args, args.inputs[3], "axis");
    const int64_t rank = static_cast<int64_t>(args.inputs[0].shape.size());
    dm::check(args, value.size() == 1, "axis must hold one value, got " + std::to_string(value.size()));
    dm::check(args, value[0] >= -rank && value[0] < rank,
              "axis " + std::to_string(value[0]) + " is out of range for rank " + std::to_string(rank));
    return value[0] < 0 ? value[0] + rank : value[0];
}

// Integer arithmetic through uint64_t, so that it wraps instead of overflowing.
template <typename T>
T combine(Reduction r, T acc, T v) {
    if constexpr (std::is_same_v<T, bool>) {
        switch (r) {
            case Reduction::sum: case Reduction::max: return acc || v;
            case Reduction::prod: case Reduction::min: return acc && v;
            case Reduction::sub: return acc != v;
            default: return v;
        }
    } else if constexpr (std::is_integral_v<T>) {
        const uint64_t a = static_cast<uint64_t>(acc), b = static_cast<uint64_t>(v);
        switch (r) {
            case Reduction::sum: case Reduction::mean: return static_cast<T>(a + b);
            case Reduction::sub: return static_cast<T>(a - b);
            case Reduction::prod: return static_cast<T>(a * b);
            case Reduction::min: return std::min(acc, v);
            case Reduction::max: return std::max(acc, v);
            default: return v;
        }
    } else {
        switch (r) {
            case Reduction::sum: case Reduction::mean: return acc + v;
            case Reduction::sub: return acc - v;
            case Reduction::prod: return acc * v;
            case Reduction::min: return std::min(acc, v);
            case Reduction::max: return std::max(acc, v);
            default: return v;
        }
    }
}

// The value a reduction starts from when data's own values are left out (use_init_val=false).
template <typename T>
T identity(Reduction r) {
    using L = std::numeric_limits<T>;
    switch (r) {
        case Reduction::prod: return T(1);
        case Reduction::min: return L::has_infinity ? L::infinity() : L::max();
        case Reduction::max: return L::has_infinity ? -L::infinity() : L::lowest();
        default: return T(0);
    }
}

// sum / count, the integer case rounded toward negative infinity.
template <typename T, typename A>
T mean_of(A sum, int64_t count) {
    if constexpr (std::is_floating_point_v<T>) {
        return static_cast<T>(sum / static_cast<double>(count));
    } else {
        A q = sum / static_cast<A>(count);
        if (sum % static_cast<A>(count) != 0 && sum < 0) --q;
        return static_cast<T>(q);
    }
}

template <typename T>
void scatter_mean(const KernelArgs& args, const std::vector<int64_t>& targets, bool use_init_val) {
    using A = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
    T* out = args.outputs[0].as<T>();
    const T* updates = args.inputs[2].as<T>();
    std::vector<A> sums(static_cast<size_t>(args.outputs[0].size()), A{0});
    std::vector<int64_t> counts(sums.size(), -1);  // -1: no update lands there, keep data's value
    for (size_t i = 0; i < targets.size(); ++i) {
        const auto t = static_cast<size_t>(targets[i]);
        if (counts[t] < 0) {
            counts[t] = use_init_val ? 1 : 0;
            sums[t] = use_init_val ? static_cast<A>(out[t]) : A{0};
        }
        sums[t] += static_cast<A>(updates[i]);
        ++counts[t];
    }
    for (size_t t = 0; t < sums.size(); ++t)
        if (counts[t] > 0) out[t] = mean_of<T>(sums[t], counts[t]);
}

template <typename T>
void scatter_reduce(const KernelArgs& args, const std::vector<int64_t>& targets, Reduction r, bool use_init_val) {
    T* out = args.outputs[0].as<T>();
    const T* updates = args.inputs[2].as<T>();
    if (!use_init_val)
        for (int64_t t : targets) out[t] = identity<T>(r);
    for (size_t i = 0; i < targets.size(); ++i) out[targets[i]] = combine(r, out[targets[i]], updates[i]);
}

// Copies data to the output, then writes or reduces update i into output element targets[i].
void apply_updates(const KernelArgs& args, const std::vector<int64_t>& targets, Reduction r, bool use_init_val) {
    const ConstTensorView& data = args.inputs[0];
    const size_t esize = element_size(data.type);
    dm::check(args, static_cast<int64_t>(targets.size()) == args.inputs[2].size(),
              "updates hold " + std::to_string(args.inputs[2].size()) + " elements, expected " +
                  std::to_string(targets.size()));
    dm::check_shape(args, args.outputs[0].shape, data.shape, "output");
    if (data.size() > 0) std::memcpy(args.outputs[0].data, data.data, static_cast<size_t>(data.size()) * esize);
    if (r == Reduction::none) {
        for (size_t i = 0; i < targets.size(); ++i)
            dm::copy_element(args.outputs[0].data, targets[i], args.inputs[2].data, static_cast<int64_t>(i), esize);
        return;
    }
    if (r == Reduction::mean) {
        dispatch<kNumeric>(data.type, args.op_type, [&](auto tag) {
            scatter_mean<typename decltype(tag)::type>(args, targets, use_init_val);
        });
        return;
    }
    dispatch<kAnyType>(data.type, args.op_type, [&](auto tag) {
        scatter_reduce<typename decltype(tag)::type>(args, targets, r, use_init_val);
    });
}

// ScatterNDUpdate: each index tuple addresses a slice of data.shape[k:] starting at that tuple.
std::vector<int64_t> nd_targets(const KernelArgs& args) {
    const Shape& data = args.inputs[0].shape;
    const Shape& ishape = args.inputs[1].shape;
    const std::vector<int64_t> indices = dm::read_ints(args, args.inputs[1], "indices");
    dm::check(args, !data.empty() && !ishape.empty(), "data and indices must have rank >= 1");
    const int64_t k = ishape.back();
    dm::check(args, k <= static_cast<int64_t>(data.size()),
              "index tuples of length " + std::to_string(k) + " exceed the rank of data " + to_string(data));
    const std::vector<int64_t> strides = dm::strides_of(data);
    const int64_t slice = k == 0 ? shape_size(data) : strides[static_cast<size_t>(k - 1)];
    const int64_t tuples = shape_size(Shape(ishape.begin(), ishape.end() - 1));
    std::vector<int64_t> targets;
    targets.reserve(static_cast<size_t>(tuples * slice));
    for (int64_t t = 0; t < tuples; ++t) {
        int64_t start = 0;
        for (int64_t j = 0; j < k; ++j)
            start += normalize_index(args, indices[static_cast<size_t>(t * k + j)], data[j], j) * strides[j];
        for (int64_t e = 0; e < slice; ++e) targets.push_back(start + e);
    }
    return targets;
}

// ScatterElementsUpdate: an update lands where its own position says, except along the axis.
std::vector<int64_t> elements_targets(const KernelArgs& args) {
    const Shape& data = args.inputs[0].shape;
    const Shape& ishape = args.inputs[1].shape;
    const std::vector<int64_t> indices = dm::read_ints(args, args.inputs[1], "indices");
    const int64_t axis = axis_input(args);
    dm::check(args, ishape.size() == data.size(), "indices " + to_string(ishape) + " must have the rank of data " +
                                                      to_string(data));
    const std::vector<int64_t> strides = dm::strides_of(data);
    std::vector<int64_t> targets;
    targets.reserve(indices.size());
    size_t i = 0;
    dm::for_each_index(ishape, [&](const std::vector<int64_t>& at) {
        int64_t flat = 0;
        for (size_t d = 0; d < at.size(); ++d) {
            const bool on_axis = static_cast<int64_t>(d) == axis;
            const int64_t pos = on_axis ? normalize_index(args, indices[i], data[d], axis) : at[d];
            dm::check(args, pos < data[d], "indices " + to_string(ishape) + " exceed data " + to_string(data) +
                                               " along axis " + std::to_string(d));
            flat += pos * strides[d];
        }
        targets.push_back(flat);
        ++i;
    });
    return targets;
}

// ScatterUpdate: updates[..., j..., ...] lands at data[..., indices[j...], ...].
std::vector<int64_t> update_targets(const KernelArgs& args) {
    const Shape& data = args.inputs[0].shape;
    const Shape& ishape = args.inputs[1].shape;
    const std::vector<int64_t> indices = dm::read_ints(args, args.inputs[1], "indices");
    const int64_t axis = axis_input(args);
    Shape expected(data.begin(), data.begin() + axis);
    expected.insert(expected.end(), ishape.begin(), ishape.end());
    expected.insert(expected.end(), data.begin() + axis + 1, data.end());
    dm::check_shape(args, args.inputs[2].shape, expected, "updates");

    const std::vector<int64_t> strides = dm::strides_of(data);
    const std::vector<int64_t> index_strides = dm::strides_of(ishape);
    const int64_t irank = static_cast<int64_t>(ishape.size()), rank = static_cast<int64_t>(data.size());
    std::vector<int64_t> targets;
    targets.reserve(static_cast<size_t>(shape_size(expected)));
    dm::for_each_index(expected, [&](const std::vector<int64_t>& at) {
        int64_t which = 0;
        for (int64_t d = 0; d < irank; ++d) which += at[axis + d] * index_strides[d];
        int64_t flat = normalize_index(args, indices[static_cast<size_t>(which)], data[axis], axis) * strides[axis];
        for (int64_t d = 0; d < axis; ++d) flat += at[d] * strides[d];
        for (int64_t d = axis + 1; d < rank; ++d) flat += at[d - 1 + irank] * strides[d];
        targets.push_back(flat);
    });
    return targets;
}

void scatter_nd_update_kernel(const KernelArgs& args) {
    dm::check_io(args, 3, 1);
    const Reduction r = args.version == "opset3" ? Reduction::none : reduction_attr(args);
    dm::check(args, r != Reduction::mean, "reduction 'mean' is not defined for ScatterNDUpdate");
    apply_updates(args, nd_targets(args), r, true);
}

void scatter_elements_update_kernel(const KernelArgs& args) {
    dm::check_io(args, 4, 1);
    const bool v12 = args.version != "opset3";
    const Reduction r = v12 ? reduction_attr(args) : Reduction::none;
    dm::check(args, r != Reduction::sub, "reduction 'sub' is not defined for ScatterElementsUpdate");
    apply_updates(args, elements_targets(args), r, v12 ? args.attrs.get_bool("use_init_val", true) : true);
}

void scatter_update_kernel(const KernelArgs& args) {
    dm::check_io(args, 4, 1);
    apply_updates(args, update_targets(args), Reduction::none, true);
}

}  // namespace

void register_scatter_kernels(KernelRegistry& r) {
    r.add("ScatterNDUpdate", {"opset3", "opset4", "opset15"}, scatter_nd_update_kernel);
    r.add("ScatterElementsUpdate", {"opset3", "opset12"}, scatter_elements_update_kernel);
    r.add("ScatterUpdate", {"opset3"}, scatter_update_kernel);
}

}  // namespace mosaic::reference
