// Reference kernel of TopK-1, -3 and -11. Selection is always stable (equal values keep index
// order), which is what TopK-11's `stable` asks for and a valid choice for the other versions.
// sort=none returns the elements in the same order as sort=value: the spec leaves the order open.
#include "nn_kernels.hpp"

#include <algorithm>
#include <cmath>

namespace mosaic::reference::nn {

namespace {

// A strict total order on values where NaN is larger than every number.
template <typename T>
bool less(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a)) return false;
        if (std::isnan(b)) return true;
    }
    return a < b;
}

template <typename T>
void topk(const KernelArgs& args, int64_t axis, bool largest, const std::string& sort) {
    const Shape& shape = args.inputs[0].shape;
    const int64_t k = args.outputs[0].shape[static_cast<size_t>(axis)];
    const int64_t outer = shape_size(Shape(shape.begin(), shape.begin() + axis));
    const int64_t len = shape[static_cast<size_t>(axis)];
    const int64_t inner = shape_size(Shape(shape.begin() + axis + 1, shape.end()));
    const T* x = args.inputs[0].as<T>();
    T* values = args.outputs[0].as<T>();
    const TensorView& indices = args.outputs[1];

    std::vector<int64_t> order(static_cast<size_t>(len));
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            const T* row = x + o * len * inner + i;
            for (int64_t j = 0; j < len; ++j) order[static_cast<size_t>(j)] = j;
            std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
                return largest ? less(row[b * inner], row[a * inner]) : less(row[a * inner], row[b * inner]);
            });
            if (sort == "index") std::sort(order.begin(), order.begin() + k);
            for (int64_t j = 0; j < k; ++j) {
                const int64_t out = o * k * inner + j * inner + i;
                values[out] = row[order[static_cast<size_t>(j)] * inner];
                write_index(indices, out, order[static_cast<size_t>(j)]);
            }
        }
}

void topk_kernel(const KernelArgs& args) {
    const auto rank = static_cast<int64_t>(args.inputs.at(0).shape.size());
    int64_t axis = args.attrs.get_int("axis");
    if (axis < -rank || axis >= rank)
        throw std::runtime_error("TopK: axis " + std::to_string(axis) + " out of range for rank " +
                                 std::to_string(rank));
    if (axis < 0) axis += rank;
    if (args.outputs.size() != 2 || args.outputs[0].shape[static_cast<size_t>(axis)] >
                                        args.inputs[0].shape[static_cast<size_t>(axis)])
        throw std::runtime_error("TopK: expects two outputs with at most the input's size along the axis");
    const bool largest = lower_attr(args, "mode", "max") == "max";
    const std::string sort = lower_attr(args, "sort", "value");
    dispatch_numeric(args, args.inputs[0].type, [&](auto tag) { topk<decltype(tag)>(args, axis, largest, sort); });
}

}  // namespace

void register_topk_kernels(KernelRegistry& r) { r.add("TopK", {"opset1", "opset3", "opset11"}, topk_kernel); }

}  // namespace mosaic::reference::nn
