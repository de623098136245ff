// Blocked layouts between executors: a convolution writes its intermediate output in the layout
// oneDNN chose (nChw16c and the like), the next convolution or pooling reads it as is, and a
// consumer that needs plain tensors reads one plain copy made by a reorder. Results stay those of
// REFERENCE whatever the layouts, including channel counts that are not a multiple of the block.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test {
namespace {

Attributes max_pool_2x2() {
    return {{"strides", "2,2"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"}, {"kernel", "2,2"},
            {"rounding_type", "floor"}, {"auto_pad", "explicit"}};
}

nlohmann::json executors_of(const std::shared_ptr<Model>& model) {
    return shared_core().compile_model(model, "CPU").get_property("CPU_EXECUTORS");
}

Output reduce(ModelBuilder& b, const std::string& type, Output x, std::vector<int64_t> axes, const std::string& name) {
    const int64_t n = static_cast<int64_t>(axes.size());
    return b.op(type, {x, b.constant<int64_t>({n}, axes)}, {{"keep_dims", "true"}}, name);
}

TEST(CpuLayout, SqueezeAndExcitationStaysBlocked) {
    // EfficientNet's block: a global average pool, two 1x1 convolutions, a sigmoid, and the
    // per-channel Multiply back onto the features: no reorder anywhere.
    ModelBuilder b("se");
    Output x = b.parameter("x", ElementType::f32, {1, 16, 8, 8});
    Output features = b.op("Relu", {conv_bias(b, x, 16, 32, 41, "conv")}, {}, "relu");
    Output squeezed = reduce(b, "ReduceMean", features, {2, 3}, "pool");
    Output s = b.op("Relu", {conv_bias(b, squeezed, 32, 8, 43, "reduce", 1)}, {}, "relu_se");
    s = b.op("Sigmoid", {conv_bias(b, s, 8, 32, 47, "expand", 1)}, {}, "gate");
    Output scaled = b.op("Multiply", {features, s}, {}, "scale");
    b.result(conv_bias(b, scaled, 32, 16, 53, "project", 1), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 16, 8, 8}, 7)}});
    EXPECT_EQ(reorder_count(r.profile), 0u) << contents(r.profile);
    EXPECT_NE(record_named(r.profile, "scale")->exec_type, "ref") << contents(r.profile);
}

TEST(CpuLayout, ConcatOfBlockedBranchesStaysBlocked) {
    // SqueezeNet's fire module: a 1x1 and a 3x3 expand joined along the channels.
    ModelBuilder b("fire");
    Output x = b.parameter("x", ElementType::f32, {1, 16, 9, 9});
    Output squeeze = b.op("Relu", {conv_bias(b, x, 16, 16, 59, "squeeze", 1)}, {}, "relu_s");
    Output e1 = b.op("Relu", {conv_bias(b, squeeze, 16, 32, 61, "expand1", 1)}, {}, "relu_1");
    Output e3 = b.op("Relu", {conv_bias(b, squeeze, 16, 32, 67, "expand3", 3)}, {}, "relu_3");
    Output joined = b.op("Concat", {e1, e3}, {{"axis", "1"}}, "concat");
    b.result(conv_bias(b, joined, 64, 16, 71, "next", 1), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 16, 9, 9}, 8)}});
    EXPECT_EQ(reorder_count(r.profile), 0u) << contents(r.profile);
}

TEST(CpuLayout, ReductionsAndBinaryOpsOnBlockedTensorsThatCannotKeepIt) {
    // A reduction over the channels, a Multiply whose operand has a lower rank, and a binary op
    // writing a graph output: each reads plain copies, and every result is REFERENCE's.
    ModelBuilder b("fallbacks");
    Output x = b.parameter("x", ElementType::f32, {1, 16, 6, 6});
    Output c = conv_bias(b, x, 16, 16, 73, "conv");
    b.result(reduce(b, "ReduceSum", c, {1}, "channel_sum"), "sums");
    b.result(b.op("Multiply", {c, random_constant(b, {6}, 79, "row")}, {}, "by_rows"), "rows");
    b.result(b.op("Add", {c, conv_bias(b, x, 16, 16, 83, "other")}, {}, "add"), "added");
    b.result(reduce(b, "ReduceMax", c, {2, 3}, "global_max"), "maxima");
    expect_matches_reference(b.build(), {{"x", random_tensor({1, 16, 6, 6}, 9)}});
}

