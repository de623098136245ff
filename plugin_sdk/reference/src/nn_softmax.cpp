// Reference kernels of Softmax-1, Softmax-8 and LogSoftmax-5, computed in double precision with the
// maximum subtracted first so large inputs do not overflow.
#include "nn_kernels.hpp"

#include <algorithm>
#include <cmath>

namespace mosaic::reference::nn {

namespace {

template <typename T>
void softmax(const KernelArgs& args, bool log) {
    const Shape& shape = args.inputs[0].shape;
    const auto rank = static_cast<int64_t>(shape.size());
    int64_t axis = args.attrs.get_int("axis", 1);
    if (axis < -rank || axis >= rank)
        throw std::runtime_error(std::string(args.op_type) + ": axis " + std::to_string(axis) +
                                 " out of range for rank " + std::to_string(rank));
    if (axis < 0) axis += rank;
    const int64_t outer = shape_size(Shape(shape.begin(), shape.begin() + axis));
    const int64_t len = shape[static_cast<size_t>(axis)];
    const int64_t inner = shape_size(Shape(shape.begin() + axis + 1, shape.end()));
    const T* x = args.inputs[0].as<T>();
    T* y = args.outputs[0].as<T>();

    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            const int64_t base = o * len * inner + i;
            auto at = [&](int64_t j) { return base + j * inner; };
            double max = -INFINITY;
            for (int64_t j = 0; j < len; ++j) max = std::max(max, static_cast<double>(x[at(j)]));
            double sum = 0;
            for (int64_t j = 0; j < len; ++j) sum += std::exp(static_cast<double>(x[at(j)]) - max);
            for (int64_t j = 0; j < len; ++j) {
                const double shifted = static_cast<double>(x[at(j)]) - max;
                y[at(j)] = static_cast<T>(log ? shifted - std::log(sum) : std::exp(shifted) / sum);
            }
        }
}

void softmax_kernel(const KernelArgs& args) {
    dispatch_floating(args, args.inputs[0].type, [&](auto tag) { softmax<decltype(tag)>(args, false); });
}

void log_softmax_kernel(const KernelArgs& args) {
    dispatch_floating(args, args.inputs[0].type, [&](auto tag) { softmax<decltype(tag)>(args, true); });
}

}  // namespace

void register_softmax_kernels(KernelRegistry& r) {
    r.add("Softmax", {"opset1", "opset8"}, softmax_kernel);
    r.add("LogSoftmax", {"opset5"}, log_softmax_kernel);
}

}  // namespace mosaic::reference::nn
