// Translators that folded shapes, read with every dimension dynamic: each emits its shape arithmetic
// as ops (or an op whose shape inference waits for the values), so the model reads without shapes
// and one compiled model runs at two input shapes, equal to the same model read with those shapes
// given (the translators' static path). The patterns as exporters write them: Resize with sizes
// from Shape (paddle2onnx's FPN upsampling), Resize with constant scales, Softmax/Hardmax before
// opset 13 (coerced to 2-D), ConvTranspose, Pad with pads computed from the input's shape, Range
// between bounds computed from it (optimum's decoders: positions from the past's length).
#include "onnx/onnx_model_builder.hpp"

#include <mosaic/mosaic.hpp>
#include <mosaic/onnx.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <random>

namespace mosaic::test {
namespace {

namespace fs = std::filesystem;
using ::onnx::TensorProto;

::onnx::TensorProto* add_i64(::onnx::ModelProto& m, const std::string& name, const std::vector<int64_t>& values) {
    return add_initializer_i64(m, name, {static_cast<int64_t>(values.size())}, values);
}

// An input of `rank` dynamic dimensions, each named apart.
void add_dynamic_input(::onnx::ModelProto& m, const std::string& name, size_t rank) {
    add_input(m, name, std::vector<int64_t>(rank, -1));
    auto* dims = m.mutable_graph()->mutable_input()->rbegin()->mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int d = 0; d < dims->dim_size(); ++d) dims->mutable_dim(d)->set_dim_param(name + "_d" + std::to_string(d));
}

// Shape(x)[from:to] as an int64 list.
std::string shape_slice(::onnx::ModelProto& m, const std::string& x, int64_t from, int64_t to, const std::string& name) {
    add_node(m, "Shape", {x}, {name + "_shape"});
    add_i64(m, name + "_from", {from});
    add_i64(m, name + "_to", {to});
    add_node(m, "Slice", {name + "_shape", name + "_from", name + "_to"}, {name});
    return name;
}

struct Pattern {
    std::string name;
    int64_t opset;
    size_t rank;
    std::function<void(::onnx::ModelProto&)> build;  // reads "x", writes "y"
    std::vector<Shape> shapes;
};

std::vector<Pattern> patterns() {
    std::vector<Pattern> p;
    p.push_back({"ResizeSizesFromShape", 11, 4, [](::onnx::ModelProto& m) {
                     // sizes = [N, C, 2H, 3W] from Shape(x), nearest (paddle2onnx's upsampling)
                     const std::string lead = shape_slice(m, "x", 0, 2, "lead");
                     const std::string hw = shape_slice(m, "x", 2, 4, "hw");
                     add_i64(m, "factor", {2, 3});
                     add_node(m, "Mul", {hw, "factor"}, {"hw2"});
                     add_node(m, "Concat", {lead, "hw2"}, {"sizes"});
                     set_int(m.mutable_graph()->mutable_node()->rbegin().operator->(), "axis", 0);
                     add_initializer(m, "roi", {0}, {});
                     add_initializer(m, "scales", {0}, {});
                     auto* n = add_node(m, "Resize", {"x", "roi", "scales", "sizes"}, {"y"});
                     set_string(n, "mode", "nearest");
                     set_string(n, "coordinate_transformation_mode", "asymmetric");
                     set_string(n, "nearest_mode", "floor");
                 },
                 {{1, 3, 4, 5}, {2, 2, 3, 7}}});
    p.push_back({"ResizeLinearConstantScales", 13, 4, [](::onnx::ModelProto& m) {
                     add_initializer(m, "scales", {4}, {1.0f, 1.0f, 2.0f, 0.5f});
                     auto* n = add_node(m, "Resize", {"x", "", "scales"}, {"y"});
                     set_string(n, "mode", "linear");
                 },
                 {{1, 2, 3, 8}, {1, 1, 5, 6}}});
    p.push_back({"Softmax11CoercedTo2D", 11, 3, [](::onnx::ModelProto& m) {
                     set_int(add_node(m, "Softmax", {"x"}, {"y"}), "axis", 1);
                 },
                 {{2, 3, 4}, {3, 2, 5}}});
    p.push_back({"Hardmax11CoercedTo2D", 11, 3, [](::onnx::ModelProto& m) {
                     set_int(add_node(m, "Hardmax", {"x"}, {"y"}), "axis", 1);
                 },
                 {{2, 3, 4}, {1, 4, 2}}});
    p.push_back({"ConvTransposeStridedPadded", 11, 4, [](::onnx::ModelProto& m) {
                     std::vector<float> w(3 * 2 * 3 * 3);
                     for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
                     add_initializer(m, "w", {3, 2, 3, 3}, w);
                     auto* n = add_node(m, "ConvTranspose", {"x", "w"}, {"y"});
                     set_ints(n, "strides", {2, 2});
                     set_ints(n, "pads", {1, 1, 1, 1});
                     set_ints(n, "output_padding", {1, 0});
                 },
                 {{1, 3, 4, 5}, {2, 3, 6, 3}}});
    p.push_back({"PadComputedFromTheShape", 11, 4, [](::onnx::ModelProto& m) {
                     // pads = [0, 0, 0, 0] (Shape(x) - Shape(x)) then [0, 0, 1, 2]: begin and end halves
                     add_node(m, "Shape", {"x"}, {"s"});
                     add_node(m, "Sub", {"s", "s"}, {"zeros"});
                     add_i64(m, "ends", {0, 0, 1, 2});
                     add_node(m, "Concat", {"zeros", "ends"}, {"pads"});
                     set_int(m.mutable_graph()->mutable_node()->rbegin().operator->(), "axis", 0);
                     set_string(add_node(m, "Pad", {"x", "pads"}, {"y"}), "mode", "reflect");
                 },
                 {{1, 2, 4, 5}, {2, 1, 3, 6}}});
    p.push_back({"RangeFromTheShape", 11, 3, [](::onnx::ModelProto& m) {
                     // y = x + Range(d1, d1 + d2, 1) over the last axis: a decoder's positions, from
                     // the past's length to the past's plus the new tokens'
                     add_node(m, "Shape", {"x"}, {"s"});
                     for (const auto& [name, index] : {std::pair{"one", 1}, std::pair{"two", 2}}) {
                         auto* t = add_i64(m, std::string(name) + "_index", {index});
                         t->clear_dims();  // a scalar: Gather then gives a scalar
                         add_node(m, "Gather", {"s", std::string(name) + "_index"}, {std::string(name) + "_dim"});
                     }
                     add_node(m, "Add", {"one_dim", "two_dim"}, {"end"});
                     auto* step = add_i64(m, "step", {1});
                     step->clear_dims();
                     add_node(m, "Range", {"one_dim", "end", "step"}, {"positions"});
                     set_int(add_node(m, "Cast", {"positions"}, {"positions_f"}), "to", TensorProto::FLOAT);
                     add_node(m, "Add", {"x", "positions_f"}, {"y"});
                 },
                 {{1, 3, 4}, {2, 5, 1}}});
    return p;
}

Tensor random_tensor(const Shape& shape, unsigned seed) {
    Tensor t(ElementType::f32, shape);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    for (size_t i = 0; i < t.get_size(); ++i) t.data<float>()[i] = dist(gen);
    return t;
}

class OnnxDynamicTranslators : public ::testing::TestWithParam<std::tuple<std::string, size_t>> {};

TEST_P(OnnxDynamicTranslators, ReadWithoutShapesRunAtTwoShapesEqualToTheStaticReading) {
    const auto& [device, index] = GetParam();
    const Pattern pattern = patterns().at(index);
    SCOPED_TRACE(pattern.name + " on " + device);
    ::onnx::ModelProto m = onnx_model(pattern.opset);
    add_dynamic_input(m, "x", pattern.rank);
    pattern.build(m);
    add_output(m, "y", std::vector<int64_t>(pattern.rank, -1));
    const fs::path path = fs::temp_directory_path() / ("mosaic_dyn_" + pattern.name + "_" + std::to_string(::getpid()) + ".onnx");
    save(m, path.string());

    Core core;
    auto model = core.read_model(path.string());  // no shapes: every dimension dynamic
    EXPECT_EQ(model->input().get_partial_shape(), Shape(pattern.rank, -1));
    InferRequest dynamic = core.compile_model(model, device).create_infer_request();
    unsigned seed = 1;
    for (const Shape& shape : pattern.shapes) {
        onnx::ReadOptions options;
        options.input_shapes["x"] = shape;
        InferRequest fixed = core.compile_model(onnx::read_onnx(path.string(), options), "REFERENCE").create_infer_request();
        const Tensor x = random_tensor(shape, seed++);
        dynamic.set_tensor("x", x);
        dynamic.infer();
        fixed.set_tensor("x", x);
        fixed.infer();
        const Tensor got = dynamic.get_tensor("y"), want = fixed.get_tensor("y");
        ASSERT_EQ(to_string(got.get_shape()), to_string(want.get_shape())) << "at input shape " << to_string(shape);
        float worst = 0;
        for (size_t i = 0; i < want.get_size(); ++i)
            worst = std::max(worst, std::fabs(got.data<float>()[i] - want.data<float>()[i]));
        EXPECT_LE(worst, 1e-5f) << "at input shape " << to_string(shape);
    }
    fs::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Patterns, OnnxDynamicTranslators,
                         ::testing::Combine(::testing::Values("REFERENCE", "CPU"), ::testing::Range<size_t>(0, 7)),
                         [](const auto& info) {
                             return std::get<0>(info.param) + "_" + patterns().at(std::get<1>(info.param)).name;
                         });

// Reading `m` fails with a message holding each of `parts`.
void expect_read_refused(const ::onnx::ModelProto& m, std::initializer_list<const char*> parts) {
    const fs::path path = fs::temp_directory_path() / ("mosaic_dyn_refused_" + std::to_string(::getpid()) + ".onnx");
    save(m, path.string());
    try {
        Core().read_model(path.string());
        ADD_FAILURE() << "read";
    } catch (const std::exception& e) {
        const std::string msg = e.what();
        for (const char* part : parts) EXPECT_NE(msg.find(part), std::string::npos) << part << " in: " << msg;
    }
    fs::remove(path);
}

// What a run-time Resize cannot compute exactly is refused at read time, naming what to give.
TEST(OnnxDynamicTranslatorsErrors, AResizeThatNeedsItsShapesSaysSo) {
    ::onnx::ModelProto m = onnx_model(13);
    add_dynamic_input(m, "x", 4);
    add_initializer(m, "scales", {4}, {1.0f, 1.0f, 2.0f, 2.0f});
    auto* n = add_node(m, "Resize", {"x", "", "scales"}, {"y"}, "up");
    set_string(n, "mode", "linear");
    set_int(n, "antialias", 1);
    set_int(n, "exclude_outside", 1);
    add_output(m, "y", {-1, -1, -1, -1});
    expect_read_refused(m, {"'up'", "exclude_outside", "--shape"});
}

// Col2Im over three spatial dimensions: Mosaic's Col2Im (OpenVINO's) takes two; the reader names
// the node and the image_shape it was given.
TEST(OnnxDynamicTranslatorsErrors, ACol2ImOverThreeSpatialDimensionsIsRefusedByName) {
    ::onnx::ModelProto m = onnx_model(18);
    add_dynamic_input(m, "x", 3);
    add_initializer_i64(m, "image_shape", {3}, {4, 4, 4});
    add_initializer_i64(m, "block_shape", {3}, {2, 2, 2});
    add_node(m, "Col2Im", {"x", "image_shape", "block_shape"}, {"y"}, "fold3d");
    add_output(m, "y", {-1, -1, -1, -1, -1});
    expect_read_refused(m, {"'fold3d'", "image_shape of shape [3]", "2 spatial dimensions"});
}

}  // namespace
}  // namespace mosaic::test
