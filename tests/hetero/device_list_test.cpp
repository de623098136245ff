// How HETERO is told which devices to use: "HETERO:A,B", MULTI_DEVICE_PRIORITIES (string, typed key,
// or set on the device), device ids, and the errors for a list that cannot work.
#include "hetero/hetero_test_util.hpp"

namespace mosaic::test::hetero {
namespace {

// x -> conv -> relu -> sigmoid -> y: ACCEL runs the first two, REFERENCE the Sigmoid.
std::shared_ptr<Model> conv_sigmoid_model() {
    ModelBuilder b("conv_sigmoid");
    Output x = b.parameter("x", ElementType::f32, {1, 2, 5, 5});
    x = b.op("Relu", {conv(b, x, 2, 3, "conv", 5)}, {}, "relu");
    b.result(b.op("Sigmoid", {x}, {}, "sigmoid"), "y");
    return b.build();
}

json affinity_of(const CompiledModel& compiled) { return split_of(compiled).at("affinity"); }

TEST(HeteroDeviceList, ColonFormSplitsAcrossTheListedDevices) {
    Core core;
    auto model = conv_sigmoid_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    EXPECT_EQ(split["affinity"]["conv"], "ACCEL");
    EXPECT_EQ(split["affinity"]["relu"], "ACCEL");
    EXPECT_EQ(split["affinity"]["sigmoid"], "REFERENCE");
    EXPECT_EQ(split["subgraphs"].size(), 2u);
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), json::array({"ACCEL", "REFERENCE"}));
}

TEST(HeteroDeviceList, DefaultCnnMatchesReference) {
    Core core;
    auto model = default_cnn(core);
    if (!model) GTEST_SKIP() << "no default model in " << build_dir() << "/models (build target mosaic_default_model)";
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    // The feature extractor on ACCEL, the classifier head (Reshape, MatMul, Softmax) on REFERENCE.
    EXPECT_EQ(split["affinity"]["conv1"], "ACCEL");
    EXPECT_EQ(split["affinity"]["gap"], "ACCEL");
    EXPECT_EQ(split["affinity"]["flatten"], "REFERENCE");
    EXPECT_EQ(split["affinity"]["prob"], "REFERENCE");
}

TEST(HeteroDeviceList, PrioritiesPropertyGivesTheSameSplit) {
    Core core;
    auto model = conv_sigmoid_model();
    const json expected = affinity_of(core.compile_model(model, "HETERO:ACCEL,REFERENCE"));
    CompiledModel by_string = core.compile_model(model, "HETERO", {{"MULTI_DEVICE_PRIORITIES", "ACCEL,REFERENCE"}});
    EXPECT_EQ(affinity_of(by_string), expected);
    EXPECT_TRUE(outputs_near(run(by_string), reference_outputs(core, model)));
    CompiledModel typed = core.compile_model(model, "HETERO", {properties::device::priorities("ACCEL,REFERENCE")});
    EXPECT_EQ(affinity_of(typed), expected);
    EXPECT_TRUE(outputs_near(run(typed), reference_outputs(core, model)));
    // Both forms given and agreeing is not an error.
    CompiledModel both = core.compile_model(model, "HETERO:ACCEL,REFERENCE", {properties::device::priorities("ACCEL,REFERENCE")});
    EXPECT_EQ(affinity_of(both), expected);
}

TEST(HeteroDeviceList, PrioritiesSetOnTheDevice) {
    Core core;
    auto model = conv_sigmoid_model();
    core.set_property("HETERO", {properties::device::priorities("ACCEL,REFERENCE")});
    CompiledModel compiled = core.compile_model(model, "HETERO");
    EXPECT_EQ(affinity_of(compiled)["conv"], "ACCEL");
    EXPECT_EQ(affinity_of(compiled)["sigmoid"], "REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
}

TEST(HeteroDeviceList, PriorityOrderDecides) {
    Core core;
    auto model = conv_sigmoid_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:REFERENCE,ACCEL");
    const json split = split_of(compiled);
    EXPECT_EQ(split["subgraphs"].size(), 1u);
    for (const auto& [op, device] : split["affinity"].items()) EXPECT_EQ(device, "REFERENCE") << op;
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), json::array({"REFERENCE"}));
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
}

