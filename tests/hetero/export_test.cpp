// Export and import of a HETERO compiled model: the blob holds every subgraph (exported by its
// device, or as a graph when the device cannot export, to be compiled again on import).
#include "hetero/hetero_test_util.hpp"

#include <sstream>

namespace mosaic::test::hetero {
namespace {

std::string export_text(const CompiledModel& compiled) {
    std::stringstream blob;
    compiled.export_model(blob);
    return blob.str();
}

CompiledModel import_text(Core& core, const std::string& text, const AnyMap& properties = {}) {
    std::stringstream blob(text);
    return core.import_model(blob, "HETERO", properties);
}

void expect_same_model(CompiledModel& imported, CompiledModel& original) {
    const auto inputs = inputs_for(original, 3);
    EXPECT_EQ(run(imported, inputs), run(original, inputs));  // the same kernels: bit-identical
    EXPECT_EQ(split_of(imported)["affinity"], split_of(original)["affinity"]);
    EXPECT_EQ(split_of(imported)["subgraphs"], split_of(original)["subgraphs"]);
    EXPECT_EQ(imported.get_property("EXECUTION_DEVICES"), original.get_property("EXECUTION_DEVICES"));
    EXPECT_EQ(imported.get_property("HETERO_NUMBER_OF_SUBGRAPHS"), original.get_property("HETERO_NUMBER_OF_SUBGRAPHS"));
    ASSERT_EQ(imported.inputs().size(), original.inputs().size());
    ASSERT_EQ(imported.outputs().size(), original.outputs().size());
    for (size_t i = 0; i < original.outputs().size(); ++i) {
        EXPECT_EQ(imported.outputs()[i].name, original.outputs()[i].name);
        EXPECT_EQ(imported.outputs()[i].shape, original.outputs()[i].shape);
    }
    EXPECT_EQ(imported.inputs()[0].name, original.inputs()[0].name);
}

TEST(HeteroExport, RoundTripGivesTheSameOutputs) {
    Core core;
    for (const auto& model : {branchy_model(), scattered_chain_model()}) {
        SCOPED_TRACE(model->get_friendly_name());
        CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
        const std::string blob = export_text(compiled);
        ASSERT_FALSE(blob.empty());
        CompiledModel imported = import_text(core, blob);
        expect_same_model(imported, compiled);
        EXPECT_TRUE(outputs_near(run(imported), reference_outputs(core, model)));
    }
}

TEST(HeteroExport, ImportIntoAnotherCore) {
    std::string blob;
    auto model = scattered_chain_model();
    std::vector<std::vector<float>> expected;
    {
        Core core;
        CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE", {{"HETERO_PLACEMENT", "MIN_TRANSFER"}});
        blob = export_text(compiled);
        expected = run(compiled);
    }
    Core other;
    CompiledModel imported = import_text(other, blob);
    EXPECT_EQ(run(imported), expected);
    EXPECT_EQ(split_of(imported)["placement"], "MIN_TRANSFER");
}

TEST(HeteroExport, ManualAffinitySurvives) {
    Core core;
    auto model = residual_model();
    set_affinities_over_query(core, model, "HETERO:ACCEL,NPU,REFERENCE",
                              {{"block1/conv", "REFERENCE"}, {"block0/scale", "NPU"}});
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    CompiledModel imported = import_text(core, export_text(compiled));
    expect_same_model(imported, compiled);
    EXPECT_EQ(split_of(imported)["affinity"]["block1/conv"], "REFERENCE");
}

TEST(HeteroExport, ImportedModelProfiles) {
    Core core;
    CompiledModel compiled = core.compile_model(scattered_chain_model(), "HETERO:ACCEL,REFERENCE");
    CompiledModel imported = import_text(core, export_text(compiled), {properties::enable_profiling(true)});
    InferRequest r = imported.create_infer_request();
    r.set_input_tensor(inputs_for(imported)[0]);
    r.infer();
    size_t subgraph_records = 0;
    for (const auto& p : r.get_profiling_info()) subgraph_records += p.node_name.rfind("subgraph", 0) == 0;
    EXPECT_GT(subgraph_records, 0u);
}

TEST(HeteroExport, DamagedBlobIsRefused) {
    Core core;
    const std::string blob = export_text(core.compile_model(scattered_chain_model(), "HETERO:ACCEL,REFERENCE"));
    EXPECT_FALSE(error_of([&] { import_text(core, blob.substr(0, blob.size() / 2)); }).empty());
    EXPECT_FALSE(error_of([&] { import_text(core, "not a blob"); }).empty());
}

// FORWARD (tests/plugins/forwarding_plugin.cpp) runs everything on REFERENCE but cannot export:
// HETERO keeps the graph of FORWARD's subgraphs in the blob and compiles them again on import.
class HeteroExportFallback : public ::testing::Test {
protected:
    void SetUp() override {
        add_build_devices(reg);
        reg.add("FORWARD", forward_plugin(), {{"TARGET", "REFERENCE"}});
        reg.write();
    }
    TempRegistry reg;
};

TEST_F(HeteroExportFallback, DeviceThatCannotExportIsCompiledAgain) {
    Core core(reg.path());
    auto model = scattered_chain_model();
    std::stringstream direct;
    EXPECT_ANY_THROW(core.compile_model(model, "FORWARD").export_model(direct)) << "FORWARD exports after all";
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,FORWARD");
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    EXPECT_EQ(split["affinity"]["sigmoid"], "FORWARD");
    EXPECT_EQ(split["affinity"]["conv1"], "ACCEL");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    CompiledModel imported = import_text(core, export_text(compiled));
    expect_same_model(imported, compiled);
    // And in a Core that never compiled it.
    Core fresh(reg.path());
    CompiledModel again = import_text(fresh, export_text(compiled));
    EXPECT_TRUE(outputs_near(run(again), reference_outputs(core, model)));
}

TEST_F(HeteroExportFallback, EverySubgraphOnTheDeviceThatCannotExport) {
    Core core(reg.path());
    auto model = branchy_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:FORWARD,ACCEL");
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), json::array({"FORWARD"}));
    CompiledModel imported = import_text(core, export_text(compiled));
    expect_same_model(imported, compiled);
}

}  // namespace
}  // namespace mosaic::test::hetero
