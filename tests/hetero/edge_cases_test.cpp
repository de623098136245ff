// Less common shapes of a split: ops with several outputs read on different devices, one tensor
// behind several model outputs, lifetimes (a compiled model outliving its Core, a request outliving
// its compiled model, a device unloaded), and an import into a Core that lacks a device.
#include "hetero/hetero_test_util.hpp"

#include <sstream>

namespace mosaic::test::hetero {
namespace {

// x -> Split (REFERENCE only) -> part 0 -> relu (ACCEL)
//                            -> part 1 -> sigmoid (REFERENCE)
//                            -> part 2 -> model output
TEST(HeteroEdgeCases, OutputsOfAMultiOutputOpReadOnDifferentDevices) {
    Core core;
    ModelBuilder b("split_three");
    Output x = b.parameter("x", ElementType::f32, {1, 6, 2, 2});
    Output parts = b.op("Split", {x, b.constant<int64_t>({}, {1}, "axis")}, {{"num_splits", "3"}}, "split");
    Node* split = ModelBuilder::node(parts);
    Output p0 = split->output(0), p1 = split->output(1), p2 = split->output(2);
    b.result(b.op("Relu", {conv(b, p0, 2, 2, "conv", 9)}, {}, "relu"), "a");
    b.result(b.op("Sigmoid", {p1}, {}, "sigmoid"), "b");
    b.result(p2, "c");
    auto model = b.build();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    const json split_info = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split_info, *model));
    EXPECT_TRUE(transfers_are_as_expected(split_info, *model));
    EXPECT_EQ(split_info["affinity"]["split"], "REFERENCE");
    EXPECT_EQ(split_info["affinity"]["conv"], "ACCEL");
}

// One tensor is two model outputs and is read by ops on both devices.
TEST(HeteroEdgeCases, OneTensorBehindSeveralOutputsAndDevices) {
    Core core;
    ModelBuilder b("shared_tensor");
    Output x = b.parameter("x", ElementType::f32, {1, 2, 4, 4});
    Output r = b.op("Relu", {conv(b, x, 2, 2, "conv", 4)}, {}, "relu");  // ACCEL
    b.result(r, "first");
    b.result(b.op("Sigmoid", {r}, {}, "sigmoid"), "crossed");          // REFERENCE reads it
    b.result(r, "second");
    b.result(b.op("Add", {r, r}, {}, "doubled"), "stayed");            // ACCEL reads it
    auto model = b.build();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    const auto out = run(compiled);
    EXPECT_TRUE(outputs_near(out, reference_outputs(core, model)));
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0], out[2]);
    EXPECT_TRUE(transfers_are_as_expected(split_of(compiled), *model));
}

// An i64 tensor crossing devices both ways: x -> Convert (REFERENCE) -> Add (ACCEL, i64) -> Convert
// (REFERENCE) -> y. Transfers are counted in the tensor's own element size.
TEST(HeteroEdgeCases, IntegerTensorsCrossDevices) {
    Core core;
    ModelBuilder b("integers");
    Output x = b.parameter("x", ElementType::f32, {2, 3});
    Output as_int = b.op("Convert", {x}, {{"destination_type", "i64"}}, "to_int");
    Output shifted = b.op("Add", {as_int, b.constant<int64_t>({3}, {1, -2, 3}, "offsets")}, {}, "shift");
    b.result(b.op("Convert", {shifted}, {{"destination_type", "f32"}}, "to_float"), "y");
    auto model = b.build();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    const json split = split_of(compiled);
    EXPECT_EQ(split["affinity"]["shift"], "ACCEL");
    EXPECT_EQ(split["affinity"]["to_int"], "REFERENCE");
    EXPECT_TRUE(transfers_are_as_expected(split, *model));
    EXPECT_EQ(split["transfer_bytes"], 2 * 6 * 8);
    const Tensor in = Tensor::from_vector(Shape{2, 3}, ElementType::f32, std::vector<float>{-2.f, 0.f, 1.f, 7.f, 8.f, 9.f});
    EXPECT_EQ(run(compiled, {in}), (std::vector<std::vector<float>>{{-1.f, -2.f, 4.f, 8.f, 6.f, 12.f}}));
}

