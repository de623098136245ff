// Integer arithmetic on the GPU (eltwise.cl's binary_int): i32 and i64 operands computed at run
// time, bit-identical to REFERENCE, at the edges where integer semantics differ from float:
// wrapping past the type's range, division truncating or flooring (Divide's m_pythondiv), the
// sign of Mod and FloorMod, INT_MIN / -1, powers by repeated squaring. A divisor that may be zero
// and a negative exponent stay on the next device, with the reason: the reference refuses those
// values at run time, which a kernel cannot.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

namespace mosaic::test::gpu {
namespace {

template <typename T>
ElementType type_of() {
    return sizeof(T) == 4 ? ElementType::i32 : ElementType::i64;
}

// x op c for each of `ops`, x a parameter of `xs`, c the constant `cs` broadcast along the last axis.
template <typename T>
std::shared_ptr<Model> integer_model(const std::vector<T>& xs, const std::vector<T>& cs,
                                     const std::vector<std::pair<std::string, Attributes>>& ops) {
    ModelBuilder b("gpu_integer_ops");
    const int64_t n = static_cast<int64_t>(cs.size());
    Output x = b.parameter("x", type_of<T>(), {static_cast<int64_t>(xs.size()) / n, n});
    Output c = b.constant<T>({n}, cs, "c");
    for (size_t i = 0; i < ops.size(); ++i) {
        const std::string name = ops[i].first + std::to_string(i);
        b.result(b.op(ops[i].first, {x, c}, ops[i].second, name), name + "_out");
    }
    return b.build();
}

// Every output of `model` on `device`, as raw bytes; on the GPU every record must name `kernel`.
std::vector<std::vector<uint8_t>> outputs_on(const std::shared_ptr<Model>& model, const std::string& device, const Tensor& x,
                                             const std::string& kernel = "") {
    CompiledModel compiled = shared_core().compile_model(model, device, {{"PERF_COUNT", true}});
    InferRequest r = compiled.create_infer_request();
    r.set_tensor("x", x);
    r.infer();
    std::vector<std::vector<uint8_t>> out;
    for (const Node* result : model->get_results()) {
        Tensor t = r.get_tensor(Model::output_name(*result));
        const auto* p = static_cast<const uint8_t*>(t.data());
        out.emplace_back(p, p + t.get_byte_size());
    }
    if (!kernel.empty())
        for (const ProfilingInfo& p : r.get_profiling_info()) EXPECT_EQ(p.exec_type, kernel) << p.node_name;
    return out;
}

template <typename T>
void expect_gpu_equals_reference() {
    constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    // Rows of x against the divisors/exponents [-1, 3, -4]: signs, exact and inexact quotients, the
    // extremes (lo / -1 wraps to lo; lo * 3 and hi + 3 wrap).
    const std::vector<T> cs = {-1, 3, -4};
    const std::vector<T> xs = {7, 7, 7, -7, -7, -7, 0, 12, -12, lo, lo, lo, hi, hi, hi, 1, -2, 5};
    const Attributes python{{"m_pythondiv", "true"}}, c_div{{"m_pythondiv", "false"}};
    const auto ops = std::vector<std::pair<std::string, Attributes>>{
        {"Add", {}},     {"Subtract", {}}, {"Multiply", {}},  {"Maximum", {}}, {"Minimum", {}},
        {"SquaredDifference", {}}, {"Divide", python}, {"Divide", c_div}, {"Mod", {}}, {"FloorMod", {}}};
    const auto model = integer_model<T>(xs, cs, ops);
    EXPECT_TRUE(gpu_supports_all(model)) << unsupported_on_gpu(model);
    const Tensor x = Tensor::from_vector({static_cast<int64_t>(xs.size()) / 3, 3}, type_of<T>(), xs);
    const std::string kernel = std::string("binary_bcast_") + to_string(type_of<T>());
    const auto ref = outputs_on(model, "REFERENCE", x), got = outputs_on(model, "GPU", x, kernel);
    ASSERT_EQ(got.size(), ref.size());
    for (size_t o = 0; o < ref.size(); ++o) {
        ASSERT_EQ(got[o].size(), ref[o].size());
        std::vector<T> e(ref[o].size() / sizeof(T)), a(e.size());
        std::memcpy(e.data(), ref[o].data(), ref[o].size());
        std::memcpy(a.data(), got[o].data(), got[o].size());
        EXPECT_EQ(a, e) << ops[o].first << " (output " << o << ")";
    }
    // Powers: exponents 0, 1 and 5 (3^5, and wrapping 7^5 · ... for large bases).
    const auto pow_model = integer_model<T>({3, -2, 1000, -1, 0, hi}, {0, 1, 5}, {{"Power", {}}});
    const Tensor px = Tensor::from_vector({2, 3}, type_of<T>(), std::vector<T>{3, -2, 1000, -1, 0, hi});
    EXPECT_EQ(outputs_on(pow_model, "GPU", px, kernel), outputs_on(pow_model, "REFERENCE", px));
}

TEST(GpuInteger, I32ArithmeticIsBitIdenticalToReference) { expect_gpu_equals_reference<int32_t>(); }
TEST(GpuInteger, I64ArithmeticIsBitIdenticalToReference) { expect_gpu_equals_reference<int64_t>(); }

TEST(GpuInteger, DivisorsThatMayBeZeroAndNegativeExponentsStayOnTheNextDevice) {
    ModelBuilder b("gpu_integer_refused");
    Output x = b.parameter("x", ElementType::i64, {2, 3});
    Output y = b.parameter("y", ElementType::i64, {2, 3});
    b.result(b.op("Divide", {x, y}, {}, "div_runtime"), "a");
    b.result(b.op("Mod", {x, b.constant<int64_t>({3}, {2, 0, 5}, "zero")}, {}, "mod_zero"), "b");
    b.result(b.op("Power", {x, b.constant<int64_t>({3}, {2, -1, 1}, "negative")}, {}, "pow_negative"), "c");
    const std::string why = unsupported_on_gpu(b.build());
    EXPECT_NE(why.find("div_runtime (GPU: integer Divide needs its divisor known at compile time"), std::string::npos) << why;
    EXPECT_NE(why.find("mod_zero (GPU: integer Mod by zero has no GPU kernel"), std::string::npos) << why;
    EXPECT_NE(why.find("pow_negative (GPU: integer Power to a negative power has no GPU kernel"), std::string::npos) << why;
}

}  // namespace
}  // namespace mosaic::test::gpu
