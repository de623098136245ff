// The GPU's two GEMMs (plugins/gpu/gemm/gemm.hpp), each forced with GPU_GEMM_KERNEL, against REFERENCE:
// sizes that are no multiple of any tile (the tiled kernel pads its packed operands to whole
// tiles; CLBlast's parameters must hold at every size, not only the tuned one: clblast_tuning.cpp),
// down to one row; operands computed or constant (a constant is packed once at compile time),
// transposed, batched with a B per batch or one shared B, read in place where its rows are whole
// panels; grouped, strided and 1x1 convolutions, and convolutions whose im2col the tiled kernel
// fuses into the GEMM.
#include "gpu_test_util.hpp"

#include <array>

namespace mosaic::test::gpu {
namespace {

Output matmul(ModelBuilder& b, Output a, Output w, const std::string& name, bool transpose_a = false,
              bool transpose_b = false) {
    return b.op("MatMul", {a, w},
                {{"transpose_a", transpose_a ? "true" : "false"}, {"transpose_b", transpose_b ? "true" : "false"}}, name);
}

class GpuGemm : public ::testing::TestWithParam<std::string> {
protected:
    // Runs `model` on GPU with the kernel under test, checks it against REFERENCE and that each of
    // `ops` ran on that kernel.
    void check(const std::shared_ptr<Model>& model, const Inputs& inputs, const std::vector<std::string>& ops) {
        const RunResult got = expect_device_matches_reference(model, "GPU", inputs, 1e-4, 1e-4, {{"GPU_GEMM_KERNEL", GetParam()}});
        const std::string kernel = GetParam() == "TILED" ? "gemm_tiled_f32" : "clblast_gemm";
        for (const std::string& op : ops) {
            const ProfilingInfo* record = record_named(got.profile, op);
            ASSERT_NE(record, nullptr) << op << " has no profiling record:\n" << contents(got.profile);
            EXPECT_TRUE(contains(record->exec_type, kernel)) << op << " ran " << record->exec_type;
        }
    }
};

TEST_P(GpuGemm, OddSizesWithAConstantB) {
    for (const auto& [m, k, n] : std::vector<std::array<int64_t, 3>>{
             {1, 32, 10}, {3, 5, 7}, {8, 1, 32}, {9, 33, 33}, {130, 1027, 257}, {17, 2048, 1000}}) {
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
        ModelBuilder b("gemm");
        Output x = b.parameter("x", ElementType::f32, {m, k});
        b.result(matmul(b, x, random_constant(b, {k, n}, 7, "w", 0.5f), "mm"), "y");
        check(b.build(), {{"x", random_tensor({m, k}, 8)}}, {"mm"});
    }
}

// Neither operand constant, so both are packed at run time; every transpose combination.
TEST_P(GpuGemm, ComputedOperandsEveryTranspose) {
    const int64_t m = 19, k = 45, n = 37;
    for (const bool ta : {false, true})
        for (const bool tb : {false, true}) {
            SCOPED_TRACE(std::string("transpose_a ") + (ta ? "yes" : "no") + ", transpose_b " + (tb ? "yes" : "no"));
            ModelBuilder b("gemm_computed");
            const Shape a_shape = ta ? Shape{k, m} : Shape{m, k}, b_shape = tb ? Shape{n, k} : Shape{k, n};
            Output x = b.parameter("x", ElementType::f32, a_shape);
            Output y = b.parameter("y", ElementType::f32, b_shape);
            b.result(matmul(b, x, y, "mm", ta, tb), "z");
            check(b.build(), {{"x", random_tensor(a_shape, 21)}, {"y", random_tensor(b_shape, 22)}}, {"mm"});
        }
}

// A constant A (packed at compile time) times a computed B, transposed or not.
TEST_P(GpuGemm, ConstantAOperand) {
    for (const bool ta : {false, true}) {
        SCOPED_TRACE(std::string("transpose_a ") + (ta ? "yes" : "no"));
        ModelBuilder b("gemm_constant_a");
        Output w = random_constant(b, ta ? Shape{40, 11} : Shape{11, 40}, 31, "w");
        Output x = b.parameter("x", ElementType::f32, {40, 70});
        b.result(matmul(b, w, x, "mm", ta), "z");
        check(b.build(), {{"x", random_tensor({40, 70}, 32)}}, {"mm"});
    }
}

TEST_P(GpuGemm, BatchesWithABPerBatchAndOneSharedB) {
    {
        SCOPED_TRACE("a B per batch, transposed");
        ModelBuilder b("gemm_batched");
        Output x = b.parameter("x", ElementType::f32, {2, 3, 13, 24});
        Output y = b.parameter("y", ElementType::f32, {2, 3, 35, 24});
        b.result(matmul(b, x, y, "mm", false, true), "z");
        check(b.build(), {{"x", random_tensor({2, 3, 13, 24}, 41)}, {"y", random_tensor({2, 3, 35, 24}, 42)}}, {"mm"});
    }
    {
        SCOPED_TRACE("one constant B shared by transposed batches of A");
        ModelBuilder b("gemm_shared_b");
        Output x = b.parameter("x", ElementType::f32, {4, 17, 10});
        b.result(matmul(b, x, random_constant(b, {17, 33}, 43, "w"), "mm", true), "z");
        check(b.build(), {{"x", random_tensor({4, 17, 10}, 44)}}, {"mm"});
    }
}

// Batches broadcast: one A (rank 2, or batch dims of ones) shared by every batch of B, computed
// or constant; a B of batch dims all 1 shared by A's batches; batch dims of different rank that
// match once padded with ones. A MatMul whose batch dims truly broadcast ([2, 3] against [3]) is
// left to the next device, saying why.
TEST_P(GpuGemm, OneMatrixSharedByTheOtherOperandsBatches) {
    struct Case {
        Shape a, b;
        bool constant_a;
    };
    for (const Case& c : {Case{{9, 20}, {2, 3, 20, 33}, false}, Case{{1, 1, 9, 20}, {2, 3, 20, 33}, true},
                          Case{{2, 3, 9, 20}, {1, 1, 20, 33}, false}, Case{{1, 3, 9, 20}, {3, 20, 33}, false}}) {
        SCOPED_TRACE(to_string(c.a) + " x " + to_string(c.b));
        ModelBuilder b("gemm_broadcast");
        Output x = c.constant_a ? random_constant(b, c.a, 151, "x") : b.parameter("x", ElementType::f32, c.a);
        Output y = b.parameter("y", ElementType::f32, c.b);
        b.result(matmul(b, x, y, "mm"), "z");
        Inputs inputs{{"y", random_tensor(c.b, 152)}};
        if (!c.constant_a) inputs.emplace("x", random_tensor(c.a, 153));
        check(b.build(), inputs, {"mm"});
    }
    ModelBuilder b("gemm_true_broadcast");
    Output x = b.parameter("x", ElementType::f32, {2, 3, 9, 20});
    Output y = b.parameter("y", ElementType::f32, {3, 20, 33});
    b.result(matmul(b, x, y, "mm"), "z");
    const std::string unsupported = unsupported_on_gpu(b.build());
    EXPECT_NE(unsupported.find("broadcast batch dims have no GPU kernel"), std::string::npos) << unsupported;
}

// A computed B whose rows are whole panels of 32 columns, at a depth of at most 256: the tiled
// kernel reads it where it lies instead of packing it (tiled_gemm.cpp's reads_b_in_place). A B per
// batch, one B shared by every batch, a 1x1 convolution over two images with its bias, Relu and
// residual fused, and a depth of 257, one past the limit, packed again.
TEST_P(GpuGemm, ComputedBWithRowsOfWholePanels) {
    {
        SCOPED_TRACE("a B per batch");
        ModelBuilder b("gemm_b_per_batch");
        Output x = b.parameter("x", ElementType::f32, {2, 3, 13, 20});
        Output y = b.parameter("y", ElementType::f32, {2, 3, 20, 64});
        b.result(matmul(b, x, y, "mm"), "z");
        check(b.build(), {{"x", random_tensor({2, 3, 13, 20}, 91)}, {"y", random_tensor({2, 3, 20, 64}, 92)}}, {"mm"});
    }
    for (const int64_t k : {int64_t{256}, int64_t{257}}) {
        SCOPED_TRACE("one B shared by 4 batches of A, depth " + std::to_string(k));
        ModelBuilder b("gemm_shared_computed_b");
        Output x = b.parameter("x", ElementType::f32, {4, 9, k});
        Output y = b.parameter("y", ElementType::f32, {k, 96});
        b.result(matmul(b, x, y, "mm"), "z");
        check(b.build(), {{"x", random_tensor({4, 9, k}, 93)}, {"y", random_tensor({k, 96}, 94)}}, {"mm"});
    }
    {
        SCOPED_TRACE("a 1x1 convolution of 8x8 images");
        ModelBuilder b("gemm_1x1_in_place");
        Output x = b.parameter("x", ElementType::f32, {2, 24, 8, 8});
        Output r = b.parameter("r", ElementType::f32, {2, 40, 8, 8});
        Output conv = b.op("Convolution", {x, random_constant(b, {40, 24, 1, 1}, 95, "w")}, conv_attrs(0, 1), "pointwise");
        Output biased = b.op("Add", {conv, random_constant(b, {1, 40, 1, 1}, 96, "b")}, {}, "bias");
        Output relu = b.op("Relu", {biased}, {}, "relu");
        b.result(b.op("Add", {relu, r}, {}, "residual"), "y");
        check(b.build(), {{"x", random_tensor({2, 24, 8, 8}, 97)}, {"r", random_tensor({2, 40, 8, 8}, 98)}}, {"residual"});
    }
}

// The convolutions' GEMMs: constant filters as A, im2col columns (or the image itself for 1x1) as B.
TEST_P(GpuGemm, GroupedStridedAnd1x1Convolutions) {
    ModelBuilder b("gemm_convs");
    Output x = b.parameter("x", ElementType::f32, {2, 6, 11, 9});
    Output grouped = b.op("GroupConvolution", {x, random_constant(b, {3, 5, 2, 3, 3}, 51, "gw")}, conv_attrs(1, 2), "grouped");
    Output pointwise = b.op("Convolution", {grouped, random_constant(b, {7, 15, 1, 1}, 52, "pw")}, conv_attrs(0, 1), "pointwise");
    b.result(b.op("Relu", {pointwise}, {}, "relu"), "y");
    // The Relu is fused into the 1x1 convolution, whose record takes its name.
    check(b.build(), {{"x", random_tensor({2, 6, 11, 9}, 53)}}, {"grouped", "relu"});
}

// Convolutions with many output positions: the tiled kernel fuses im2col into the GEMM (one work
// item packs a panel of 32 positions and multiplies every filter by it, conv_gemm_tiled_f32) where
// the panels are at least 8 for each compute unit, and runs im2col apart below that. A grouped,
// dilated convolution over two images with a fused bias and Relu, whose last panel is partial
// (37 x 41 = 47 panels and 13 positions), and a stride-2 7x7 one as ResNet's first layer, over 8
// channels (a depth of 392).
TEST_P(GpuGemm, ConvolutionsWithManyOutputPositions) {
    ModelBuilder b("gemm_wide_convs");
    Output x = b.parameter("x", ElementType::f32, {2, 6, 37, 41});
    Output stem_in = b.parameter("stem_in", ElementType::f32, {1, 8, 80, 72});
    const Attributes dilated = {{"strides", "1,1"}, {"dilations", "2,2"}, {"pads_begin", "2,2"}, {"pads_end", "2,2"}};
    Output grouped = b.op("GroupConvolution", {x, random_constant(b, {2, 4, 3, 3, 3}, 81, "gw")}, dilated, "grouped");
    Output biased = b.op("Add", {grouped, random_constant(b, {1, 8, 1, 1}, 82, "gb")}, {}, "grouped_bias");
    b.result(b.op("Relu", {biased}, {}, "grouped_relu"), "y");
    const Attributes stem_attrs = {{"strides", "2,2"}, {"dilations", "1,1"}, {"pads_begin", "3,3"}, {"pads_end", "3,3"}};
    b.result(b.op("Convolution", {stem_in, random_constant(b, {4, 8, 7, 7}, 83, "sw")}, stem_attrs, "stem"), "stem_out");
    const auto model = b.build();
    const RunResult got = expect_device_matches_reference(
        model, "GPU", {{"x", random_tensor({2, 6, 37, 41}, 84)}, {"stem_in", random_tensor({1, 8, 80, 72}, 85)}}, 1e-4, 1e-4,
        {{"GPU_GEMM_KERNEL", GetParam()}});
    const int64_t units = shared_core().get_property("GPU", "GPU_EXECUTION_UNITS_COUNT").get<int64_t>();
    ASSERT_GT(units, 0);
    for (const auto& [op, panels] : {std::pair<std::string, int64_t>{"grouped_relu", 48}, {"stem", 45}}) {
        const ProfilingInfo* record = record_named(got.profile, op);
        ASSERT_NE(record, nullptr) << op << " has no profiling record:\n" << contents(got.profile);
        const std::string expected = GetParam() == "CLBLAST"   ? "im2col_clblast_gemm"
                                     : panels >= 8 * units ? "conv_gemm_tiled_f32"
                                                             : "im2col_gemm_tiled_f32";
        EXPECT_EQ(record->exec_type, expected) << op << ", " << panels << " panels, " << units << " compute units";
    }
}

// Transposed convolutions, as a decoder upsamples: stride 2 with output_padding and a bias and
// Relu fused, grouped with dilations, and same_upper padding to an output_shape; each a GEMM of
// the filters' transpose by the image, then col2im (conv_transpose_ops.cpp), against REFERENCE.
TEST_P(GpuGemm, TransposedConvolutionsAsADecoderUpsamples) {
    ModelBuilder b("conv_transpose");
    Output x = b.parameter("x", ElementType::f32, {2, 6, 7, 9});
    const Attributes up = {{"strides", "2,2"}, {"dilations", "1,1"}, {"pads_begin", "1,1"}, {"pads_end", "1,1"},
                           {"output_padding", "1,0"}, {"auto_pad", "explicit"}};
    Output deconv = b.op("ConvolutionBackpropData", {x, random_constant(b, {6, 5, 3, 3}, 191, "up_w")}, up, "up");
    Output biased = b.op("Add", {deconv, random_constant(b, {1, 5, 1, 1}, 192, "up_b")}, {}, "up_bias");
    b.result(b.op("Relu", {biased}, {}, "up_relu"), "y1");
    const Attributes grouped = {{"strides", "1,2"}, {"dilations", "2,1"}, {"pads_begin", "0,1"}, {"pads_end", "1,0"},
                                {"auto_pad", "explicit"}};
    b.result(b.op("GroupConvolutionBackpropData", {x, random_constant(b, {3, 2, 4, 3, 2}, 193, "g_w")}, grouped, "grouped"),
             "y2");
    const Attributes same = {{"strides", "2,2"}, {"dilations", "1,1"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"},
                             {"auto_pad", "same_upper"}};
    b.result(b.op("ConvolutionBackpropData",
                  {x, random_constant(b, {6, 3, 3, 3}, 194, "same_w"), b.constant<int64_t>({2}, {13, 17}, "same_shape")}, same,
                  "same"),
             "y3");
    const RunResult got = expect_device_matches_reference(b.build(), "GPU", {{"x", random_tensor({2, 6, 7, 9}, 195)}}, 1e-4,
                                                          1e-4, {{"GPU_GEMM_KERNEL", GetParam()}});
    const std::string kernel = (GetParam() == "TILED" ? "gemm_tiled_f32" : "clblast_gemm") + std::string("_col2im");
    for (const std::string op : {"up_relu", "grouped", "same"}) {
        const ProfilingInfo* record = record_named(got.profile, op);
        ASSERT_NE(record, nullptr) << op << ":\n" << contents(got.profile);
        EXPECT_EQ(record->exec_type, kernel) << op;
    }
}

// A bias per column, an activation, a residual and a second activation after a MatMul: applied by
// the tiled kernel as it stores (in vectors, and one by one in the last, partial panel of 37
// columns), by an epilogue pass after CLBlast.
TEST_P(GpuGemm, FusedBiasActivationsAndResidual) {
    ModelBuilder b("gemm_epilogue");
    Output x = b.parameter("x", ElementType::f32, {19, 45});
    Output r = b.parameter("r", ElementType::f32, {19, 37});
    Output mm = matmul(b, x, random_constant(b, {45, 37}, 71, "w"), "mm");
    Output biased = b.op("Add", {mm, random_constant(b, {37}, 72, "b")}, {}, "bias");
    Output act = b.op("Sigmoid", {biased}, {}, "sigmoid");
    Output res = b.op("Add", {act, r}, {}, "residual");
    b.result(b.op("Tanh", {res}, {}, "tanh"), "y");
    check(b.build(), {{"x", random_tensor({19, 45}, 73)}, {"r", random_tensor({19, 37}, 74)}}, {"tanh"});
}

// The tiled kernel applies its epilogue to a whole register tile before it stores, with Relu and
// Clamp inline: each with a bias, a residual and a second activation, on tiles the matrix's edge
// cuts inside their second vector of columns (57 = 32 + 25 columns, a 7x7 image's 49 = 32 + 17)
// and after their first rows (19 = 8 + 8 + 3 rows, 12 output channels = 8 + 4): a bias per
// column after a MatMul, a bias per row (an output channel) after a convolution.
TEST_P(GpuGemm, EpiloguesOnTilesTheEdgesCut) {
    using Act = std::pair<std::string, Attributes>;
    const Act relu{"Relu", {}}, clamp{"Clamp", {{"min", "-0.25"}, {"max", "0.5"}}}, elu{"Elu", {{"alpha", "0.7"}}};
    for (const auto& [first, second] : std::vector<std::pair<Act, Act>>{{relu, clamp}, {clamp, relu}, {elu, clamp}}) {
        SCOPED_TRACE(first.first + " then " + second.first);
        ModelBuilder b("gemm_tile_epilogues");
        Output x = b.parameter("x", ElementType::f32, {19, 45});
        Output r = b.parameter("r", ElementType::f32, {19, 57});
        Output mm = matmul(b, x, random_constant(b, {45, 57}, 111, "w"), "mm");
        Output biased = b.op("Add", {mm, random_constant(b, {57}, 112, "b")}, {}, "bias");
        Output act = b.op(first.first, {biased}, first.second, "act1");
        Output res = b.op("Add", {act, r}, {}, "residual");
        b.result(b.op(second.first, {res}, second.second, "mm_out"), "y");

        Output image = b.parameter("image", ElementType::f32, {1, 6, 7, 7});
        Output image_r = b.parameter("image_r", ElementType::f32, {1, 12, 7, 7});
        Output conv = b.op("Convolution", {image, random_constant(b, {12, 6, 1, 1}, 113, "cw")}, conv_attrs(0, 1), "conv");
        Output conv_biased = b.op("Add", {conv, random_constant(b, {1, 12, 1, 1}, 114, "cb")}, {}, "conv_bias");
        Output conv_act = b.op(first.first, {conv_biased}, first.second, "conv_act1");
        Output conv_res = b.op("Add", {conv_act, image_r}, {}, "conv_residual");
        b.result(b.op(second.first, {conv_res}, second.second, "conv_out"), "z");
        check(b.build(),
              {{"x", random_tensor({19, 45}, 115)},
               {"r", random_tensor({19, 57}, 116)},
               {"image", random_tensor({1, 6, 7, 7}, 117)},
               {"image_r", random_tensor({1, 12, 7, 7}, 118)}},
              {"mm_out", "conv_out"});
    }
}

// A squeeze-and-excitation block as paddle2onnx writes it: a global average, then 1x1 convolutions
// over the 1x1 map, each with its bias as a separate Add of a [1,C,1,1] constant, Relu, HardSigmoid
// (Paddle's slope 0.2), the input scaled. With one output position a convolution's bias per row
// (output channel) is a bias with inner 1, which the tiled kernel once took for a MatMul's bias per
// column: every row of a tile got its first row's bias (0.098 for ONNX Runtime's 0.998 on a real
// text-direction classifier). Channel counts above and below a tile's 8 rows, an odd one; also a
// 3x3 padded convolution over a 1x1 map, whose im2col the GEMM may fuse.
TEST_P(GpuGemm, ConvolutionBiasesOverAOneByOneMapArePerOutputChannel) {
    for (const auto& [c, mid] : std::vector<std::pair<int64_t, int64_t>>{{8, 2}, {40, 10}, {120, 30}, {21, 13}}) {
        SCOPED_TRACE("channels " + std::to_string(c) + ", squeezed to " + std::to_string(mid));
        ModelBuilder b("squeeze_excitation");
        Output x = b.parameter("x", ElementType::f32, {1, c, 5, 5});
        Output pooled = b.op("ReduceMean", {x, b.constant<int64_t>({2}, {2, 3}, "axes")}, {{"keep_dims", "true"}}, "pool");
        Output c1 = b.op("Convolution", {pooled, random_constant(b, {mid, c, 1, 1}, 121, "w1")}, conv_attrs(0, 1), "conv1");
        Output a1 = b.op("Add", {c1, random_constant(b, {1, mid, 1, 1}, 122, "b1")}, {}, "bias1");
        Output r1 = b.op("Relu", {a1}, {}, "relu1");
        Output c2 = b.op("Convolution", {r1, random_constant(b, {c, mid, 1, 1}, 123, "w2")}, conv_attrs(0, 1), "conv2");
        Output a2 = b.op("Add", {c2, random_constant(b, {1, c, 1, 1}, 124, "b2")}, {}, "bias2");
        Output gate = b.op("HardSigmoid", {a2, b.constant<float>({}, {0.2f}, "slope"), b.constant<float>({}, {0.5f}, "offset")},
                           {}, "gate");
        Output padded = b.op("Convolution", {gate, random_constant(b, {c, c, 3, 3}, 125, "w3")}, conv_attrs(1, 1), "conv3x3");
        Output a3 = b.op("Add", {padded, random_constant(b, {1, c, 1, 1}, 126, "b3")}, {}, "bias3");
        b.result(b.op("Multiply", {x, a3}, {}, "scaled"), "y");
        check(b.build(), {{"x", random_tensor({1, c, 5, 5}, 127)}}, {"relu1", "bias3"});
    }
}

// Swish written as x * Sigmoid(x) after a convolution (torch's SiLU, as EfficientNet exports it),
// the Multiply's operands in either order: one activation of the convolution's epilogue, profiled
// under the Multiply's name, with no record of the Sigmoid. Where x has a third reader the
// pattern stays apart, and the results are the same.
TEST_P(GpuGemm, SwishAsSigmoidTimesXFusesIntoTheConvolution) {
    ModelBuilder b("gemm_swish");
    Output x = b.parameter("x", ElementType::f32, {1, 8, 9, 10});
    Output c1 = b.op("Convolution", {x, random_constant(b, {16, 8, 3, 3}, 101, "w1")}, conv_attrs(1, 1), "conv1");
    Output s1 = b.op("Sigmoid", {c1}, {}, "sigmoid1");
    Output y1 = b.op("Multiply", {c1, s1}, {}, "swish1");
    Output c2 = b.op("Convolution", {y1, random_constant(b, {16, 16, 1, 1}, 102, "w2")}, conv_attrs(0, 1), "conv2");
    Output s2 = b.op("Sigmoid", {c2}, {}, "sigmoid2");
    Output y2 = b.op("Multiply", {s2, c2}, {}, "swish2");
    Output c3 = b.op("Convolution", {y2, random_constant(b, {16, 16, 1, 1}, 103, "w3")}, conv_attrs(0, 1), "conv3");
    Output s3 = b.op("Sigmoid", {c3}, {}, "sigmoid3");
    b.result(b.op("Multiply", {c3, s3}, {}, "swish3"), "y");
    b.result(c3, "conv3_out");  // a third reader of x: not fused
    const RunResult got = expect_device_matches_reference(b.build(), "GPU", {{"x", random_tensor({1, 8, 9, 10}, 104)}}, 1e-4,
                                                          1e-4, {{"GPU_GEMM_KERNEL", GetParam()}});
    for (const std::string fused : {"swish1", "swish2"}) {
        const ProfilingInfo* record = record_named(got.profile, fused);
        ASSERT_NE(record, nullptr) << fused << ":\n" << contents(got.profile);
        EXPECT_NE(record->exec_type.find("gemm"), std::string::npos) << fused << " ran " << record->exec_type;
    }
    EXPECT_EQ(record_named(got.profile, "sigmoid1"), nullptr) << contents(got.profile);
    EXPECT_EQ(record_named(got.profile, "sigmoid2"), nullptr) << contents(got.profile);
    EXPECT_NE(record_named(got.profile, "sigmoid3"), nullptr) << contents(got.profile);
}

// torch's erf Gelu (five ops, in each order exporters write them) after a MatMul and its bias, as
// BERT's intermediate layers: one activation of the MatMul's epilogue, profiled under the last
// Multiply's name, with no record of the Erf. Where the MatMul's result has another reader the
// pattern stays apart, and the results are the same.
TEST_P(GpuGemm, ErfGeluWrittenAsFiveOpsFusesIntoTheMatMul) {
    for (GeluForm form : {GeluForm::bert, GeluForm::half_first, GeluForm::half_term, GeluForm::inverse_sqrt2}) {
        SCOPED_TRACE(static_cast<int>(form));
        ModelBuilder b("gemm_gelu");
        Output x = b.parameter("x", ElementType::f32, {1, 19, 40});
        Output mm = matmul(b, x, random_constant(b, {40, 48}, 121, "w", 2.0f), "fc");
        Output biased = b.op("Add", {random_constant(b, {48}, 122, "bias"), mm}, {}, "fc_bias");
        b.result(decomposed_gelu(b, biased, form, nullptr, "a/"), "y");
        Output mm2 = matmul(b, x, random_constant(b, {40, 48}, 123, "w2", 2.0f), "fc2");
        b.result(decomposed_gelu(b, mm2, form, nullptr, "b/"), "y2");
        b.result(mm2, "fc2_out");  // a third reader of the MatMul's result: not fused
        const RunResult got = expect_device_matches_reference(b.build(), "GPU", {{"x", random_tensor({1, 19, 40}, 124)}},
                                                              1e-4, 1e-4, {{"GPU_GEMM_KERNEL", GetParam()}});
        const ProfilingInfo* fused = record_named(got.profile, "a/gelu");
        ASSERT_NE(fused, nullptr) << contents(got.profile);
        EXPECT_NE(fused->exec_type.find("gemm"), std::string::npos) << fused->exec_type;
        EXPECT_EQ(record_named(got.profile, "a/erf"), nullptr) << contents(got.profile);
        EXPECT_NE(record_named(got.profile, "b/erf"), nullptr) << contents(got.profile);
    }
}

// An attention block as PyTorch exports it: queries, keys and values reshaped to heads and
// transposed (keys to [batch, heads, size, tokens], or to tokens first and read by a MatMul with
// transpose_b), and the result transposed back. The GEMMs walk the Transposes' inputs through
// strides and the result's Transpose writes nothing of its own (matrix_layout.hpp): no record of
// them, the second MatMul's record named after it. With two images the batch dims (image, head) no
// longer fall one stride apart in the untransposed tensor, and the Transposes run.
TEST_P(GpuGemm, AttentionTransposesAreWalkedThroughStridesNotRun) {
    const int64_t tokens = 20, heads = 3, size = 16;
    for (const bool keys_transposed_by_matmul : {false, true})
        for (const int64_t images : {int64_t{1}, int64_t{2}}) {
            SCOPED_TRACE(std::to_string(images) + " images, keys " + (keys_transposed_by_matmul ? "[b,h,t,s] with transpose_b" : "[b,h,s,t]"));
            ModelBuilder b("attention");
            const Shape in{images, tokens, heads * size};
            const auto split_heads = [&](const std::string& name, std::vector<int64_t> order) {
                Output x = b.parameter(name, ElementType::f32, in);
                Output r = b.op("Reshape", {x, b.constant<int64_t>({4}, {images, tokens, heads, size}, name + "/shape")},
                                {{"special_zero", "false"}}, name + "/heads");
                return b.op("Transpose", {r, b.constant<int64_t>({4}, order, name + "/order")}, {}, name + "/t");
            };
            Output q = split_heads("q", {0, 2, 1, 3});
            Output k = split_heads("k", keys_transposed_by_matmul ? std::vector<int64_t>{0, 2, 1, 3} : std::vector<int64_t>{0, 2, 3, 1});
            Output v = split_heads("v", {0, 2, 1, 3});
            Output scores = matmul(b, q, k, "scores", false, keys_transposed_by_matmul);
            Output p = b.op("Softmax", {scores}, {{"axis", "-1"}}, "softmax", "opset8");
            Output o = matmul(b, p, v, "context");
            Output back = b.op("Transpose", {o, b.constant<int64_t>({4}, {0, 2, 1, 3}, "o/order")}, {}, "o/t");
            b.result(b.op("Reshape", {back, b.constant<int64_t>({3}, {images, tokens, heads * size}, "o/shape")},
                          {{"special_zero", "false"}}, "o/merge"),
                     "y");
            const RunResult got = expect_device_matches_reference(
                b.build(), "GPU", {{"q", random_tensor(in, 121)}, {"k", random_tensor(in, 122)}, {"v", random_tensor(in, 123)}},
                1e-4, 1e-4, {{"GPU_GEMM_KERNEL", GetParam()}});
            const bool walked = images == 1;
            for (const std::string transpose : {"q/t", "k/t", "v/t"})
                EXPECT_EQ(record_named(got.profile, transpose) == nullptr, walked) << transpose << ":\n" << contents(got.profile);
            EXPECT_EQ(record_named(got.profile, "context") == nullptr, walked) << contents(got.profile);
            const ProfilingInfo* last = record_named(got.profile, "o/t");
            ASSERT_NE(last, nullptr) << contents(got.profile);
            EXPECT_EQ(last->node_type == "MatMul", walked) << last->node_type;
        }
}

// 2-D Transposes before either operand, with and without the MatMul's own transpose flags: an
// operand stored transposed flips the GEMM's flag for it (matrix_layout.hpp), so each product
// equals REFERENCE's and no Transpose runs.
TEST_P(GpuGemm, TransposedOperandsFlipTheGemmsFlags) {
    for (const bool ta : {false, true})
        for (const bool tb : {false, true}) {
            SCOPED_TRACE(std::string("transpose_a ") + (ta ? "yes" : "no") + ", transpose_b " + (tb ? "yes" : "no"));
            const int64_t m = 13, k = 24, n = 20;
            // The Transposes' inputs, so that after them each operand has the shape the flags want.
            const Shape x_shape = ta ? Shape{m, k} : Shape{k, m}, y_shape = tb ? Shape{k, n} : Shape{n, k};
            ModelBuilder b("transposed_operands");
            Output x = b.parameter("x", ElementType::f32, x_shape);
            Output y = b.parameter("y", ElementType::f32, y_shape);
            Output xt = b.op("Transpose", {x, b.constant<int64_t>({2}, {1, 0}, "x/order")}, {}, "x/t");
            Output yt = b.op("Transpose", {y, b.constant<int64_t>({2}, {1, 0}, "y/order")}, {}, "y/t");
            b.result(matmul(b, xt, yt, "mm", ta, tb), "z");
            const RunResult got = expect_device_matches_reference(
                b.build(), "GPU", {{"x", random_tensor(x_shape, 141)}, {"y", random_tensor(y_shape, 142)}}, 1e-4, 1e-4,
                {{"GPU_GEMM_KERNEL", GetParam()}});
            EXPECT_EQ(record_named(got.profile, "x/t"), nullptr) << contents(got.profile);
            EXPECT_EQ(record_named(got.profile, "y/t"), nullptr) << contents(got.profile);
        }
}

// A Transpose whose result another op reads as well, or that leaves no matrix dim contiguous,
// runs: the MatMul reads its output.
TEST_P(GpuGemm, TransposesAMatMulCannotWalkStillRun) {
    ModelBuilder b("transposes_run");
    Output x = b.parameter("x", ElementType::f32, {1, 20, 3, 16});
    Output shared = b.op("Transpose", {x, b.constant<int64_t>({4}, {0, 2, 1, 3}, "shared/order")}, {}, "shared");
    Output scattered = b.op("Transpose", {x, b.constant<int64_t>({4}, {0, 3, 1, 2}, "scattered/order")}, {}, "scattered");
    b.result(matmul(b, shared, random_constant(b, {16, 8}, 131, "w"), "mm_shared"), "y1");
    b.result(shared, "y2");
    b.result(matmul(b, scattered, random_constant(b, {3, 5}, 132, "w2"), "mm_scattered"), "y3");
    const RunResult got = expect_device_matches_reference(b.build(), "GPU", {{"x", random_tensor({1, 20, 3, 16}, 133)}}, 1e-4,
                                                          1e-4, {{"GPU_GEMM_KERNEL", GetParam()}});
    for (const std::string transpose : {"shared", "scattered"}) {
        const ProfilingInfo* record = record_named(got.profile, transpose);
        ASSERT_NE(record, nullptr) << transpose << ":\n" << contents(got.profile);
        EXPECT_EQ(record->node_type, "Transpose");
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, GpuGemm, ::testing::Values("TILED", "CLBLAST"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

std::string gemm_exec_type(const AnyMap& properties) {
    ModelBuilder b("gemm_auto");
    Output x = b.parameter("x", ElementType::f32, {4, 8});
    b.result(matmul(b, x, random_constant(b, {8, 8}, 61, "w"), "mm"), "y");
    const CompiledModel compiled = shared_core().compile_model(b.build(), "GPU", properties);
    const nlohmann::json executors = compiled.get_property("GPU_EXECUTORS");
    for (const auto& e : executors)
        if (e.at("name") == "mm") return e.at("exec_type").get<std::string>();
    return "none";
}

// AUTO: the tiled kernel on an OpenCL CPU device (PoCL), CLBlast on a GPU.
TEST(GpuGemmKernel, AutoPicksTheTiledKernelOnAnOpenClCpuDeviceAndClblastOnAGpu) {
    const std::string name = shared_core().get_property("GPU", "FULL_DEVICE_NAME").get<std::string>();
    const bool cpu_device = contains(name, "OpenCL CPU device");
    EXPECT_EQ(gemm_exec_type({}), cpu_device ? "gemm_tiled_f32" : "clblast_gemm") << name;
    EXPECT_EQ(gemm_exec_type({{"GPU_GEMM_KERNEL", "CLBLAST"}}), "clblast_gemm");
    EXPECT_EQ(gemm_exec_type({{"GPU_GEMM_KERNEL", "TILED"}}), "gemm_tiled_f32");
}

TEST(GpuGemmKernel, AnUnknownKernelIsRefusedNamingTheChoices) {
    const std::string error = error_of([] { gemm_exec_type({{"GPU_GEMM_KERNEL", "FASTEST"}}); });
    EXPECT_TRUE(contains(error, "GPU_GEMM_KERNEL")) << error;
    EXPECT_TRUE(contains(error, "TILED") && contains(error, "CLBLAST")) << error;
}

}  // namespace
}  // namespace mosaic::test::gpu
