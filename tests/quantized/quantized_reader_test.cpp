// Reading quantization ops: blocked dequantization (opset 21's block_size) computed exactly, a QDQ
// model agreeing on every device, and the bad parameters a broken quantizer writes refused with
// the node named and what to give instead.
#include "cpu/cpu_test_util.hpp"
#include "quantized/quantized_test_util.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace mosaic::test {
namespace {

using ::onnx::TensorProto;

std::string read_error(QdqModel& q) {
    try {
        q.read("bad_quantization");
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

// x (u8) -> DequantizeLinear with `scale` (f32) and `zero_point` (u8, none when empty) of
// `scale_dims`; the attributes `axis` and `block_size` set when >= 0.
QdqModel dequantize_model(const std::vector<int64_t>& x_dims, const std::vector<int64_t>& scale_dims,
                          const std::vector<float>& scale, const std::vector<uint8_t>& zero_point, int64_t axis,
                          int64_t block, int64_t opset = 21) {
    QdqModel q(opset);
    add_input(q.proto(), "x", x_dims, TensorProto::UINT8);
    add_initializer(q.proto(), "s", scale_dims, scale);
    std::vector<std::string> in{"x", "s"};
    if (!zero_point.empty()) {
        add_raw_initializer<uint8_t>(q.proto(), "z", TensorProto::UINT8, scale_dims, zero_point);
        in.push_back("z");
    }
    auto* n = add_node(q.proto(), "DequantizeLinear", in, {"y"}, "dq");
    if (axis >= 0) set_int(n, "axis", axis);
    if (block >= 0) set_int(n, "block_size", block);
    q.output("y", x_dims);
    return q;
}

TEST(QuantizedReader, BlockedDequantizationRepeatsEachScaleOverItsBlock) {
    // 7 values in blocks of 3 along axis 1: scales s0 for 0..2, s1 for 3..5, s2 for 6 (a short last block).
    QdqModel q = dequantize_model({2, 7}, {2, 3}, {1, 2, 3, 10, 20, 30}, {0, 1, 2, 3, 4, 5}, 1, 3);
    const std::shared_ptr<Model> model = q.read("blocked");
    std::vector<uint8_t> x(14);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(10 + i);
    CompiledModel compiled = shared_core().compile_model(model, "REFERENCE");
    InferRequest r = compiled.create_infer_request();
    r.set_tensor("x", Tensor::from_vector(Shape{2, 7}, ElementType::u8, x));
    r.infer();
    const std::vector<float> y = r.get_tensor("y").to_vector<float>();
    const float scale[2][3] = {{1, 2, 3}, {10, 20, 30}};
    const float zero[2][3] = {{0, 1, 2}, {3, 4, 5}};
    for (size_t row = 0; row < 2; ++row)
        for (size_t col = 0; col < 7; ++col)
            EXPECT_EQ(y[row * 7 + col], (x[row * 7 + col] - zero[row][col / 3]) * scale[row][col / 3]) << row << "," << col;
}

TEST(QuantizedReader, NaNOrInfiniteScaleIsRefused) {
    for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        QdqModel q = dequantize_model({6}, {}, {bad}, {3}, -1, -1, 13);
        const std::string error = read_error(q);
        EXPECT_NE(error.find("'dq'"), std::string::npos) << error;
        EXPECT_NE(error.find("not a usable scale (NaN or infinite)"), std::string::npos) << error;
    }
}

// Quantizing divides by the scale: zero is refused there. Dequantizing by zero gives zeros (a dead
// channel of per-channel weights), which ONNX Runtime runs: read.
TEST(QuantizedReader, ZeroScaleIsRefusedWhereItDivides) {
    QdqModel q(13);
    add_input(q.proto(), "x", {6});
    add_initializer(q.proto(), "s", {}, {0.0f});
    add_raw_initializer<uint8_t>(q.proto(), "z", TensorProto::UINT8, {}, {3});
    add_node(q.proto(), "QuantizeLinear", {"x", "s", "z"}, {"y"}, "q");
    q.output("y", {6});
    const std::string error = read_error(q);
    EXPECT_NE(error.find("'q'"), std::string::npos) << error;
    EXPECT_NE(error.find("not a usable scale (quantizing divides by it)"), std::string::npos) << error;
    QdqModel dq = dequantize_model({6}, {}, {0.0f}, {3}, -1, -1, 13);
    EXPECT_EQ(read_error(dq), "");
}

TEST(QuantizedReader, PerAxisLengthMustMatchTheAxis) {
    QdqModel q = dequantize_model({2, 6}, {4}, {1, 1, 1, 1}, {0, 0, 0, 0}, 1, -1, 13);
    const std::string error = read_error(q);
    EXPECT_NE(error.find("the scale has 4 values but axis 1"), std::string::npos) << error;
}

TEST(QuantizedReader, ZeroPointOfAnotherTypeIsRefused) {
    QdqModel q(13);
    add_input(q.proto(), "x", {6}, TensorProto::UINT8);
    add_initializer(q.proto(), "s", {}, {0.5f});
    add_raw_initializer<int8_t>(q.proto(), "z", TensorProto::INT8, {}, {3});
    add_node(q.proto(), "DequantizeLinear", {"x", "s", "z"}, {"y"}, "dq");
    q.output("y", {6});
    const std::string error = read_error(q);
    EXPECT_NE(error.find("the zero point is i8 but the quantized tensor is u8"), std::string::npos) << error;
}

TEST(QuantizedReader, BlockSizeThatDoesNotCoverTheAxisIsRefused) {
    // 7 values in blocks of 2 need 4 scales, not 3.
    QdqModel q = dequantize_model({2, 7}, {2, 3}, {1, 1, 1, 1, 1, 1}, {}, 1, 2);
    const std::string error = read_error(q);
    EXPECT_NE(error.find("with block_size 2"), std::string::npos) << error;
    EXPECT_NE(error.find("must have 4 values along axis 1"), std::string::npos) << error;
}

// The same QDQ model on every device: REFERENCE and the GPU run the reader's f32 decomposition,
// the CPU its integer kernels, HETERO:GPU,CPU a split of the two. Within one output step of each other.
TEST(QuantizedReader, QdqConvolutionAgreesOnEveryDevice) {
    QdqModel q;
    q.input("x", {1, 4, 8, 8});
    const std::string x = q.qdq("x", 0.02f, 128);
    const std::string c = q.conv(x, q.weights({8, 4, 3, 3}, 21, 0), q.bias(8, 0.02f * 0.004f, 22), 3);
    q.qdq(c, 0.05f, 128);
    const std::shared_ptr<Model> model = q.finish("y", {1, 8, 8, 8}, "every_device");
    const Inputs inputs{{"x", random_tensor({1, 4, 8, 8}, 23)}};
    const RunResult ref = run_on(model, "REFERENCE", inputs);
    for (const std::string device : {"CPU", "GPU", "HETERO:GPU,CPU"}) {
        const RunResult other = run_on(model, device, inputs);
        expect_near_all(ref.outputs[0], other.outputs[0], 0.05 * 1.01, 0, device);
    }
}

}  // namespace
}  // namespace mosaic::test
