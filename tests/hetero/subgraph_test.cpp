// How the graph is cut into subgraphs: shapes that a naive grouping by device would make cyclic
// (a diamond, two crossing chains) must give acyclic splits with as few subgraphs as possible, and
// the edges of the model (parameters or constants that are outputs, constants shared by devices)
// must work.
#include "hetero/hetero_test_util.hpp"

namespace mosaic::test::hetero {
namespace {

// A (conv, ACCEL) -> B (sigmoid, REFERENCE) -> D (add, ACCEL)
//                 -> C (relu, ACCEL)        ->
// Grouping ACCEL's ops {A, C, D} into one subgraph would need B both before and after it, so the
// fewest subgraphs an acyclic split can have is 3.
std::shared_ptr<Model> diamond_model() {
    ModelBuilder b("diamond");
    Output x = b.parameter("x", ElementType::f32, {1, 2, 6, 6});
    Output a = conv(b, x, 2, 2, "A", 7);
    Output bb = b.op("Sigmoid", {a}, {}, "B");
    Output c = b.op("Relu", {a}, {}, "C");
    b.result(b.op("Add", {bb, c}, {}, "D"), "y");
    return b.build();
}

// Two chains that cross devices in opposite directions:
//   a1 = relu(x) (ACCEL)      b1 = sigmoid(x) (REFERENCE)
//   a2 = a1 + b1  (ACCEL)      b2 = b1 * a1    (REFERENCE)
// ACCEL needs REFERENCE's b1 and REFERENCE needs ACCEL's a1: one subgraph per device is cyclic,
// three subgraphs suffice.
std::shared_ptr<Model> crossing_model() {
    ModelBuilder b("crossing");
    Output x = b.parameter("x", ElementType::f32, {2, 8});
    Output a1 = b.op("Relu", {x}, {}, "a1");
    Output b1 = b.op("Sigmoid", {x}, {}, "b1");
    Output a2 = b.op("Add", {a1, b1}, {}, "a2");
    Output b2 = b.op("Multiply", {b1, a1}, {}, "b2");
    b.result(a2, "out_a");
    b.result(b2, "out_b");
    return b.build();
}

TEST(HeteroSubgraphs, DiamondIsSplitAcyclicallyIntoThree) {
    Core core;
    auto model = diamond_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    EXPECT_TRUE(transfers_are_as_expected(split, *model));
    EXPECT_EQ(split["subgraphs"].size(), 3u) << split.dump();
    EXPECT_EQ(compiled.get_property("HETERO_NUMBER_OF_SUBGRAPHS"), 3);
    EXPECT_EQ(split["affinity"]["A"], "ACCEL");
    EXPECT_EQ(split["affinity"]["B"], "REFERENCE");
    EXPECT_EQ(split["affinity"]["C"], "ACCEL");
    EXPECT_EQ(split["affinity"]["D"], "ACCEL");
}

TEST(HeteroSubgraphs, DiamondWithManualAffinity) {
    Core core;
    auto model = diamond_model();
    // B is a Sigmoid, which NPU runs; placing it on REFERENCE by hand gives the same diamond.
    set_affinities_over_query(core, model, "HETERO:ACCEL,NPU,REFERENCE", {{"B", "REFERENCE"}});
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    EXPECT_TRUE(transfers_are_as_expected(split, *model));
    EXPECT_EQ(split["subgraphs"].size(), 3u) << split.dump();
    EXPECT_EQ(split["affinity"]["B"], "REFERENCE");
}

TEST(HeteroSubgraphs, CrossingChainsAreSplitAcyclicallyIntoThree) {
    Core core;
    auto model = crossing_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    EXPECT_TRUE(transfers_are_as_expected(split, *model));
    EXPECT_EQ(split["subgraphs"].size(), 3u) << split.dump();
    EXPECT_EQ(split["affinity"]["a1"], "ACCEL");
    EXPECT_EQ(split["affinity"]["a2"], "ACCEL");
    EXPECT_EQ(split["affinity"]["b1"], "REFERENCE");
    EXPECT_EQ(split["affinity"]["b2"], "REFERENCE");
}

TEST(HeteroSubgraphs, IndependentBranchesOnOneDeviceShareASubgraph) {
    Core core;
    auto model = crossing_model();
    // Everything on REFERENCE except a1: {a1} then one REFERENCE subgraph is enough.
    set_affinities_over_query(core, model, "HETERO:ACCEL,REFERENCE",
                              {{"b1", "REFERENCE"}, {"a2", "REFERENCE"}, {"b2", "REFERENCE"}});
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    EXPECT_TRUE(transfers_are_as_expected(split, *model));
    EXPECT_EQ(split["subgraphs"].size(), 2u) << split.dump();
}

TEST(HeteroSubgraphs, ParameterAndConstantOutputs) {
    Core core;
    ModelBuilder b("pass_through");
    Output x = b.parameter("x", ElementType::f32, {1, 2, 4, 4});
    Output y = b.op("Sigmoid", {b.op("Relu", {conv(b, x, 2, 2, "conv", 3)}, {}, "relu")}, {}, "sigmoid");
    b.result(y, "y");
    b.result(x, "x_again");                                                       // Parameter -> Result
    b.result(b.constant<float>({3}, {1.f, -2.f, 3.5f}, "table"), "table_out");   // Constant -> Result
    auto model = b.build();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    std::vector<Tensor> inputs = inputs_for(compiled);
    const auto out = run(compiled, inputs);
    EXPECT_TRUE(outputs_near(out, reference_outputs(core, model)));
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[1], inputs[0].to_vector<float>());
    EXPECT_EQ(out[2], (std::vector<float>{1.f, -2.f, 3.5f}));
    EXPECT_TRUE(split_is_consistent(split_of(compiled), *model));
}

TEST(HeteroSubgraphs, ModelWithoutComputeOps) {
    Core core;
    ModelBuilder b("only_edges");
    Output x = b.parameter("x", ElementType::f32, {2, 2});
    b.result(x, "x_again");
    b.result(b.constant<float>({2}, {4.f, 5.f}, "c"), "c_out");
    auto model = b.build();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    std::vector<Tensor> inputs = inputs_for(compiled);
    const auto out = run(compiled, inputs);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0], inputs[0].to_vector<float>());
    EXPECT_EQ(out[1], (std::vector<float>{4.f, 5.f}));
}

