// ROIAlign's sampling grid on the REFERENCE device is bounded: a sampling_ratio of INT64_MAX (found by
// the reference_plugin fuzzer, tests/fuzz/regressions/onnx_reader/roi_align_sampling_ratio_int64_max.onnx:
// the grid's size overflowed 64 bits, UBSan) or an ROI whose adaptive grid, ceil(bin size), is huge
// is refused at inference with a message saying what to change, and an ordinary ROI still runs.
#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace mosaic::test {
namespace {

// ROIAlign-9 of a [1, 1, 10, 10] map with 2 x 2 bins over one ROI given as an input.
std::shared_ptr<Model> roi_align(int64_t sampling_ratio) {
    ModelBuilder b("roi_align");
    Output x = b.parameter("x", ElementType::f32, {1, 1, 10, 10});
    Output rois = b.parameter("rois", ElementType::f32, {1, 4});
    Output batch = b.constant<int64_t>({1}, {0}, "batch");
    b.result(b.op("ROIAlign", {x, rois, batch},
                  {{"pooled_h", "2"}, {"pooled_w", "2"}, {"sampling_ratio", std::to_string(sampling_ratio)},
                   {"spatial_scale", "1"}, {"mode", "avg"}, {"aligned_mode", "asymmetric"}},
                  "roi_align", "opset9"),
             "y");
    return b.build();
}

// The error of one inference, or "" when it runs.
std::string infer_error(const std::shared_ptr<Model>& model, std::vector<float> roi) {
    static Core core;
    InferRequest request = core.compile_model(model, "REFERENCE").create_infer_request();
    request.set_input_tensor(0, Tensor::from_vector({1, 1, 10, 10}, ElementType::f32, std::vector<float>(100, 1.0f)));
    request.set_input_tensor(1, Tensor::from_vector({1, 4}, ElementType::f32, roi));
    try {
        request.infer();
    } catch (const std::exception& e) {
        return e.what();
    }
    for (float v : request.get_output_tensor().to_vector<float>()) EXPECT_FLOAT_EQ(v, 1.0f);  // the average of ones
    return "";
}

TEST(ReferenceRoiAlign, ASamplingGridBeyondItsBoundIsRefusedNotOverflowed) {
    const std::string huge_ratio = infer_error(roi_align(std::numeric_limits<int64_t>::max()), {1, 1, 6, 6});
    EXPECT_NE(huge_ratio.find("sampling_ratio 9223372036854775807 squared"), std::string::npos) << huge_ratio;
    EXPECT_NE(huge_ratio.find("more than 2^26"), std::string::npos) << huge_ratio;

    // The adaptive grid (sampling_ratio 0) of an ROI a billion pixels wide, and of a NaN corner.
    const std::string huge_roi = infer_error(roi_align(0), {0, 0, 1e9f, 1e9f});
    EXPECT_NE(huge_roi.find("ceil(bin size)"), std::string::npos) << huge_roi;
    const std::string nan_roi = infer_error(roi_align(0), {0, 0, std::nanf(""), 4});
    EXPECT_NE(nan_roi.find("more than 2^26"), std::string::npos) << nan_roi;

    EXPECT_EQ(infer_error(roi_align(2), {1, 1, 6, 6}), "");
    EXPECT_EQ(infer_error(roi_align(0), {1, 1, 6, 6}), "");
}

// A feature map of width 0 has no pixel to sample: every bin is 0 (the kernel clamped samples onto
// the edge pixel -1 and read before the data; found by the reference_plugin fuzzer,
// tests/fuzz/regressions/onnx_reader/roi_align_over_a_feature_map_of_width_0.onnx).
TEST(ReferenceRoiAlign, AnEmptyFeatureMapGivesZeros) {
    for (const char* mode : {"avg", "max"}) {
        ModelBuilder b("roi_align_empty");
        Output x = b.parameter("x", ElementType::f32, {1, 2, 10, 0});
        Output rois = b.constant<float>({1, 4}, {0, 0, 4, 4}, "rois");
        Output batch = b.constant<int64_t>({1}, {0}, "batch");
        b.result(b.op("ROIAlign", {x, rois, batch},
                      {{"pooled_h", "2"}, {"pooled_w", "2"}, {"sampling_ratio", "2"}, {"spatial_scale", "1"},
                       {"mode", mode}, {"aligned_mode", "half_pixel_for_nn"}},
                      "roi_align", "opset9"),
                 "y");
        Core core;
        InferRequest request = core.compile_model(b.build(), "REFERENCE").create_infer_request();
        request.infer();
        EXPECT_EQ(request.get_output_tensor().get_shape(), (Shape{1, 2, 2, 2})) << mode;
        EXPECT_EQ(request.get_output_tensor().to_vector<float>(), std::vector<float>(8, 0.0f)) << mode;
    }
}

// No channel: the output is empty whatever its pooled sizes, and an INT64_MAX width is no overflow
// (found by the reference_plugin fuzzer:
// tests/fuzz/regressions/onnx_reader/roi_align_of_no_channel_and_an_int64_max_width.onnx).
TEST(ReferenceRoiAlign, AnEmptyOutputIsNotComputed) {
    ModelBuilder b("roi_align_no_channel");
    Output x = b.parameter("x", ElementType::f32, {1, 0, 10, 10});
    Output rois = b.constant<float>({1, 4}, {0, 0, 4, 4}, "rois");
    Output batch = b.constant<int64_t>({1}, {0}, "batch");
    b.result(b.op("ROIAlign", {x, rois, batch},
                  {{"pooled_h", "3"}, {"pooled_w", std::to_string(std::numeric_limits<int64_t>::max())},
                   {"sampling_ratio", "2"}, {"spatial_scale", "1"}, {"mode", "avg"}},
                  "roi_align", "opset9"),
             "y");
    Core core;
    InferRequest request = core.compile_model(b.build(), "REFERENCE").create_infer_request();
    request.infer();
    EXPECT_EQ(request.get_output_tensor().get_size(), 0u);
}

}  // namespace
}  // namespace mosaic::test
