// The REFERENCE device's pooling and convolution kernels keep a table of window offsets (outputs x
// kernel positions), bounded at 2^27 entries: an AvgPool whose kernel spans a billion positions of
// padding (found by the reference_plugin fuzzer, tests/fuzz/regressions/onnx_reader/
// avgpool_window_table_of_2_41_entries.onnx: 2 TiB asked for) is refused at compile or inference
// with a message saying what to check, and an ordinary window still runs.
#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include <string>

namespace mosaic::test {
namespace {

// AvgPool-1 of a [1, 1, 4, 4] input of ones with a kernel of [2, width], padded right by width - 1,
// so that every window holds at least one input column.
std::shared_ptr<Model> avg_pool(int64_t width) {
    ModelBuilder b("avg_pool");
    Output x = b.parameter("x", ElementType::f32, {1, 1, 4, 4});
    b.result(b.op("AvgPool", {x},
                  {{"strides", "1,1"}, {"pads_begin", "0,0"}, {"pads_end", "0," + std::to_string(width - 1)},
                   {"kernel", "2," + std::to_string(width)}, {"exclude-pad", "true"}, {"rounding_type", "floor"},
                   {"auto_pad", "explicit"}},
                  "pool", "opset1"),
             "y");
    return b.build();
}

// The error of compiling and running once, or "" when it runs (then every output averages ones).
std::string run_error(const std::shared_ptr<Model>& model) {
    static Core core;
    try {
        InferRequest request = core.compile_model(model, "REFERENCE").create_infer_request();
        request.set_input_tensor(0, Tensor::from_vector({1, 1, 4, 4}, ElementType::f32, std::vector<float>(16, 1.0f)));
        request.infer();
        for (float v : request.get_output_tensor().to_vector<float>()) EXPECT_FLOAT_EQ(v, 1.0f);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

TEST(ReferenceWindow, ATableOfMoreThan2To27OffsetsIsRefusedNotAllocated) {
    const std::string error = run_error(avg_pool(int64_t{1} << 30));
    EXPECT_NE(error.find("a window of [2,1073741824] positions over [3,4] outputs"), std::string::npos) << error;
    EXPECT_NE(error.find("more than 2^27 offsets"), std::string::npos) << error;
    EXPECT_EQ(run_error(avg_pool(3)), "");
}

}  // namespace
}  // namespace mosaic::test
