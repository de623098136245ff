// Comparison kernels (any element type in, boolean out), logical kernels (boolean in and out) and
// bitwise kernels (integer or boolean in, the same out), numpy broadcasting.
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

enum class Bits { and_, or_, xor_ };

// BitwiseAnd/Or/Xor over integers, and over booleans as the logical ops (a boolean is 0 or 1).
template <Bits B>
void bitwise_kernel(const KernelArgs& args) {
    dispatch<kInteger | kBool>(args.inputs.at(0).type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        binary_map<T, T>(args, [](T a, T b) -> T {
            if constexpr (B == Bits::and_) return static_cast<T>(a & b);
            if constexpr (B == Bits::or_) return static_cast<T>(a | b);
            if constexpr (B == Bits::xor_) return static_cast<T>(a ^ b);
        });
    });
}

// BitwiseNot: every bit flipped; a boolean negated.
void bitwise_not_kernel(const KernelArgs& args) {
    require_io(args, 1, 1, 1);
    dispatch<kInteger | kBool>(args.inputs.at(0).type, args.op_type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        unary_map<T, T>(args, [](T a) -> T {
            if constexpr (std::is_same_v<T, bool>) return !a;
            else return static_cast<T>(~a);
        });
    });
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
    r.add("BitwiseAnd", {"opset13"}, bitwise_kernel<Bits::and_>);
    r.add("BitwiseOr", {"opset13"}, bitwise_kernel<Bits::or_>);
    r.add("BitwiseXor", {"opset13"}, bitwise_kernel<Bits::xor_>);
    r.add("BitwiseNot", {"opset13"}, bitwise_not_kernel);
}

}  // namespace mosaic::reference
