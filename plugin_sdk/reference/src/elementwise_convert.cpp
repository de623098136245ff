// Convert, ConvertLike and Select.
//
// Conversion rules (OpenVINO Convert-1): to boolean, any non-zero value (NaN included) is true;
// from boolean, true is 1. Floating point to integer truncates toward zero ("3.141592 may be
// rounded to 3"); values outside the destination range, which the spec leaves undefined, saturate
// to its limits and NaN becomes 0. Integer to integer wraps modulo 2^N, as the spec states for
// signed to unsigned ("-1 converted to u32 is 4294967295"). Anything to floating point is the
// nearest representable value.
#include "elementwise_kernels.hpp"

#include <type_traits>

namespace mosaic::reference {

namespace {

template <typename To, typename From>
To convert_value(From v) {
    if constexpr (std::is_same_v<To, bool>) {
        return v != From{0};
    } else if constexpr (std::is_same_v<From, bool>) {
        return static_cast<To>(v ? 1 : 0);
    } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
        return saturate_to_integer<To>(static_cast<double>(v));
    } else {
        return static_cast<To>(v);
    }
}

// Convert (destination_type, already reflected in the output's type) and ConvertLike (whose
// output takes input 1's type) differ only in where the target type comes from.
void convert_kernel(const KernelArgs& args) {
    require_io(args, args.op_type == "ConvertLike" ? 2 : 1, args.op_type == "ConvertLike" ? 2 : 1, 1);
    dispatch<kAnyType>(args.inputs[0].type, args.op_type, [&](auto from_tag) {
        using From = typename decltype(from_tag)::type;
        dispatch<kAnyType>(args.outputs[0].type, args.op_type, [&](auto to_tag) {
            using To = typename decltype(to_tag)::type;
            unary_map<From, To>(args, [](From v) { return convert_value<To, From>(v); });
        });
    });
}

// out = condition ? then : else, all three numpy-broadcast to the output shape.
void select_kernel(const KernelArgs& args) {
    require_io(args, 3, 3, 1);
    const ConstTensorView& cond = args.inputs[0];
    const ConstTensorView& then_ = args.inputs[1];
    const ConstTensorView& else_ = args.inputs[2];
    const TensorView& out = args.outputs[0];
    if (cond.type != ElementType::boolean) unsupported_type("Select condition", cond.type);
    const BroadcastIndex ic(cond.shape, out.shape), it(then_.shape, out.shape), ie(else_.shape, out.shape);
    dispatch<kAnyType>(then_.type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const uint8_t* c = cond.as<uint8_t>();
        const T* t = then_.as<T>();
        const T* e = else_.as<T>();
        T* o = out.as<T>();
        for (int64_t i = 0; i < out.size(); ++i) o[i] = c[ic(i)] ? t[it(i)] : e[ie(i)];
    });
}

}  // namespace

void register_convert_select_kernels(KernelRegistry& r) {
    r.add("Convert", {"opset1"}, convert_kernel);
    r.add("ConvertLike", {"opset1"}, convert_kernel);
    r.add("Select", {"opset1"}, select_kernel);
}

}  // namespace mosaic::reference