TEST(HeteroDeviceList, ThreeDevices) {
    Core core;
    auto model = branchy_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    EXPECT_EQ(split["affinity"]["left/conv"], "ACCEL");
    EXPECT_EQ(split["affinity"]["right/sigmoid"], "NPU");
    EXPECT_EQ(split["affinity"]["concat"], "NPU");
    EXPECT_EQ(split["affinity"]["centre"], "REFERENCE");
    EXPECT_EQ(split["affinity"]["prob"], "NPU");
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), json::array({"ACCEL", "NPU", "REFERENCE"}));
    ASSERT_TRUE(split.contains("devices"));
    std::vector<std::string> listed;
    for (const auto& d : split["devices"]) listed.push_back(d.at("device"));
    EXPECT_EQ(listed, (std::vector<std::string>{"ACCEL", "NPU", "REFERENCE"}));
}

TEST(HeteroDeviceList, ListedDeviceThatGetsNothingIsNotExecuting) {
    Core core;
    auto model = conv_sigmoid_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,NPU,REFERENCE");
    // NPU runs Sigmoid, so REFERENCE gets nothing; it is still in the summary, with no ops.
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), json::array({"ACCEL", "NPU"}));
    const json split = split_of(compiled);
    ASSERT_TRUE(split.contains("devices"));
    ASSERT_EQ(split["devices"].size(), 3u);
    EXPECT_EQ(split["devices"][2]["device"], "REFERENCE");
    EXPECT_EQ(split["devices"][2]["ops"], 0);
    EXPECT_EQ(split["devices"][2]["subgraphs"], 0);
}

class HeteroDeviceIds : public ::testing::Test {
protected:
    void SetUp() override {
        add_build_devices(reg, {"REFERENCE"});
        reg.add("REFERENCE", reference_plugin(), {{"INSTANCES", 2}});
        reg.write();
    }
    TempRegistry reg;
};

TEST_F(HeteroDeviceIds, ListedInstanceRunsItsOps) {
    Core core(reg.path());
    auto model = conv_sigmoid_model();
    CompiledModel compiled = core.compile_model(model, "HETERO:ACCEL,REFERENCE.1");
    EXPECT_TRUE(outputs_near(run(compiled), reference_outputs(core, model)));
    const json split = split_of(compiled);
    EXPECT_TRUE(split_is_consistent(split, *model));
    EXPECT_EQ(split["affinity"]["conv"], "ACCEL");
    EXPECT_EQ(split["affinity"]["sigmoid"], "REFERENCE.1");
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), json::array({"ACCEL", "REFERENCE.1"}));
    QueryResult q = core.query_model_details(model, "HETERO:ACCEL,REFERENCE.1");
    EXPECT_EQ(q.affinity.at("sigmoid"), "REFERENCE.1");
}

TEST_F(HeteroDeviceIds, MissingInstanceIsNamed) {
    Core core(reg.path());
    const std::string msg = error_of([&] { core.compile_model(conv_sigmoid_model(), "HETERO:ACCEL,REFERENCE.7"); });
    EXPECT_CONTAINS(msg, "REFERENCE.7");
}

TEST(HeteroDeviceListErrors, UnknownDeviceIsNamedWithWhatToDo) {
    Core core;
    for (const std::string device : {"HETERO:ACCEL,NOPE", "HETERO:NOPE"}) {
        const std::string msg = error_of([&] { core.compile_model(conv_sigmoid_model(), device); });
        EXPECT_CONTAINS(msg, "'NOPE'");
        EXPECT_CONTAINS(msg, "regist");  // "register it" / "not registered"
        const std::string query_msg = error_of([&] { core.query_model(conv_sigmoid_model(), device); });
        EXPECT_CONTAINS(query_msg, "'NOPE'");
    }
    const std::string msg = error_of([&] {
        core.compile_model(conv_sigmoid_model(), "HETERO", {properties::device::priorities("ACCEL,NOPE")});
    });
    EXPECT_CONTAINS(msg, "'NOPE'");
}

