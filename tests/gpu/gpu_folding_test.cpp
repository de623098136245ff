// Constant folding on the GPU: what an exported model computes from shapes and constants (ShapeOf of
// a static shape, Gather and Concat of the dimensions, a Broadcast of a scalar to the input's shape, a
// Transpose of a weight) has no GPU kernel, yet the GPU's query takes it and the compiled model
// computes it once with the reference kernels; HETERO:GPU,CPU then keeps the whole graph on the GPU.
// A folded node whose kernel fails on its constants is an error naming it, at compile time.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test::gpu {
namespace {

using nlohmann::json;

// x [2, 3, 4] -> x + Broadcast(0.5, ShapeOf(x)), reshaped to [ShapeOf(x)[0], -1] by a shape built
// from ShapeOf (Gather, Concat), times a weight transposed by a constant Transpose.
std::shared_ptr<Model> shape_computing_model() {
    ModelBuilder b("gpu_folding");
    Output x = b.parameter("x", ElementType::f32, {2, 3, 4});
    Output shape = b.op("ShapeOf", {x}, {{"output_type", "i64"}}, "shape", "opset3");
    Output half = b.op("Broadcast", {b.constant<float>({}, {0.5f}, "half"), shape}, {{"mode", "numpy"}}, "half/broadcast",
                       "opset3");
    Output shifted = b.op("Add", {x, half}, {}, "shifted");
    Output batch = b.op("Gather", {shape, b.constant<int64_t>({1}, {0}, "batch/index"), b.constant<int64_t>({}, {0}, "axis0")},
                        {{"batch_dims", "0"}}, "batch", "opset8");
    Output flat_shape = b.op("Concat", {batch, b.constant<int64_t>({1}, {-1}, "minus_one")}, {{"axis", "0"}}, "flat_shape");
    Output flat = b.op("Reshape", {shifted, flat_shape}, {{"special_zero", "false"}}, "flat");
    Output w = b.op("Transpose", {random_constant(b, {5, 12}, 3, "w"), b.constant<int64_t>({2}, {1, 0}, "w/order")}, {},
                    "w/transposed");
    b.result(b.op("MatMul", {flat, w}, {{"transpose_a", "false"}, {"transpose_b", "false"}}, "fc"), "y");
    return b.build();
}

TEST(GpuFolding, ShapeComputationsRunAtCompileTimeAndTheGraphStaysOnTheGpu) {
    const auto model = shape_computing_model();
    EXPECT_EQ(unsupported_on_gpu(model), "");
    expect_device_matches_reference(model, "GPU", {{"x", random_tensor({2, 3, 4}, 21)}});

    CompiledModel gpu = shared_core().compile_model(model, "GPU");
    // w/transposed; the framework folds what is computed from x's shape (shape, half/broadcast,
    // batch, flat_shape) before any device sees the graph (framework/src/graph/shape_folding.hpp).
    EXPECT_EQ(gpu.get_property("GPU_FOLDED_NODES").get<size_t>(), 1u);
    json kernels = gpu.get_property("GPU_EXECUTORS");
    for (const auto& e : kernels) EXPECT_NE(e.at("type"), "ShapeOf") << kernels.dump(1);

    CompiledModel hetero = shared_core().compile_model(model, "HETERO:GPU,CPU");
    json split = hetero.get_property("HETERO_SPLIT");
    if (split.is_string()) split = json::parse(split.get<std::string>());
    EXPECT_EQ(split.at("subgraphs").size(), 1u) << split.dump(1);
}

// A convolution as OpenVINO's ovc writes it with compressed weights: f16 filters and bias, each
// behind a decompression Convert to f32.
std::shared_ptr<Model> fp16_compressed_conv() {
    ModelBuilder b("gpu_fp16_weights");
    auto f16_constant = [&](const Shape& shape, uint32_t seed, const std::string& name) {
        const std::vector<float> values = random_tensor(shape, seed).to_vector<float>();
        std::vector<uint16_t> halves;
        for (float v : values) halves.push_back(f32_to_f16(v));
        Output c = b.constant(ElementType::f16, shape, Buffer::copy_of(halves.data(), halves.size() * sizeof(uint16_t)),
                              name + "/compressed");
        Output f32 = b.op("Convert", {c}, {{"destination_type", "f32"}}, name);
        ModelBuilder::node(f32)->get_rt_info()["decompression"] = "";
        return f32;
    };
    Output x = b.parameter("x", ElementType::f32, {1, 3, 8, 8});
    Output conv = b.op("Convolution", {x, f16_constant({4, 3, 3, 3}, 31, "conv/w")},
                       {{"strides", "1,1"}, {"pads_begin", "1,1"}, {"pads_end", "1,1"}, {"dilations", "1,1"},
                        {"auto_pad", "explicit"}},
                       "conv");
    Output biased = b.op("Add", {conv, f16_constant({1, 4, 1, 1}, 32, "conv/b")}, {}, "conv/bias");
    b.result(b.op("Relu", {biased}, {}, "relu"), "y");
    return b.build();
}

TEST(GpuFolding, DecompressedWeightsOfAnFp16IrStayOnTheGpuInOneSubgraph) {
    const auto model = fp16_compressed_conv();
    EXPECT_EQ(unsupported_on_gpu(model), "");
    expect_device_matches_reference(model, "GPU", {{"x", random_tensor({1, 3, 8, 8}, 33)}});
    CompiledModel hetero = shared_core().compile_model(model, "HETERO:GPU,CPU");
    json split = hetero.get_property("HETERO_SPLIT");
    if (split.is_string()) split = json::parse(split.get<std::string>());
    EXPECT_EQ(split.at("subgraphs").size(), 1u) << split.dump(1);
    // The filters and the bias are folded once; the convolution reads them with its bias fused.
    CompiledModel gpu = shared_core().compile_model(model, "GPU");
    EXPECT_EQ(gpu.get_property("GPU_FOLDED_NODES").get<size_t>(), 2u);
}

TEST(GpuFolding, AFoldedNodeThatFailsOnItsConstantsIsNamedAtCompileTime) {
    ModelBuilder b("gpu_bad_fold");
    Output x = b.parameter("x", ElementType::f32, {1, 4});
    // Index 7 of a 4-element table: shape inference cannot see it; the kernel refuses it.
    Output picked = b.op("ScatterElementsUpdate",
                         {random_constant(b, {4}, 5, "table"), b.constant<int64_t>({1}, {7}, "bad/index"),
                          b.constant<float>({1}, {1.0f}, "bad/update"), b.constant<int64_t>({}, {0}, "bad/axis")},
                         {}, "bad_scatter", "opset3");
    b.result(b.op("Multiply", {x, picked}, {}, "scaled"), "y");
    const auto model = b.build();
    const std::string msg = error_of([&] { shared_core().compile_model(model, "GPU"); });
    EXPECT_TRUE(contains(msg, "bad_scatter")) << msg;
    EXPECT_TRUE(contains(msg, "compile time")) << msg;
}

}  // namespace
}  // namespace mosaic::test::gpu
