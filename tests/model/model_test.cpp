// The Model: building, validation errors naming the op, shape inference with folded shape
// subgraphs, reshape, clone.
#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>

#include <limits>

namespace mosaic::test {
namespace {

template <typename Fn>
std::string model_error(Fn&& fn) {
    try {
        fn();
    } catch (const ModelError& e) {
        return e.what();
    }
    return "(no ModelError)";
}

TEST(Model, BuilderInfersShapesAsOpsAreAdded) {
    ModelBuilder b("m");
    Output x = b.parameter("x", ElementType::f32, {2, 3});
    Output y = b.parameter("y", ElementType::f32, {3});
    Output sum = b.op("Add", {x, y});
    EXPECT_EQ(sum.get_partial_shape(), (Shape{2, 3}));
    EXPECT_EQ(sum.get_element_type(), ElementType::f32);
    Output cmp = b.op("Less", {x, y});
    EXPECT_EQ(cmp.get_element_type(), ElementType::boolean);
}

TEST(Model, IncompatibleShapesNameTheOp) {
    ModelBuilder b("m");
    Output x = b.parameter("x", ElementType::f32, {2, 3});
    Output y = b.parameter("y", ElementType::f32, {4});
    std::string msg = model_error([&] { b.op("Add", {x, y}, {}, "bad_add"); });
    EXPECT_NE(msg.find("'bad_add'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Add-opset1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[2,3]"), std::string::npos) << msg;
    // The builder stays usable and the rejected node is gone.
    EXPECT_EQ(b.model().find_node("bad_add"), nullptr);
    b.result(b.op("Relu", {x}), "out");
    EXPECT_NO_THROW(b.build());
}

TEST(Model, TypeMismatchNamesTheOp) {
    ModelBuilder b("m");
    Output x = b.parameter("x", ElementType::f32, {2});
    Output y = b.parameter("y", ElementType::i32, {2});
    std::string msg = model_error([&] { b.op("Add", {x, y}, {}, "mixed"); });
    EXPECT_NE(msg.find("'mixed'"), std::string::npos) << msg;
}

TEST(Model, UnknownOpAndUnknownVersionAreDistinguished) {
    auto m = std::make_shared<Model>("m");
    Node* p = m->add_parameter("x", ElementType::f32, {2});
    Node* a = m->add_node("Frobnicate", "opset1", {p->output(0)}, {}, "frob");
    m->add_result(a->output(0));
    std::string msg = model_error([&] { m->validate(); });
    EXPECT_NE(msg.find("unknown op type 'Frobnicate'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'frob'"), std::string::npos) << msg;

    auto m2 = std::make_shared<Model>("m2");
    Node* p2 = m2->add_parameter("x", ElementType::f32, {2});
    Node* r = m2->add_node("Relu", "opset99", {p2->output(0)}, {}, "relu");
    m2->add_result(r->output(0));
    msg = model_error([&] { m2->validate(); });
    EXPECT_NE(msg.find("no version 'opset99'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("opset1"), std::string::npos) << msg;
}

TEST(Model, CycleIsReportedWithTheNodesOnIt) {
    auto m = std::make_shared<Model>("cyclic");
    Node* p = m->add_parameter("x", ElementType::f32, {2});
    Node* a = m->add_node("Add", "opset1", {p->output(0), p->output(0)}, {}, "a");
    Node* b = m->add_node("Relu", "opset1", {a->output(0)}, {}, "b");
    a->set_input(1, b->output(0));
    m->add_result(b->output(0));
    std::string msg = model_error([&] { m->validate(); });
    EXPECT_NE(msg.find("cycle"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'a'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'b'"), std::string::npos) << msg;
}

TEST(Model, DanglingInputIsReported) {
    auto m = std::make_shared<Model>("m");
    Node* r = m->add_node("Relu", "opset1", {Output{}}, {}, "lonely");
    m->add_result(r->output(0));
    std::string msg = model_error([&] { m->validate(); });
    EXPECT_NE(msg.find("'lonely'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("connected to nothing"), std::string::npos) << msg;
}

TEST(Model, EdgeToAMissingOutputPortIsReported) {
    auto m = std::make_shared<Model>("m");
    Node* p = m->add_parameter("x", ElementType::f32, {2});
    Node* r = m->add_node("Relu", "opset1", {Output{p, 3}}, {}, "relu");
    m->add_result(r->output(0));
    std::string msg = model_error([&] { m->validate(); });
    EXPECT_NE(msg.find("output 3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'relu'"), std::string::npos) << msg;
}

TEST(Model, WrongInputCountIsReported) {
    ModelBuilder b("m");
    Output x = b.parameter("x", ElementType::f32, {2});
    std::string msg = model_error([&] { b.op("Add", {x}, {}, "half_add"); });
    EXPECT_NE(msg.find("has 1 inputs, expected 2"), std::string::npos) << msg;
}

TEST(Model, ConstantWhoseBytesContradictItsShapeIsReported) {
    ModelBuilder b("m");
    std::string msg = model_error([&] {
        b.constant(ElementType::f32, {2, 2}, Buffer::from_vector(std::vector<float>{1, 2, 3}), "short");
    });
    EXPECT_NE(msg.find("'short'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("12 bytes"), std::string::npos) << msg;
}

TEST(Model, ModelWithoutResultIsReported) {
    auto m = std::make_shared<Model>("m");
    m->add_parameter("x", ElementType::f32, {2});
    EXPECT_NE(model_error([&] { m->validate(); }).find("no Result"), std::string::npos);
}

TEST(Model, DuplicateFriendlyNamesAreReported) {
    auto m = std::make_shared<Model>("m");
    Node* p = m->add_parameter("x", ElementType::f32, {2});
    Node* r = m->add_node("Relu", "opset1", {p->output(0)}, {}, "x");
    m->add_result(r->output(0));
    EXPECT_NE(model_error([&] { m->validate(); }).find("two nodes are named 'x'"), std::string::npos);
}

TEST(Model, ShapeSubgraphsAreFoldedForValueDependentInputs) {
    // Reshape(x, Concat(Gather(ShapeOf(x), [0]), [-1])): flatten all but the batch dim.
    ModelBuilder b("m");
    Output x = b.parameter("x", ElementType::f32, {2, 3, 4});
    Output shape = b.op("ShapeOf", {x});
    Output batch = b.op("Gather", {shape, b.constant<int64_t>({1}, {0}), b.constant<int64_t>({}, {0})});
    Output target = b.op("Concat", {batch, b.constant<int64_t>({1}, {-1})}, {{"axis", "0"}});
    Output flat = b.op("Reshape", {x, target}, {{"special_zero", "false"}});
    EXPECT_EQ(flat.get_partial_shape(), (Shape{2, 12}));
}

TEST(Model, ReshapeReinfersEveryShape) {
    ModelBuilder b("m");
    Output x = b.parameter("x", ElementType::f32, {1, 4});
    b.result(b.op("Relu", {x}, {}, "relu"), "y");
    auto m = b.build();
    m->reshape({{"x", {3, 4}}});
    EXPECT_EQ(m->find_node("relu")->output_shape(0), (Shape{3, 4}));
    EXPECT_NE(model_error([&] { m->reshape({{"nope", {1}}}); }).find("no input named 'nope'"), std::string::npos);
}

TEST(Model, CloneIsDeepButSharesWeights) {
    ModelBuilder b("m");
    Output x = b.parameter("x", ElementType::f32, {2});
    Output c = b.constant<float>({2}, {1, 2}, "c");
    b.result(b.op("Add", {x, c}, {}, "add"), "y");
    auto m = b.build();
    m->find_node("add")->get_rt_info()["affinity"] = "ACCEL";
    auto copy = m->clone();
    EXPECT_EQ(copy->get_ops().size(), m->get_ops().size());
    EXPECT_EQ(copy->find_node("add")->get_rt_info().at("affinity"), "ACCEL");
    EXPECT_EQ(copy->find_node("add")->input(0).node, copy->find_node("x"));
    EXPECT_EQ(copy->find_node("c")->constant_data(), m->find_node("c")->constant_data());
    copy->find_node("add")->set_friendly_name("renamed");
    EXPECT_NE(m->find_node("add"), nullptr);
}

TEST(Model, TopologicalOrderIsStable) {
    ModelBuilder b("m");
    Output x = b.parameter("x", ElementType::f32, {2});
    Output y = b.parameter("y", ElementType::f32, {2});
    b.result(b.op("Relu", {y}, {}, "ry"), "out_y");
    b.result(b.op("Relu", {x}, {}, "rx"), "out_x");
    auto m = b.build();
    std::vector<std::string> names;
    for (Node* n : m->get_ordered_ops()) names.push_back(n->get_friendly_name());
    EXPECT_EQ(names, (std::vector<std::string>{"x", "y", "ry", "out_y", "rx", "out_x"}));
}

}  // namespace
}  // namespace mosaic::test

namespace mosaic::test {
namespace {

TEST(Model, ShapesWhoseSizeOverflowsAreRejected) {
    ModelBuilder b("huge");
    Output x = b.constant<float>({}, {1.0f}, "one");
    Output target = b.constant<int64_t>({2}, {3, 6148914691236517206LL}, "target");
    std::string msg = model_error([&] { b.op("Broadcast", {x, target}, {{"mode", "numpy"}}, "bcast"); });
    EXPECT_NE(msg.find("'bcast'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("overflows"), std::string::npos) << msg;
    msg = model_error([&] { b.parameter("p", ElementType::f32, {1LL << 40, 1LL << 40}); });
    EXPECT_NE(msg.find("overflows"), std::string::npos) << msg;
}

// Found by fuzzing (tests/fuzz/regressions/onnx_reader/broadcast_target_of_rank_2_31.onnx): a
// Broadcast whose target shape is computed at run time has the target's declared length as its
// rank, and a target declared [2147483647] made shape inference allocate a shape of that rank.
TEST(Model, BroadcastToATargetOfAbsurdLengthIsRejected) {
    ModelBuilder b("long_target");
    Output x = b.parameter("x", ElementType::f32, {1});
    Output target = b.parameter("target", ElementType::i64, {2147483647});
    const std::string msg = model_error([&] { b.op("Broadcast", {x, target}, {{"mode", "numpy"}}, "bcast"); });
    for (const char* part : {"'bcast'", "giving rank 2147483647", "at most 64"})
        EXPECT_NE(msg.find(part), std::string::npos) << part << " in: " << msg;
}

// Values computed when the model runs (a shape fed as an input, or one computed from a dynamic
// input's shape): every op whose output shape depends on them answers with the rank it can tell
// and dynamic dimensions, so the model reads; it then runs in stages around the first such op
// (cut_model.hpp), equal to the same ops with the values given as constants.
TEST(Model, OpsOfValuesComputedWhenTheModelRunsGiveDynamicDimensionsAndRun) {
    struct Case {
        const char* type;
        Attributes attrs;
        Shape data;
        std::vector<int64_t> values;  // input 1, fed when the model runs
        Shape expected;               // at read time
        std::vector<Output> (*extra)(ModelBuilder&);  // inputs after the computed one
    };
    auto none = [](ModelBuilder&) { return std::vector<Output>{}; };
    auto pad_end = [](ModelBuilder& b) { return std::vector<Output>{b.constant<int64_t>({2}, {0, 1}, "end")}; };
    auto slice_rest = [](ModelBuilder& b) {
        return std::vector<Output>{b.constant<int64_t>({1}, {3}, "stop"), b.constant<int64_t>({1}, {1}, "step"),
                                   b.constant<int64_t>({1}, {1}, "axes")};
    };
    const std::vector<Case> cases = {
        {"Reshape", {{"special_zero", "false"}}, {2, 3}, {3, 2}, {-1, -1}, none},
        {"Tile", {}, {2, 3}, {2, 1}, {-1, -1}, none},
        {"Transpose", {}, {2, 3}, {1, 0}, {-1, -1}, none},
        {"Unsqueeze", {}, {2, 3}, {0}, {-1, -1, -1}, none},
        {"Pad", {{"pad_mode", "constant"}}, {2, 3}, {1, 0}, {-1, -1}, pad_end},
        {"Slice", {}, {2, 4}, {1}, {2, -1}, slice_rest},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.type);
        ModelBuilder b(std::string("computed_") + c.type);
        Output x = b.parameter("x", ElementType::f32, c.data);
        Output v = b.parameter("v", ElementType::i64, {static_cast<int64_t>(c.values.size())});
        std::vector<Output> inputs{x, v};
        for (const Output& o : c.extra(b)) inputs.push_back(o);
        Output y = b.op(c.type, inputs, c.attrs, "op");
        EXPECT_EQ(to_string(y.get_partial_shape()), to_string(c.expected));
        b.result(y, "y");
        auto computed = b.build();

        ModelBuilder k(std::string("constant_") + c.type);
        Output kx = k.parameter("x", ElementType::f32, c.data);
        std::vector<Output> k_inputs{kx, k.constant<int64_t>({static_cast<int64_t>(c.values.size())}, c.values, "v")};
        for (const Output& o : c.extra(k)) k_inputs.push_back(o);
        k.result(k.op(c.type, k_inputs, c.attrs, "op"), "y");
        auto known = k.build();

        Core core;
        Tensor data(ElementType::f32, c.data);
        for (size_t i = 0; i < data.get_size(); ++i) static_cast<float*>(data.data())[i] = static_cast<float>(i) + 0.5f;
        InferRequest r = core.compile_model(computed, "REFERENCE").create_infer_request();
        r.set_tensor("x", data);
        r.set_tensor("v", Tensor::from_vector<int64_t>({static_cast<int64_t>(c.values.size())}, ElementType::i64, c.values));
        r.infer();
        InferRequest e = core.compile_model(known, "REFERENCE").create_infer_request();
        e.set_tensor("x", data);
        e.infer();
        const Tensor got = r.get_tensor("y"), want = e.get_tensor("y");
        ASSERT_EQ(to_string(got.get_shape()), to_string(want.get_shape()));
        for (size_t i = 0; i < want.get_size(); ++i) EXPECT_EQ(got.data<float>()[i], want.data<float>()[i]) << i;
    }
}

// Found by fuzzing (tests/fuzz/regressions/onnx_reader/conv_pads_int64_max.onnx): a Convolution's
// output size added its pads to the input size unchecked, a signed overflow (UBSan) for a pad of
// INT64_MAX; so did the window of a huge dilation.
TEST(Model, ConvolutionWindowsThatOverflowAreRejected) {
    for (const auto& [pads, dilations] : std::vector<std::pair<std::string, std::string>>{
             {"9223372036854775807,0", "1,1"}, {"0,0", "4611686018427387904,1"}}) {
        ModelBuilder b("conv");
        Output x = b.parameter("x", ElementType::f32, {1, 1, 8, 8});
        Output w = b.constant<float>({1, 1, 3, 3}, std::vector<float>(9, 1.0f), "w");
        const std::string msg = model_error([&] {
            b.op("Convolution", {x, w},
                 {{"strides", "1,1"}, {"pads_begin", pads}, {"pads_end", "0,0"}, {"dilations", dilations}}, "conv");
        });
        for (const char* part : {"'conv'", "spatial axis 0", "overflows 64 bits"})
            EXPECT_NE(msg.find(part), std::string::npos) << part << " in: " << msg;
    }
}

// Found by fuzzing (tests/fuzz/regressions/onnx_reader/depth_to_space_block_overflow.onnx):
// DepthToSpace multiplied block_size over the spatial axes unchecked, a signed overflow (UBSan) for
// a block_size of INT64_MAX; SpaceToDepth likewise.
TEST(Model, BlockSizesWhoseVolumeOverflowsAreRejected) {
    for (const char* op : {"DepthToSpace", "SpaceToDepth"}) {
        ModelBuilder b("blocks");
        Output x = b.parameter("x", ElementType::f32, {1, 4, 2, 2});
        const std::string msg = model_error(
            [&] { b.op(op, {x}, {{"block_size", "9223372036854775807"}, {"mode", "blocks_first"}}, "block"); });
        for (const char* part : {"'block'", "block_size 9223372036854775807", "overflows 64 bits"})
            EXPECT_NE(msg.find(part), std::string::npos) << op << ": " << part << " in: " << msg;
    }
}

// Found by fuzzing (tests/fuzz/regressions/onnx_reader/eye_diagonal_int64_max.onnx): folding an Eye
// whose diagonal_index is INT64_MAX computed row + diagonal, a signed overflow (UBSan). A diagonal
// outside the matrix sets nothing.
TEST(Model, EyeWithADiagonalOutsideTheMatrixFoldsToZeros) {
    for (int64_t diagonal : {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), int64_t{3}, int64_t{-2}}) {
        ModelBuilder b("eye");
        Output rows = b.constant<int64_t>({}, {2}), columns = b.constant<int64_t>({}, {3});
        Output eye = b.op("Eye", {rows, columns, b.constant<int64_t>({}, {diagonal})}, {{"output_type", "f32"}}, "eye");
        b.result(b.op("Add", {eye, b.parameter("x", ElementType::f32, {2, 3})}), "y");
        Core core;
        InferRequest r = core.compile_model(b.build(), "REFERENCE").create_infer_request();
        r.set_input_tensor(0, Tensor::from_vector({2, 3}, ElementType::f32, std::vector<float>(6, 0.5f)));
        r.infer();
        EXPECT_EQ(r.get_output_tensor(0).to_vector<float>(), std::vector<float>(6, 0.5f)) << "diagonal " << diagonal;
    }
}

}  // namespace
}  // namespace mosaic::test
