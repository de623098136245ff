// MatMul of a batch of rows by one 2-D matrix runs as one tall 2-D product (every fully connected
// layer of an encoder); a bias along the columns fuses either way, one that varies along the rows
// keeps the batched form. One row by constant weights (an LLM's decode step) runs the streaming
// kernel (gemv.hpp) on AVX-512 CPUs, with the bias, activations and residual Add after it, over
// packed weights or, with CPU_WEIGHTS_IN_PLACE, the model's own. All agree with REFERENCE.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test {
namespace {

std::shared_ptr<Model> rows_times_matrix(const Shape& bias_shape) {
    ModelBuilder b("fc");
    Output x = b.parameter("x", ElementType::f32, {2, 3, 8});
    Output y = b.op("MatMul", {x, random_constant(b, {8, 5}, 101, "w")}, {{"transpose_a", "false"}, {"transpose_b", "false"}},
                    "matmul");
    y = b.op("Add", {y, random_constant(b, bias_shape, 103, "bias")}, {}, "bias_add");
    b.result(b.op("Relu", {y}, {}, "relu"), "y");
    return b.build();
}

TEST(CpuMatMul, RowsTimesAMatrixWithAColumnBias) {
    for (const Shape& bias : {Shape{5}, Shape{1, 1, 5}}) {
        const RunResult r = expect_matches_reference(rows_times_matrix(bias), {{"x", random_tensor({2, 3, 8}, 1)}});
        ASSERT_EQ(op_records(r.profile).size(), 1u) << contents(r.profile);
        EXPECT_EQ(r.profile[0].node_type, "MatMul");
    }
}

TEST(CpuMatMul, RowsTimesAMatrixWithABiasAlongTheRows) {
    const RunResult r = expect_matches_reference(rows_times_matrix({3, 1}), {{"x", random_tensor({2, 3, 8}, 2)}});
    EXPECT_EQ(op_records(r.profile).size(), 1u) << contents(r.profile);
}

TEST(CpuMatMul, TransposedRowsStayBatched) {
    ModelBuilder b("fc_t");
    Output x = b.parameter("x", ElementType::f32, {2, 8, 3});
    b.result(b.op("MatMul", {x, random_constant(b, {8, 5}, 107, "w")}, {{"transpose_a", "true"}, {"transpose_b", "false"}},
                  "matmul"),
             "y");
    expect_matches_reference(b.build(), {{"x", random_tensor({2, 8, 3}, 3)}});
}

// One row of K by a constant [K, N] (or [N, K] with transpose_b), sizes that are not multiples of
// the packed blocks (16 rows, 64 columns), then what an LLM fuses after its projections.
struct RowCase {
    Shape a;
    int64_t k, n;
    bool transpose_b = false;
    Shape bias = {};        // empty: none
    bool swish = false;     // x * Sigmoid(x) after (a gate projection)
    bool residual = false;  // + another input after (a residual connection)
    bool computed_residual = false;  // the residual a Relu of that input, whose buffer the result may take
    bool relu_after = false;          // Relu after the residual Add
};

std::shared_ptr<Model> row_times_weights(const RowCase& c) {
    ModelBuilder b("row");
    Output x = b.parameter("x", ElementType::f32, c.a);
    const Shape w = c.transpose_b ? Shape{c.n, c.k} : Shape{c.k, c.n};
    Output y = b.op("MatMul", {x, random_constant(b, w, 109, "w")},
                    {{"transpose_a", "false"}, {"transpose_b", c.transpose_b ? "true" : "false"}}, "matmul");
    if (!c.bias.empty()) y = b.op("Add", {y, random_constant(b, c.bias, 113, "bias")}, {}, "bias_add");
    if (c.swish) y = b.op("Multiply", {y, b.op("Sigmoid", {y}, {}, "sigmoid")}, {}, "swish");
    if (c.residual) {
        Shape out = c.a;
        out.back() = c.n;
        Output r = b.parameter("r", ElementType::f32, out);
        if (c.computed_residual) r = b.op("Relu", {r}, {}, "residual_relu");
        y = b.op("Add", {y, r}, {}, "residual");
        if (c.relu_after) y = b.op("Relu", {y}, {}, "relu_after");
    }
    b.result(y, "y");
    return b.build();
}

TEST(CpuMatMul, OneRowByConstantWeightsStreamsThemWithItsPostOps) {
    const bool avx512 = __builtin_cpu_supports("avx512f");
    for (const RowCase& c : {RowCase{{1, 100}, 100, 200}, RowCase{{1, 1, 896}, 896, 130, true, {130}},
                             RowCase{{100}, 100, 1}, RowCase{{1, 1, 70}, 70, 300, false, {300}, true},
                             RowCase{{1, 64}, 64, 64, true, {64}, true, true}, RowCase{{1, 1, 33}, 33, 96, false, {}, false, true},
                             RowCase{{1, 1, 40}, 40, 70, true, {70}, false, true, true, true},
                             RowCase{{1, 37}, 37, 71, true}, RowCase{{1, 1, 50}, 50, 1, true},
                             RowCase{{1, 200}, 200, 71, true}, RowCase{{1, 5}, 5, 20}, RowCase{{1, 5}, 5, 20, true},
                             RowCase{{1, 7}, 7, 33}}) {
        const std::shared_ptr<Model> model = row_times_weights(c);
        const std::string what = "A " + to_string(c.a) + " x [" + std::to_string(c.k) + ", " + std::to_string(c.n) + "]";
        Shape out = c.a;
        out.back() = c.n;
        Inputs inputs{{"x", random_tensor(c.a, 7)}};
        if (c.residual) inputs.emplace("r", random_tensor(out, 8));
        // Packed weights (the default), then the weights where the model holds them.
        for (const bool in_place : {false, true}) {
            const RunResult r = expect_matches_reference(
                model, inputs, {{"PERF_COUNT", true}, {"CPU_WEIGHTS_IN_PLACE", in_place}});
            std::string exec_type = "(no MatMul record)";
            for (const ProfilingInfo& p : r.profile)
                if (p.node_type == "MatMul") exec_type = p.exec_type;
            const std::string kernel = in_place ? "gemv_in_place:avx512_core" : "gemv:avx512_core";
            EXPECT_EQ(exec_type == kernel, avx512) << what << ": " << exec_type << "\n" << contents(r.profile);
        }
    }
}

TEST(CpuMatMul, TwoRowsStayOnOneDnn) {
    for (const bool transpose_b : {false, true})
        for (const bool in_place : {false, true}) {
            const RunResult r =
                expect_matches_reference(row_times_weights({{2, 100}, 100, 200, transpose_b}), {{"x", random_tensor({2, 100}, 9)}},
                                         {{"PERF_COUNT", true}, {"CPU_WEIGHTS_IN_PLACE", in_place}});
            ASSERT_EQ(op_records(r.profile).size(), 1u) << contents(r.profile);
            EXPECT_EQ(r.profile[0].exec_type.rfind("gemv", 0), std::string::npos) << r.profile[0].exec_type;
        }
}

}  // namespace
}  // namespace mosaic::test