// Output tensors the application provides are filled, also when a later subgraph reads them.
TEST(HeteroEdgeCases, OutputTensorsGivenByTheApplication) {
    Core core;
    ModelBuilder b("given_outputs");
    Output x = b.parameter("x", ElementType::f32, {1, 2, 4, 4});
    Output r = b.op("Relu", {conv(b, x, 2, 2, "conv", 6)}, {}, "relu");  // ACCEL, read by REFERENCE
    b.result(r, "features");
    b.result(b.op("Sigmoid", {r}, {}, "sigmoid"), "gate");
    auto model = b.build();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    const auto expected = reference_outputs(core, model);
    InferRequest request = compiled.create_infer_request();
    Tensor features(ElementType::f32, {1, 2, 4, 4}), gate(ElementType::f32, {1, 2, 4, 4});
    request.set_tensor("features", features);
    request.set_tensor("gate", gate);
    request.set_input_tensor(inputs_for(compiled)[0]);
    request.infer();
    EXPECT_TRUE(outputs_near({features.to_vector<float>(), gate.to_vector<float>()}, expected));
    EXPECT_EQ(request.get_tensor("features").data(), features.data());
}

TEST(HeteroEdgeCases, InputReadByEveryDeviceAndReturned) {
    Core core;
    ModelBuilder b("input_everywhere");
    Output x = b.parameter("x", ElementType::f32, {1, 2, 3, 3});
    b.result(b.op("Relu", {x}, {}, "on_accel"), "a");
    b.result(b.op("Sigmoid", {x}, {}, "on_npu"), "b");
    b.result(b.op("Exp", {x}, {}, "on_reference"), "c");
    b.result(x, "x_again");
    auto model = b.build();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), json::array({"ACCEL", "NPU", "REFERENCE"}));
    // Three independent subgraphs, no transfers: the input is host memory every device reads.
    const json split = split_of(compiled);
    EXPECT_EQ(split["subgraphs"].size(), 3u);
    EXPECT_EQ(split["transfers"].size(), 0u) << split.dump();
}

TEST(HeteroEdgeCases, CompiledModelKeepsWorkingAfterItsCoreIsGone) {
    auto model = branchy_model();
    std::vector<std::vector<float>> expected;
    CompiledModel compiled;
    {
        Core core;
        expected = reference_outputs(core, model);
        compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    }
    EXPECT_TRUE(outputs_near(run(compiled), expected));
}

TEST(HeteroEdgeCases, RequestKeepsWorkingAfterItsCompiledModelIsGone) {
    Core core;
    auto model = scattered_chain_model();
    InferRequest r;
    std::vector<Tensor> inputs;
    {
        CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
        inputs = inputs_for(compiled);
        r = compiled.create_infer_request();
    }
    r.set_input_tensor(inputs[0]);
    r.infer();
    CompiledModel ref = core.compile_model(model, "REFERENCE");
    EXPECT_TRUE(outputs_near({r.get_output_tensor().to_vector<float>()}, run(ref, inputs)));
}

TEST(HeteroEdgeCases, ModelEditedAfterCompileDoesNotChangeTheCompiledModel) {
    Core core;
    auto model = scattered_chain_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    const auto before = run(compiled);
    model->find_node("sigmoid")->get_rt_info()["affinity"] = "ACCEL";  // would not even compile now
    model->find_node("relu1")->set_friendly_name("renamed");
    EXPECT_EQ(run(compiled), before);
    EXPECT_TRUE(split_of(compiled)["affinity"].contains("relu1"));
}

class HeteroImportElsewhere : public ::testing::Test {
protected:
    void SetUp() override {
        add_build_devices(with_forward);
        with_forward.add("FORWARD", forward_plugin(), {{"TARGET", "REFERENCE"}});
        with_forward.write();
        add_build_devices(without_forward);
        without_forward.write();
    }
    TempRegistry with_forward, without_forward;
};

TEST_F(HeteroImportElsewhere, MissingDeviceIsNamed) {
    std::stringstream blob;
    {
        Core core(with_forward.path());
        core.compile_model(scattered_chain_model(), "HETERO:ACCEL,FORWARD").export_model(blob);
    }
    Core other(without_forward.path());
    const std::string msg = error_of([&] { other.import_model(blob, "HETERO"); });
    EXPECT_CONTAINS(msg, "FORWARD");
}

TEST_F(HeteroImportElsewhere, DeviceUnloadedAfterCompile) {
    Core core(with_forward.path());
    auto model = scattered_chain_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,FORWARD");
    const auto before = run(compiled);
    core.unload_plugin("FORWARD");
    EXPECT_EQ(run(compiled), before);  // the compiled model keeps what it uses
    EXPECT_CONTAINS(error_of([&] { core.compile_model(model, "HETERO:ACCEL,FORWARD"); }), "FORWARD");
}

}  // namespace
}  // namespace mosaic::test::hetero
