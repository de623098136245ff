// Reduction kernels: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2
// (numeric types) and ReduceLogicalAnd, ReduceLogicalOr (boolean). Input 1 holds the axes
// (scalar or 1D, any integer type, negative values count from the end). Empty axes reduce
// nothing, so each element is reduced alone: the identity, except |x| for ReduceL1 / ReduceL2.
//
// Floating-point values accumulate in double. Integer sums and products wrap modulo 2^N; an
// integer mean is the integer sum divided by the count, truncated; an integer L2 norm is rounded.
#include "elementwise_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace mosaic::reference {

namespace {

enum class Red { sum, mean, max, min, prod, l1, l2, logical_and, logical_or };

// Whether each data dimension is reduced, from the axes input; throws on bad axes.
std::vector<bool> reduced_dims(const KernelArgs& args) {
    const ConstTensorView& axes = args.inputs[1];
    const int64_t rank = static_cast<int64_t>(args.inputs[0].shape.size());
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    dispatch<kInteger>(axes.type, std::string(args.op_type) + " axes", [&](auto tag) {
        using I = typename decltype(tag)::type;
        for (int64_t i = 0; i < axes.size(); ++i) {
            const int64_t axis = static_cast<int64_t>(axes.as<I>()[i]);
            if (axis < -rank || axis >= rank)
                throw std::runtime_error(std::string(args.op_type) + ": axis " + std::to_string(axis) +
                                         " is out of range for rank " + std::to_string(rank));
            const size_t d = static_cast<size_t>(axis < 0 ? axis + rank : axis);
            if (reduced[d])
                throw std::runtime_error(std::string(args.op_type) + ": axis " + std::to_string(axis) +
                                         " is repeated");
            reduced[d] = true;
        }
    });
    return reduced;
}

// For each input flat index, the flat index of the output element it reduces into. The output
// layout is the input's with the reduced dims removed (keep_dims only inserts 1s, which does not
// change the flat layout).
std::vector<int64_t> output_indices(const Shape& shape, const std::vector<bool>& reduced) {
    const size_t rank = shape.size();
    std::vector<int64_t> out_stride(rank, 0);
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;)
        if (!reduced[d]) {
            out_stride[d] = stride;
            stride *= shape[d];
        }
    const int64_t n = shape_size(shape);
    std::vector<int64_t> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        int64_t rest = i, o = 0;
        for (size_t d = rank; d-- > 0;) {
            o += (rest % shape[d]) * out_stride[d];
            rest /= shape[d];
        }
        out[static_cast<size_t>(i)] = o;
    }
    return out;
}

template <Red R, typename T>
void reduce_typed(const KernelArgs& args, const std::vector<int64_t>& out_index) {
    // Accumulator: double for floating point, T itself (wrapping) for integers, a byte for
    // booleans (std::vector<bool> has no addressable elements).
    using A = std::conditional_t<std::is_floating_point_v<T>, double,
                                 std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>>;
    const T* x = args.inputs[0].as<T>();
    const TensorView& out = args.outputs[0];
    const int64_t in_n = args.inputs[0].size(), out_n = out.size();
    const int64_t count = out_n == 0 ? 0 : in_n / out_n;

    A init{};
    if constexpr (R == Red::prod || R == Red::logical_and) init = A{1};
    if constexpr (R == Red::max) init = std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                                           : std::numeric_limits<A>::lowest();
    if constexpr (R == Red::min) init = std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity()
                                                                           : std::numeric_limits<A>::max();
    std::vector<A> acc(static_cast<size_t>(out_n), init);

    // Integer arithmetic goes through uint64_t so that it wraps instead of overflowing.
    auto add = [](A a, A b) -> A {
        if constexpr (std::is_integral_v<A>) return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
        else return a + b;
    };
    auto mul = [](A a, A b) -> A {
        if constexpr (std::is_integral_v<A>) return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
        else return a * b;
    };
    for (int64_t i = 0; i < in_n; ++i) {
        A& a = acc[static_cast<size_t>(out_index[static_cast<size_t>(i)])];
        const A v = static_cast<A>(x[i]);
        if constexpr (R == Red::sum || R == Red::mean) a = add(a, v);
        if constexpr (R == Red::prod) a = mul(a, v);
        if constexpr (R == Red::max) a = std::max(a, v);
        if constexpr (R == Red::min) a = std::min(a, v);
        if constexpr (R == Red::l1) a = add(a, v < A{0} ? mul(v, static_cast<A>(-1)) : v);
        if constexpr (R == Red::l2) a = add(a, mul(v, v));
        if constexpr (R == Red::logical_and) a = a && v;
        if constexpr (R == Red::logical_or) a = a || v;
    }

    T* o = out.as<T>();
    for (int64_t j = 0; j < out_n; ++j) {
        A a = acc[static_cast<size_t>(j)];
        if constexpr (R == Red::mean) {
            if constexpr (std::is_integral_v<A>) a = count == 0 ? A{0} : static_cast<A>(a / static_cast<A>(count));
            else a = a / static_cast<double>(count);
        }
        if constexpr (R == Red::l2) {
            if constexpr (std::is_integral_v<A>) a = saturate_to_integer<A>(std::round(std::sqrt(static_cast<double>(a))));
            else a = std::sqrt(a);
        }
        o[j] = static_cast<T>(a);
    }
}

template <Red R>
void reduction_kernel(const KernelArgs& args) {
    require_io(args, 2, 2, 1);
    const std::vector<int64_t> out_index = output_indices(args.inputs[0].shape, reduced_dims(args));
    if constexpr (R == Red::logical_and || R == Red::logical_or) {
        dispatch<kBool>(args.inputs[0].type, args.op_type,
                        [&](auto tag) { reduce_typed<R, typename decltype(tag)::type>(args, out_index); });
    } else {
        dispatch<kNumeric>(args.inputs[0].type, args.op_type,
                           [&](auto tag) { reduce_typed<R, typename decltype(tag)::type>(args, out_index); });
    }
}

}  // namespace

void register_reduction_kernels(KernelRegistry& r) {
    r.add("ReduceSum", {"opset1"}, reduction_kernel<Red::sum>);
    r.add("ReduceMean", {"opset1"}, reduction_kernel<Red::mean>);
    r.add("ReduceMax", {"opset1"}, reduction_kernel<Red::max>);
    r.add("ReduceMin", {"opset1"}, reduction_kernel<Red::min>);
    r.add("ReduceProd", {"opset1"}, reduction_kernel<Red::prod>);
    r.add("ReduceL1", {"opset4"}, reduction_kernel<Red::l1>);
    r.add("ReduceL2", {"opset4"}, reduction_kernel<Red::l2>);
    r.add("ReduceLogicalAnd", {"opset1"}, reduction_kernel<Red::logical_and>);
    r.add("ReduceLogicalOr", {"opset1"}, reduction_kernel<Red::logical_or>);
}

}  // namespace mosaic::reference
