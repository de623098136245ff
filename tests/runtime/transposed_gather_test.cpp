// Rows gathered from a transposed constant (graph/transposed_gather.hpp: ONNX Runtime GenAI's model
// builder writes an LLM's embedding as Gather(Transpose(head weight), ids)) read as the constant's
// columns: the same values on every device, the Gather's name kept, and no copy of the whole matrix
// per compiled shape (16 cached shapes of a Qwen2.5-0.5B-shaped builder model held 8.7 GB of them).
#include "common/process_status.hpp"
#include "common/test_checks.hpp"
#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace mosaic::test {
namespace {

// C [rows, columns] with C[r][c] = r + columns * c / 1000 (every value distinct); ids [?, ?] of
// `index_type`; embedded = Gather(Transpose(C), ids, `axis` 0 or -2) [?, ?, rows]; head = x [1, rows]
// x C, reading C directly.
std::shared_ptr<Model> tied_embedding(int64_t rows, int64_t columns, int64_t axis = 0,
                                      ElementType index_type = ElementType::i64) {
    std::vector<float> values(static_cast<size_t>(rows * columns));
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < columns; ++c) values[static_cast<size_t>(r * columns + c)] = r + columns * c / 1000.0f;
    ModelBuilder b("tied_embedding");
    Output ids = b.parameter("ids", index_type, {-1, -1});
    Output x = b.parameter("x", ElementType::f32, {1, rows});
    Output weight = b.constant<float>({rows, columns}, values, "head_weight");
    Output table = b.op("Transpose", {weight, b.constant<int64_t>({2}, {1, 0}, "order")}, {}, "table");
    b.result(b.op("Gather", {table, ids, b.constant<int64_t>({}, {axis}, "axis")}, {{"batch_dims", "0"}}, "embed", "opset8"),
             "embedded");
    b.result(b.op("MatMul", {x, weight}, {}, "head"), "logits");
    return b.build();
}

float expected_value(int64_t columns, int64_t id, int64_t r) { return r + columns * id / 1000.0f; }

Tensor ids_tensor(const std::vector<int64_t>& ids, ElementType type) {
    Tensor t(type, {1, static_cast<int64_t>(ids.size())});
    for (size_t i = 0; i < ids.size(); ++i) {
        if (type == ElementType::i32) t.data<int32_t>()[i] = static_cast<int32_t>(ids[i]);
        else t.data<int64_t>()[i] = ids[i];
    }
    return t;
}

class TransposedGather : public ::testing::TestWithParam<std::string> {};

TEST_P(TransposedGather, RowsOfATransposedConstantAreItsColumns) {
    const std::string device = GetParam();
    const int64_t rows = 6, columns = 40;
    Core core;
    // Axis 0 with i64 ids, axis -2 with i32 ids (the same axis of a matrix); -1 is the last column.
    for (const auto& [axis, index_type] : {std::pair{int64_t{0}, ElementType::i64}, std::pair{int64_t{-2}, ElementType::i32}}) {
        CompiledModel compiled = core.compile_model(tied_embedding(rows, columns, axis, index_type), device);
        InferRequest request = compiled.create_infer_request();
        for (const std::vector<int64_t>& ids : {std::vector<int64_t>{3, 0, 39, 7, 7, -1}, std::vector<int64_t>{25}}) {
            Tensor x(ElementType::f32, {1, rows});
            for (int64_t r = 0; r < rows; ++r) x.data<float>()[r] = r == 2 ? 1.0f : 0.0f;
            request.set_tensor("ids", ids_tensor(ids, index_type));
            request.set_tensor("x", x);
            request.infer();
            const std::vector<float> embedded = request.get_tensor("embedded").to_vector<float>();
            ASSERT_EQ(embedded.size(), ids.size() * rows);
            for (size_t i = 0; i < ids.size(); ++i) {
                const int64_t id = ids[i] < 0 ? ids[i] + columns : ids[i];
                for (int64_t r = 0; r < rows; ++r)
                    EXPECT_FLOAT_EQ(embedded[i * rows + r], expected_value(columns, id, r))
                        << device << ": id " << ids[i] << ", row " << r << ", axis " << axis;
            }
            // The head still reads the matrix untransposed: row 2 of C.
            const std::vector<float> logits = request.get_tensor("logits").to_vector<float>();
            for (int64_t c = 0; c < columns; ++c) EXPECT_FLOAT_EQ(logits[c], expected_value(columns, c, 2)) << device;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, TransposedGather, ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU"),
                         DeviceTestName{});

// On the CPU, named .../CPU (TSan's stage leaves out what runs oneDNN's uninstrumented threads).
class TransposedGatherOn : public ::testing::TestWithParam<std::string> {};

// The CPU runs the rewritten graph: a Gather of the constant's columns, no Transpose of the matrix.
TEST_P(TransposedGatherOn, TheCpuGathersColumnsOfTheConstant) {
    Core core;
    CompiledModel compiled = core.compile_model(tied_embedding(6, 40), GetParam());
    InferRequest request = compiled.create_infer_request();
    request.set_tensor("ids", ids_tensor({1, 2}, ElementType::i64));
    Tensor x(ElementType::f32, {1, 6});
    std::fill(x.data<float>(), x.data<float>() + 6, 0.0f);
    request.set_tensor("x", x);
    request.infer();  // a dynamic model compiles the specialization its inputs need
    const std::string executors = compiled.get_property("CPU_EXECUTORS").dump();
    EXPECT_TRUE(contains(executors, "\"embed/columns\"")) << executors;
    EXPECT_FALSE(contains(executors, "\"table\"")) << executors;
}

// Each input shape compiles a specialization; before the rewrite each folded the Transpose into a
// copy of the whole 8 MiB matrix (12 shapes: 96 MiB), now each gathers the columns it reads.
TEST_P(TransposedGatherOn, SpecializationsDoNotEachCopyTheMatrix) {
    const int64_t rows = 512, columns = 4096;
    Core core;
    CompiledModel compiled = core.compile_model(tied_embedding(rows, columns), GetParam());
    InferRequest request = compiled.create_infer_request();
    Tensor x(ElementType::f32, {1, rows});
    std::fill(x.data<float>(), x.data<float>() + rows, 0.0f);
    request.set_tensor("x", x);
    auto infer_length = [&](int64_t length) {
        std::vector<int64_t> ids(static_cast<size_t>(length));
        for (int64_t i = 0; i < length; ++i) ids[static_cast<size_t>(i)] = (i * 37) % columns;
        request.set_tensor("ids", ids_tensor(ids, ElementType::i64));
        request.infer();
        EXPECT_FLOAT_EQ(request.get_tensor("embedded").to_vector<float>()[rows - 1], expected_value(columns, 0, rows - 1));
    };
    infer_length(1);
    const int64_t before = process_status_kib("VmRSS");
    if (before < 0) GTEST_SKIP() << "no VmRSS in /proc/self/status";
    for (int64_t length = 2; length <= 13; ++length) infer_length(length);
    EXPECT_EQ(compiled.get_property("DYNAMIC_SHAPE_COMPILATIONS"), 13);
    const int64_t grown_mib = (process_status_kib("VmRSS") - before) / 1024;
    EXPECT_LT(grown_mib, 48) << "12 specializations grew the process by " << grown_mib << " MiB";
}

INSTANTIATE_TEST_SUITE_P(Cpu, TransposedGatherOn, ::testing::Values("CPU"), DeviceTestName{});

}  // namespace
}  // namespace mosaic::test
