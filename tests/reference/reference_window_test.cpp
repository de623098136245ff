// The REFERENCE device's pooling and convolution kernels walk only the window taps that read the
// input: a kernel spanning a billion positions of padding (found by the reference_plugin fuzzer,
// tests/fuzz/regressions/onnx_reader/avgpool_window_table_of_2_41_entries.onnx, when the kernels
// kept a table of outputs x kernel positions: 2 TiB asked for; bounded at 2^27 entries, building
// the table still took a fuzzed run past its time limit) runs as fast as a small one, right.
#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace mosaic::test {
namespace {

// AvgPool-1 of a [1, 1, 4, 4] input of ones with a kernel of [2, width], padded right by width - 1,
// so that every window holds at least one input column.
std::shared_ptr<Model> avg_pool(int64_t width, bool exclude_pad) {
    ModelBuilder b("avg_pool");
    Output x = b.parameter("x", ElementType::f32, {1, 1, 4, 4});
    b.result(b.op("AvgPool", {x},
                  {{"strides", "1,1"}, {"pads_begin", "0,0"}, {"pads_end", "0," + std::to_string(width - 1)},
                   {"kernel", "2," + std::to_string(width)}, {"exclude-pad", exclude_pad ? "true" : "false"},
                   {"rounding_type", "floor"}, {"auto_pad", "explicit"}},
                  "pool", "opset1"),
             "y");
    return b.build();
}

// The outputs of compiling and running once on `input`.
std::vector<float> run(const std::shared_ptr<Model>& model, const std::vector<float>& input) {
    static Core core;
    InferRequest request = core.compile_model(model, "REFERENCE").create_infer_request();
    request.set_input_tensor(0, Tensor::from_vector({1, 1, 4, 4}, ElementType::f32, input));
    request.infer();
    return request.get_output_tensor().to_vector<float>();
}

TEST(ReferenceWindow, AKernelOfABillionPositionsCostsOnlyTheTapsThatReadTheInput) {
    // Input row r, column c holds c + 4 r. Output [i, j] averages rows i, i+1 from column j on.
    std::vector<float> input(16);
    for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 4 + 4 * (i / 4));
    for (int64_t width : {int64_t{3}, int64_t{1} << 30}) {
        const std::vector<float> y = run(avg_pool(width, true), input);
        ASSERT_EQ(y.size(), 12u) << width;
        for (size_t i = 0; i < 3; ++i)
            for (size_t j = 0; j < 4; ++j) {
                const size_t last = std::min<size_t>(3, j + static_cast<size_t>(width) - 1);
                const float row_mean = (static_cast<float>(j) + static_cast<float>(last)) / 2;
                EXPECT_FLOAT_EQ(y[i * 4 + j], row_mean + 4.0f * static_cast<float>(i) + 2.0f) << width << " " << i << j;
            }
    }
    // Padding counted: the sum over the taps inside, divided by all 2 * width positions.
    const std::vector<float> counted = run(avg_pool(int64_t{1} << 30, false), std::vector<float>(16, 1.0f));
    EXPECT_FLOAT_EQ(counted[0], 8.0f / static_cast<float>(int64_t{1} << 31));
}

}  // namespace
}  // namespace mosaic::test
