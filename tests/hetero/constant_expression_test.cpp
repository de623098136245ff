// Constant expressions never split a graph: the decompression Converts of an FP16 IR's weights and
// the Reshape of a conv bias follow the ops that read them, or HETERO computes them once when the
// device that reads them cannot (constant_expressions.hpp).
#include "hetero_test_util.hpp"

namespace mosaic::test::hetero {
namespace {

// What ovc --compress_to_fp16 writes, plus an ONNX-style bias: per layer, an f16 weight ->
// Convert(f32) -> Convolution, a [C] bias -> Reshape [1,C,1,1] -> Add, then Relu.
std::shared_ptr<Model> fp16_cnn() {
    ModelBuilder b("fp16_cnn");
    Output x = b.parameter("x", ElementType::f32, {1, 3, 8, 8});
    int64_t in_c = 3;
    for (int layer = 0; layer < 3; ++layer) {
        const std::string name = "layer" + std::to_string(layer);
        const int64_t out_c = 4;
        const std::vector<float> w = pattern(static_cast<size_t>(out_c * in_c * 9), layer + 1);
        std::vector<uint16_t> half(w.size());
        for (size_t i = 0; i < w.size(); ++i) half[i] = f32_to_f16(w[i]);
        Output weight = b.constant(ElementType::f16, {out_c, in_c, 3, 3},
                                   Buffer::copy_of(half.data(), half.size() * sizeof(uint16_t)), name + "/w_f16");
        Output decompressed = b.op("Convert", {weight}, {{"destination_type", "f32"}}, name + "/decompress");
        Output conv = b.op("Convolution", {x, decompressed}, conv_attrs(), name + "/conv");
        Output bias = b.constant<float>({out_c}, pattern(static_cast<size_t>(out_c), layer + 7), name + "/bias");
        Output bias4 = b.op("Reshape", {bias, b.constant<int64_t>({4}, {1, out_c, 1, 1}, name + "/bias_shape")},
                            {{"special_zero", "false"}}, name + "/bias_reshape");
        x = b.op("Relu", {b.op("Add", {conv, bias4}, {}, name + "/add")}, {}, name + "/relu");
        in_c = out_c;
    }
    b.result(x, "y");
    return b.build();
}

size_t subgraph_count(const json& split) { return split.at("subgraphs").size(); }

// ACCEL runs Convolution, Add and Relu but neither Convert nor Reshape: HETERO computes those.
TEST(HeteroConstantExpressions, WhatTheFirstDeviceCannotRunIsFoldedNotSplitOff) {
    Core core;
    auto model = fp16_cnn();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,CPU");
    const json split = split_of(compiled);
    EXPECT_EQ(subgraph_count(split), 1u) << split.dump();
    EXPECT_EQ(split.at("subgraphs")[0].at("device"), "ACCEL") << split.dump();
    EXPECT_FALSE(split.at("affinity").contains("layer0/decompress")) << split.dump();
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
}

// NPU runs Reshape: the bias Reshape follows its Add there; the Converts are folded.
TEST(HeteroConstantExpressions, WhatTheReadersDeviceRunsFollowsIt) {
    Core core;
    auto model = fp16_cnn();
    CompiledModel compiled = core.compile_model(model, "HETERO:NPU,CPU");
    const json split = split_of(compiled);
    EXPECT_EQ(subgraph_count(split), 1u) << split.dump();
    EXPECT_EQ(split.at("affinity").at("layer1/bias_reshape"), "NPU") << split.dump();
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
}

TEST(HeteroConstantExpressions, TheQuerySaysWhyAndTheSeedsCombinedModeKeepsOneSubgraph) {
    Core core;
    auto model = fp16_cnn();
    const QueryResult q = core.query_model_details(model, "HETERO:ACCEL,CPU");
    EXPECT_EQ(q.affinity.at("layer2/decompress"), "ACCEL");
    EXPECT_NE(q.explanation.at("layer2/decompress").find("computed once by HETERO"), std::string::npos)
        << q.explanation.at("layer2/decompress");
    // query -> affinities on every op -> compile: ACCEL cannot run the Converts it was given, so
    // HETERO computes them rather than refusing the affinity.
    set_affinities_over_query(core, model, "HETERO:ACCEL,CPU", {});
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,CPU");
    EXPECT_EQ(subgraph_count(split_of(compiled)), 1u) << split_of(compiled).dump();
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
}

TEST(HeteroConstantExpressions, AFoldedModelExportsAndImports) {
    Core core;
    auto model = fp16_cnn();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,CPU");
    std::stringstream blob;
    compiled.export_model(blob);
    CompiledModel imported = core.import_model(blob, "HETERO:ACCEL,CPU");
    EXPECT_TRUE(outputs_near(run(imported), reference_outputs(core, model)));
}

// The ShapeOf of a tensor computed when the model runs is known when compiling (its shape is
// static), and read here on two devices, so HETERO computes it: from the shape alone, with no value
// of the Relu it measures. (Read from the Relu's value, it failed with a bare "map::at": the older
// streaming voice model's sample-rate If on every HETERO device list.)
TEST(HeteroConstantExpressions, AShapeOfAComputedTensorReadOnTwoDevicesIsFoldedFromItsShape) {
    ModelBuilder b("shape_of_on_two_devices");
    Output x = b.parameter("x", ElementType::f32, {1, 2, 3, 4});
    Output r = b.op("Relu", {x}, {}, "relu");
    Output shape = b.op("ShapeOf", {r}, {{"output_type", "i64"}}, "shape");
    Output flat = b.op("Reshape", {r, b.constant<int64_t>({2}, {1, -1}, "flat_shape")}, {{"special_zero", "false"}}, "flat");
    Output back = b.op("Reshape", {flat, shape}, {{"special_zero", "false"}}, "back");  // NPU runs Reshape
    Output ones = b.op("Broadcast", {b.constant<float>({}, {1.0f}, "one"), shape}, {{"mode", "numpy"}}, "ones");  // CPU
    b.result(b.op("Add", {back, ones}, {}, "sum"), "y");
    auto model = b.build();
    Core core;
    CompiledModel compiled = core.compile_model(model, "HETERO:NPU,CPU");
    const json split = split_of(compiled);
    EXPECT_FALSE(split.at("affinity").contains("shape")) << split.dump();  // computed by HETERO
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
}

}  // namespace
}  // namespace mosaic::test::hetero
