// MatMul of a batch of rows by one 2-D matrix runs as one tall 2-D product (every fully connected
// layer of an encoder); a bias along the columns fuses either way, one that varies along the rows
// keeps the batched form. Both agree with REFERENCE.
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

}  // namespace
}  // namespace mosaic::test
