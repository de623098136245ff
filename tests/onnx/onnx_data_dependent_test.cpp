// ONNX ops whose output size depends on values the model computes, on every device: the framework
// runs the model up to the op, the op on the host, and the rest at the size it gives (cut_model.hpp).
// - NonMaxSuppression over boxes and scores the model computes, as a detector's head does: two
//   inferences of one request select 2 and then 4 boxes.
// - Unique of computed values: 3 and then 5 distinct values, with their first positions, each
//   element's unique one and the counts.
// ONNX's own NonMaxSuppression and Unique tests run the same way (ctest onnx_data_dependent_*). Bad
// boxes' shapes, center_point_box values and Unique axes are refused naming the node.
#include "onnx_model_builder.hpp"

#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <unistd.h>

namespace mosaic::test {
namespace {

namespace fs = std::filesystem;

// raw [1, 5, 4] -> Relu -> boxes; logits [1, 2, 5] -> Sigmoid -> scores; NonMaxSuppression (at most
// 3 a class, IoU 0.5, scores above 0.5) -> selected [M, 3]; the box column + 1 as f32 -> picked [M, 1].
fs::path write_detector_tail(const std::string& file, const std::vector<int64_t>& boxes_shape = {1, 5, 4},
                             int64_t center_point_box = 0) {
    ::onnx::ModelProto m = onnx_model(13);
    add_input(m, "raw", boxes_shape);
    add_input(m, "logits", {1, 2, 5});
    add_node(m, "Relu", {"raw"}, {"boxes"}, "relu");
    add_node(m, "Sigmoid", {"logits"}, {"scores"}, "sigmoid");
    add_initializer_i64(m, "max_per_class", {1}, {3});
    add_initializer(m, "iou", {1}, {0.5f});
    add_initializer(m, "threshold", {1}, {0.5f});
    auto* nms = add_node(m, "NonMaxSuppression", {"boxes", "scores", "max_per_class", "iou", "threshold"}, {"selected"}, "nms");
    set_int(nms, "center_point_box", center_point_box);
    add_initializer_i64(m, "box_column", {1}, {2});
    add_node(m, "Gather", {"selected", "box_column"}, {"column"}, "column");
    set_int(m.mutable_graph()->mutable_node(m.graph().node_size() - 1), "axis", 1);
    auto* cast = add_node(m, "Cast", {"column"}, {"column_f"}, "cast");
    set_int(cast, "to", ::onnx::TensorProto::FLOAT);
    add_initializer(m, "one", {}, {1.0f});
    add_node(m, "Add", {"column_f", "one"}, {"picked"}, "plus_one");
    add_output(m, "selected", {-1, 3}, ::onnx::TensorProto::INT64);
    add_output(m, "picked", {-1, 1});
    const fs::path path = fs::temp_directory_path() / (file + "_" + std::to_string(::getpid()) + ".onnx");
    save(m, path.string());
    return path;
}

Tensor logits_for(const std::vector<float>& probabilities) {
    std::vector<float> logits;
    for (float p : probabilities) logits.push_back(std::log(p / (1 - p)));
    return Tensor::from_vector<float>({1, 2, 5}, ElementType::f32, logits);
}

std::string device_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string name = info.param;
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

class ComputedNms : public ::testing::TestWithParam<std::string> {};

TEST_P(ComputedNms, SelectsAtRunTimeAndTheRestRunsAtTheCount) {
    const fs::path path = write_detector_tail("mosaic_nms_tail");
    Core core;
    InferRequest request = core.compile_model(core.read_model(path.string()), GetParam()).create_infer_request();
    fs::remove(path);
    // Box 1 overlaps box 0 (IoU 0.91); the others are apart.
    request.set_tensor("raw", Tensor::from_vector<float>({1, 5, 4}, ElementType::f32,
                                                         {0, 0, 1, 1, 0, 0, 1, 1.1f, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7}));
    // Class 0: box 0 kept, box 1 suppressed by it, box 2 kept, boxes 3 and 4 below the threshold.
    request.set_tensor("logits", logits_for({0.9f, 0.8f, 0.7f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f}));
    request.infer();
    EXPECT_EQ(request.get_tensor("selected").to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
    EXPECT_EQ(request.get_tensor("picked").to_vector<float>(), (std::vector<float>{1, 3}));
    // Class 0 stops at three boxes; class 1 keeps box 4.
    request.set_tensor("logits", logits_for({0.9f, 0.8f, 0.7f, 0.65f, 0.6f, 0.1f, 0.1f, 0.1f, 0.1f, 0.95f}));
    request.infer();
    EXPECT_EQ(request.get_tensor("selected").to_vector<int64_t>(),
              (std::vector<int64_t>{0, 0, 0, 0, 0, 2, 0, 0, 3, 0, 1, 4}));
    EXPECT_EQ(request.get_tensor("picked").get_shape(), (Shape{4, 1}));
    EXPECT_EQ(request.get_tensor("picked").to_vector<float>(), (std::vector<float>{1, 3, 4, 5}));
}

INSTANTIATE_TEST_SUITE_P(Devices, ComputedNms, ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU"),
                         device_name);

std::string read_error(const fs::path& path) {
    try {
        Core().read_model(path.string());
    } catch (const std::exception& e) {
        fs::remove(path);
        return e.what();
    }
    fs::remove(path);
    return "read";
}

TEST(ComputedNmsErrors, BadBoxesAndEncodingsAreNamed) {
    const std::string boxes = read_error(write_detector_tail("mosaic_nms_bad_boxes", {1, 5, 3}));
    EXPECT_NE(boxes.find("'nms'"), std::string::npos) << boxes;
    EXPECT_NE(boxes.find("boxes must be [batches, boxes, 4] and scores [batches, classes, boxes], got [1,5,3]"),
              std::string::npos)
        << boxes;
    const std::string encoding = read_error(write_detector_tail("mosaic_nms_bad_encoding", {1, 5, 4}, 2));
    EXPECT_NE(encoding.find("center_point_box must be 0 or 1, got 2"), std::string::npos) << encoding;
}

// x [8] + 0 -> Unique (sorted, or in order of first occurrence) -> all four outputs.
fs::path write_unique(const std::string& file, int64_t sorted, std::optional<int64_t> axis = std::nullopt) {
    ::onnx::ModelProto m = onnx_model(13);
    add_input(m, "x", {8});
    add_initializer(m, "zero", {}, {0.0f});
    add_node(m, "Add", {"x", "zero"}, {"computed"}, "computed");
    auto* unique = add_node(m, "Unique", {"computed"}, {"y", "indices", "inverse", "counts"}, "unique");
    set_int(unique, "sorted", sorted);
    if (axis) set_int(unique, "axis", *axis);
    add_output(m, "y", {-1});
    for (const char* name : {"indices", "inverse", "counts"}) add_output(m, name, {-1}, ::onnx::TensorProto::INT64);
    const fs::path path = fs::temp_directory_path() / (file + "_" + std::to_string(::getpid()) + ".onnx");
    save(m, path.string());
    return path;
}

class ComputedUnique : public ::testing::TestWithParam<std::string> {};

TEST_P(ComputedUnique, CountsAtRunTimeSortedOrInOrderOfFirstOccurrence) {
    Core core;
    for (const int64_t sorted : {1, 0}) {
        const fs::path path = write_unique("mosaic_unique", sorted);
        InferRequest request = core.compile_model(core.read_model(path.string()), GetParam()).create_infer_request();
        fs::remove(path);
        request.set_tensor("x", Tensor::from_vector<float>({8}, ElementType::f32, {2, 1, 2, 3, 1, 1, 3, 2}));
        request.infer();
        EXPECT_EQ(request.get_tensor("y").to_vector<float>(), (sorted ? std::vector<float>{1, 2, 3} : std::vector<float>{2, 1, 3}));
        EXPECT_EQ(request.get_tensor("indices").to_vector<int64_t>(), (sorted ? std::vector<int64_t>{1, 0, 3} : std::vector<int64_t>{0, 1, 3}));
        EXPECT_EQ(request.get_tensor("inverse").to_vector<int64_t>(),
                  (sorted ? std::vector<int64_t>{1, 0, 1, 2, 0, 0, 2, 1} : std::vector<int64_t>{0, 1, 0, 2, 1, 1, 2, 0}));
        EXPECT_EQ(request.get_tensor("counts").to_vector<int64_t>(), (std::vector<int64_t>{3, 3, 2}));
        request.set_tensor("x", Tensor::from_vector<float>({8}, ElementType::f32, {5, -1, 4, 4, 0, 5, 9, -1}));
        request.infer();
        EXPECT_EQ(request.get_tensor("y").to_vector<float>(),
                  (sorted ? std::vector<float>{-1, 0, 4, 5, 9} : std::vector<float>{5, -1, 4, 0, 9}));
        EXPECT_EQ(request.get_tensor("counts").to_vector<int64_t>(),
                  (sorted ? std::vector<int64_t>{2, 1, 2, 2, 1} : std::vector<int64_t>{2, 2, 2, 1, 1}));
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, ComputedUnique, ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU"),
                         device_name);

TEST(ComputedUniqueErrors, BadAxesAndSortedValuesAreNamed) {
    const std::string axis = read_error(write_unique("mosaic_unique_bad_axis", 1, 1));
    EXPECT_NE(axis.find("'unique'"), std::string::npos) << axis;
    EXPECT_NE(axis.find("axis 1 is out of range"), std::string::npos) << axis;
    const std::string sorted = read_error(write_unique("mosaic_unique_bad_sorted", 2));
    EXPECT_NE(sorted.find("sorted must be 0 or 1, got 2"), std::string::npos) << sorted;
}

}  // namespace
}  // namespace mosaic::test