TEST(HeteroDeviceListErrors, EmptyListSaysHowToGiveOne) {
    Core core;
    const std::string msg = error_of([&] { core.compile_model(conv_sigmoid_model(), "HETERO"); });
    EXPECT_CONTAINS(msg, "HETERO");
    EXPECT_CONTAINS(msg, "MULTI_DEVICE_PRIORITIES");
    const std::string query_msg = error_of([&] { core.query_model(conv_sigmoid_model(), "HETERO"); });
    EXPECT_CONTAINS(query_msg, "MULTI_DEVICE_PRIORITIES");
    const std::string empty_property =
        error_of([&] { core.compile_model(conv_sigmoid_model(), "HETERO", {properties::device::priorities("")}); });
    EXPECT_CONTAINS(empty_property, "MULTI_DEVICE_PRIORITIES");
}

TEST(HeteroDeviceListErrors, BothFormsDisagreeing) {
    Core core;
    const std::string msg = error_of([&] {
        core.compile_model(conv_sigmoid_model(), "HETERO:ACCEL,REFERENCE", {properties::device::priorities("REFERENCE")});
    });
    EXPECT_CONTAINS(msg, "MULTI_DEVICE_PRIORITIES");
    EXPECT_CONTAINS(msg, "ACCEL,REFERENCE");
    EXPECT_CONTAINS(msg, "once");  // "give the device list once"
}

TEST(HeteroDeviceListErrors, HeteroInsideItsOwnListIsRefused) {
    Core core;
    // Would recurse; it must fail with a message about the list the user gave (quoting it), not
    // about the inner HETERO that got no list ("HETERO has no devices to run on").
    const std::string msg = error_of([&] { core.compile_model(conv_sigmoid_model(), "HETERO:HETERO,REFERENCE"); });
    EXPECT_CONTAINS(msg, "HETERO,REFERENCE");
    EXPECT_EQ(msg.find("no devices to run on"), std::string::npos) << msg;
}

TEST(HeteroDeviceListErrors, DeviceListedTwiceIsNamed) {
    Core core;
    const std::string msg = error_of([&] { core.compile_model(conv_sigmoid_model(), "HETERO:ACCEL,REFERENCE,ACCEL"); });
    EXPECT_CONTAINS(msg, "ACCEL");
}

TEST(HeteroSettings, HeteroSettingsOnTheCore) {
    Core core;
    const json supported = core.get_property("HETERO", "SUPPORTED_PROPERTIES");
    std::set<std::string> names;
    for (const auto& p : supported) names.insert(p.at("name").get<std::string>());
    for (const std::string key : {"MULTI_DEVICE_PRIORITIES", "DEVICE_PROPERTIES", "PERF_COUNT", "HETERO_PLACEMENT",
                                  "HETERO_MAX_SUBGRAPHS", "HETERO_MAX_FALLBACK_RATIO", "HETERO_VISUALIZE",
                                  "HETERO_DUMP_DIR", "HETERO_TRANSFER_OVERHEAD_US", "HETERO_CROSSING_MEMORY"})
        EXPECT_TRUE(names.count(key)) << key << " is not in HETERO's SUPPORTED_PROPERTIES " << supported.dump();
    // A setting made on the device applies to later compilations.
    core.set_property("HETERO", {{"HETERO_PLACEMENT", "MIN_TRANSFER"}});
    EXPECT_EQ(core.get_property("HETERO", "HETERO_PLACEMENT"), "MIN_TRANSFER");
    EXPECT_EQ(split_of(core.compile_model(scattered_chain_model(), "HETERO:ACCEL,REFERENCE"))["placement"], "MIN_TRANSFER");
}

TEST(HeteroSettings, BadValueForOneDeviceNamesDeviceAndKey) {
    Core core;
    const std::string msg = error_of([&] {
        core.compile_model(conv_sigmoid_model(), "HETERO:ACCEL,REFERENCE",
                           {properties::device::properties({{"ACCEL", {{"PERF_COUNT", "sometimes"}}}})});
    });
    EXPECT_CONTAINS(msg, "ACCEL");
    EXPECT_CONTAINS(msg, "PERF_COUNT");
}

}  // namespace
}  // namespace mosaic::test::hetero