TEST(HeteroSubgraphs, ConstantSharedByOpsOnTwoDevices) {
    Core core;
    ModelBuilder b("shared_constant");
    Output x = b.parameter("x", ElementType::f32, {1, 3, 2, 2});
    Output c = b.constant<float>({1, 3, 1, 1}, {0.25f, -1.0f, 2.0f}, "shared");
    Output added = b.op("Add", {x, c}, {}, "add");              // ACCEL
    Output scaled = b.op("Multiply", {added, c}, {}, "mul");    // ACCEL lacks Multiply: REFERENCE
    Output again = b.op("Add", {scaled, c}, {}, "add_again");  // ACCEL
    b.result(again, "y");
    b.result(b.op("Multiply", {x, c}, {}, "mul_x"), "z");       // REFERENCE, straight from the input
    auto model = b.build();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    EXPECT_TRUE(transfers_are_as_expected(split, *model));
    EXPECT_EQ(split["affinity"]["add"], "ACCEL");
    EXPECT_EQ(split["affinity"]["mul"], "REFERENCE");
    EXPECT_EQ(split["affinity"]["add_again"], "ACCEL");
}

TEST(HeteroSubgraphs, TransfersAreListedPerTensorAndConsumer) {
    Core core;
    auto model = diamond_model();
    const json split = split_of(core.compile_model(model, "HETERO:ACCEL,REFERENCE"));
    ASSERT_TRUE(split.contains("transfers"));
    // A's output goes to B (REFERENCE); B's output comes back to D (ACCEL): two crossings of
    // [1,2,6,6] f32 tensors, 288 bytes each.
    ASSERT_EQ(split["transfers"].size(), 2u) << split.dump();
    for (const auto& t : split["transfers"]) EXPECT_EQ(t["bytes"], 288) << t.dump();
    EXPECT_EQ(split["transfer_bytes"], 576);
}

}  // namespace
}  // namespace mosaic::test::hetero
