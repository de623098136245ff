// Comparison kernels (any element type in, boolean out) and logical kernels (boolean in and out),
// numpy broadcasting.
#include "elementwise_kernels.hpp"

namespace mosaic::reference {

namespace {

enum class Cmp { eq, ne, lt, le, gt, ge };

template <Cmp C>
void comparison_kernel(const KernelArgs& args) {
    dispatch<kAnyType>(args.inputs.at(0).type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        binary_map<T, uint8_t>(args, [](T a, T b) -> uint8_t {
            if constexpr (C == Cmp::eq) return a == b;
            if constexpr (C == Cmp::ne) return a != b;
            if constexpr (C == Cmp::lt) return a < b;
            if constexpr (C == Cmp::le) return a <= b;
            if constexpr (C == Cmp::gt) return a > b;
            if constexpr (C == Cmp::ge) return a >= b;
        });
    });
}

void require_boolean(const KernelArgs& args) {
    for (const auto& in : args.inputs)
        if (in.type != ElementType::boolean) unsupported_type(args.op_type, in.type);
}

enum class Logic { and_, or_, xor_ };

// Booleans are read as bytes and any non-zero byte counts as true.
template <Logic L>
void logical_kernel(const KernelArgs& args) {
    require_boolean(args);
    binary_map<uint8_t, uint8_t>(args, [](uint8_t a, uint8_t b) -> uint8_t {
        const bool x = a != 0, y = b != 0;
        if constexpr (L == Logic::and_) return x && y;
        if constexpr (L == Logic::or_) return x || y;
        if constexpr (L == Logic::xor_) return x != y;
    });
}

void logical_not_kernel(const KernelArgs& args) {
    require_io(args, 1, 1, 1);
    require_boolean(args);
    unary_map<uint8_t, uint8_t>(args, [](uint8_t a) -> uint8_t { return a == 0; });
}

}  // namespace

void register_comparison_logical_kernels(KernelRegistry& r) {
    r.add("Equal", {"opset1"}, comparison_kernel<Cmp::eq>);
    r.add("NotEqual", {"opset1"}, comparison_kernel<Cmp::ne>);
    r.add("Less", {"opset1"}, comparison_kernel<Cmp::lt>);
    r.add("LessEqual", {"opset1"}, comparison_kernel<Cmp::le>);
    r.add("Greater", {"opset1"}, comparison_kernel<Cmp::gt>);
    r.add("GreaterEqual", {"opset1"}, comparison_kernel<Cmp::ge>);
    r.add("LogicalAnd", {"opset1"}, logical_kernel<Logic::and_>);
    r.add("LogicalOr", {"opset1"}, logical_kernel<Logic::or_>);
    r.add("LogicalXor", {"opset1"}, logical_kernel<Logic::xor_>);
    r.add("LogicalNot", {"opset1"}, logical_not_kernel);
}

}  // namespace mosaic::reference