TEST(CpuLayout, ConvolutionsAndPoolingPassBlockedTensorsWithoutReorders) {
    ModelBuilder b("cnn");
    Output x = b.parameter("x", ElementType::f32, {1, 16, 12, 12});
    Output y = b.op("Relu", {conv_bias(b, x, 16, 32, 1, "conv1")}, {}, "relu1");
    y = b.op("MaxPool", {y}, max_pool_2x2(), "pool", "opset1");
    y = b.op("Relu", {conv_bias(b, y, 32, 32, 3, "conv2")}, {}, "relu2");
    b.result(conv_bias(b, y, 32, 16, 5, "conv3"), "y");
    auto model = b.build();
    const RunResult r = expect_matches_reference(model, {{"x", random_tensor({1, 16, 12, 12}, 1)}});
    EXPECT_EQ(reorder_count(r.profile), 0u) << contents(r.profile);
    EXPECT_EQ(op_records(r.profile).size(), 4u) << contents(r.profile);
    for (const auto& e : executors_of(model)) EXPECT_NE(e.at("type"), "Reorder") << e.dump();
}

TEST(CpuLayout, PlainConsumersShareOneReorder) {
    ModelBuilder b("fanout");
    Output x = b.parameter("x", ElementType::f32, {1, 16, 6, 6});
    Output c = conv_bias(b, x, 16, 16, 7, "conv");
    Output s = b.op("Sin", {c}, {}, "sine");
    Output k = b.op("Cos", {c}, {}, "cosine");
    b.result(b.op("Add", {s, k}, {}, "sum"), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 16, 6, 6}, 2)}});
    EXPECT_EQ(reorder_count(r.profile), 1u) << contents(r.profile);
    EXPECT_NE(record_named(r.profile, "sine/reorder"), nullptr) << contents(r.profile);
}

TEST(CpuLayout, ChannelsThatDoNotFillABlock) {
    // 20 and 5 channels: the blocked tensors are padded to whole blocks, the results are not.
    ModelBuilder b("padded");
    Output x = b.parameter("x", ElementType::f32, {1, 3, 9, 9});
    Output y = b.op("Relu", {conv_bias(b, x, 3, 20, 11, "conv1")}, {}, "relu1");
    y = b.op("MaxPool", {y}, max_pool_2x2(), "pool", "opset1");
    y = conv_bias(b, y, 20, 5, 13, "conv2");
    b.result(b.op("Sigmoid", {b.op("Sin", {y}, {}, "sine")}, {}, "sigmoid"), "y");
    expect_matches_reference(b.build(), {{"x", random_tensor({1, 3, 9, 9}, 3)}});
}

TEST(CpuLayout, AConvolutionOutputThatIsAlsoAGraphOutputStaysPlain) {
    ModelBuilder b("two_outputs");
    Output x = b.parameter("x", ElementType::f32, {1, 16, 6, 6});
    Output c = conv_bias(b, x, 16, 16, 17, "conv1");
    b.result(c, "first");
    b.result(conv_bias(b, c, 16, 16, 19, "conv2"), "second");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 16, 6, 6}, 4)}});
    EXPECT_EQ(reorder_count(r.profile), 0u) << contents(r.profile);
}

TEST(CpuLayout, BlockedResidualOfAMatMulIsCopiedPlainFirst) {
    // MatMul reads plain tensors only, including the residual it accumulates: a convolution's
    // blocked output arrives there through a reorder.
    ModelBuilder b("matmul_residual");
    Output x = b.parameter("x", ElementType::f32, {1, 16, 4, 4});
    Output c = conv_bias(b, x, 16, 16, 23, "conv");
    Output m = b.op("MatMul", {b.op("Cos", {x}, {}, "cosine"), random_constant(b, {4, 4}, 29, "w")},
                    {{"transpose_a", "false"}, {"transpose_b", "false"}}, "matmul");
    b.result(b.op("Add", {m, c}, {}, "residual"), "y");
    const RunResult r = expect_matches_reference(b.build(), {{"x", random_tensor({1, 16, 4, 4}, 5)}});
    EXPECT_EQ(reorder_count(r.profile), 1u) << contents(r.profile);
}

TEST(CpuLayout, ResidualInAnotherLayoutIsReorderedIntoTheDestination) {
    // The residual is plain (a reference op wrote it), the convolution's output blocked: no
    // sharing of buffers, the residual is reordered into the destination before the sum.
    ModelBuilder b("mixed_residual");
    Output x = b.parameter("x", ElementType::f32, {1, 16, 6, 6});
    Output r = b.op("Sin", {x}, {}, "sine");
    Output y = b.op("Add", {conv_bias(b, b.op("Cos", {x}, {}, "cosine"), 16, 16, 31, "conv"), r}, {}, "residual");
    b.result(b.op("Relu", {conv_bias(b, y, 16, 16, 37, "after")}, {}, "relu"), "y");
    expect_matches_reference(b.build(), {{"x", random_tensor({1, 16, 6, 6}, 6)}});
}

}  // namespace
}  // namespace mosaic::test
