// Core: devices, properties and their errors, queries, emulated accelerators.
#include "common/test_checks.hpp"
#include "common/test_models.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace mosaic::test {
namespace {

TEST(Core, ListsTheRegisteredDevices) {
    Core core;
    std::vector<std::string> devices = core.get_available_devices();
    EXPECT_NE(std::find(devices.begin(), devices.end(), "REFERENCE"), devices.end());
    EXPECT_NE(std::find(devices.begin(), devices.end(), "ACCEL"), devices.end());
    EXPECT_TRUE(core.problems().empty());
}

TEST(Core, FullDeviceNameComesFromThePluginOrTheRegistry) {
    Core core;
    EXPECT_TRUE(contains(core.get_property("REFERENCE", "FULL_DEVICE_NAME").get<std::string>(), "reference"));
    EXPECT_TRUE(contains(core.get_property("ACCEL", "FULL_DEVICE_NAME").get<std::string>(), "Emulated accelerator"));
}

TEST(Core, SupportedPropertiesListsKeysAndMutability) {
    Core core;
    nlohmann::json list = core.get_property("REFERENCE", "SUPPORTED_PROPERTIES");
    bool perf = false, name_read_only = false;
    for (const auto& p : list) {
        if (p["name"] == "PERF_COUNT") perf = p["mutable"].get<bool>();
        if (p["name"] == "FULL_DEVICE_NAME") name_read_only = !p["mutable"].get<bool>();
    }
    EXPECT_TRUE(perf);
    EXPECT_TRUE(name_read_only);
}

TEST(Core, SetPropertyRoundTripsAndAcceptsOpenVinoSpellings) {
    Core core;
    core.set_property("REFERENCE", {{"PERF_COUNT", "YES"}});
    EXPECT_EQ(core.get_property("REFERENCE", "PERF_COUNT"), true);
    core.set_property("REFERENCE", {properties::hint::performance_mode("throughput")});
    EXPECT_EQ(core.get_property("REFERENCE", "PERFORMANCE_HINT"), "THROUGHPUT");
    // Core-level PERF_COUNT applies to compilations on that device.
    InferRequest r = core.compile_model(conv_relu_model(), "REFERENCE").create_infer_request();
    r.infer();
    EXPECT_EQ(r.get_profiling_info().size(), 3u);
}

TEST(Core, UnknownPropertyIsRejectedListingTheSupportedOnes) {
    Core core;
    std::string msg = error_of([&] { core.set_property("REFERENCE", {{"NO_SUCH_KEY", 1}}); });
    EXPECT_TRUE(contains(msg, "NO_SUCH_KEY"));
    EXPECT_TRUE(contains(msg, "has no property"));
    EXPECT_TRUE(contains(msg, "PERF_COUNT"));
    EXPECT_TRUE(contains(error_of([&] { core.get_property("REFERENCE", "NO_SUCH_KEY"); }), "has no property"));
}

TEST(Core, IllTypedPropertyIsRejectedAndNothingChanges) {
    Core core;
    std::string msg = error_of([&] { core.set_property("REFERENCE", {{"PERF_COUNT", true}, {"NUM_STREAMS", "many"}}); });
    EXPECT_TRUE(contains(msg, "NUM_STREAMS"));
    EXPECT_TRUE(contains(msg, "expects"));
    EXPECT_EQ(core.get_property("REFERENCE", "PERF_COUNT"), false);  // all or nothing
    EXPECT_TRUE(contains(error_of([&] { core.set_property("REFERENCE", {{"PERFORMANCE_HINT", "FAST"}}); }), "LATENCY"));
    EXPECT_TRUE(contains(error_of([&] { core.set_property("REFERENCE", {{"FULL_DEVICE_NAME", "x"}}); }), "read-only"));
}

TEST(Core, CompileTimePropertiesAreValidatedToo) {
    Core core;
    std::string msg = error_of([&] { core.compile_model(conv_relu_model(), "REFERENCE", {{"PERF_COUNT", "maybe"}}); });
    EXPECT_TRUE(contains(msg, "PERF_COUNT"));
    EXPECT_TRUE(contains(msg, "YES or NO"));
}

TEST(Core, UnknownDeviceNamesTheRegisteredOnes) {
    Core core;
    std::string msg = error_of([&] { core.compile_model(conv_relu_model(), "TPU"); });
    EXPECT_TRUE(contains(msg, "'TPU'"));
    EXPECT_TRUE(contains(msg, "not registered"));
    EXPECT_TRUE(contains(msg, "REFERENCE"));
}

TEST(Core, DeviceIdOnADeviceWithoutInstancesIsRejected) {
    Core core;
    EXPECT_TRUE(contains(error_of([&] { core.compile_model(conv_relu_model(), "REFERENCE.3"); }), "does not exist"));
}

TEST(Core, AccelQueryReportsUnsupportedOpsWithReasons) {
    Core core;
    ModelBuilder b("mixed");
    Output x = b.parameter("x", ElementType::f32, {1, 4});
    Output r = b.op("Relu", {x}, {}, "relu");
    Output s = b.op("Softmax", {r}, {{"axis", "1"}}, "softmax");
    b.result(s, "out");
    auto model = b.build();
    QueryResult q = core.query_model_details(model, "ACCEL");
    EXPECT_EQ(q.affinity.at("relu"), "ACCEL");
    ASSERT_EQ(q.unsupported.count("softmax"), 1u);
    EXPECT_TRUE(contains(q.unsupported.at("softmax").at("ACCEL"), "SUPPORTED_OPS"));
    QueryResult full = core.query_model_details(model, "REFERENCE");
    EXPECT_TRUE(full.unsupported.empty());
    EXPECT_EQ(full.affinity.at("softmax"), "REFERENCE");

    std::string msg = error_of([&] { core.compile_model(model, "ACCEL"); });
    EXPECT_TRUE(contains(msg, "'softmax'"));
    EXPECT_TRUE(contains(msg, "cannot run"));
}

TEST(Core, AccelRunsWhatItSupports) {
    Core core;
    InferRequest r = core.compile_model(conv_relu_model(), "ACCEL").create_infer_request();
    r.set_tensor("x", iota_tensor({1, 1, 4, 4}));
    r.infer();
    EXPECT_EQ(r.get_tensor("y").to_vector<float>(), conv_relu_expected());
}

TEST(Core, NullModelIsAnError) {
    Core core;
    EXPECT_THROW(core.compile_model(std::shared_ptr<const Model>(), "REFERENCE"), std::invalid_argument);
}

// A dynamic model compiles (each inference runs at its tensors' shapes: dynamic_shape_test.cpp),
// and a query answers it at its smallest shapes, since what a device supports can depend on them.
TEST(Core, DynamicShapesCompileAndTheQueryAnswersAtTheSmallestShapes) {
    Core core;
    auto model = std::make_shared<Model>("dyn");
    Node* p = model->add_parameter("x", ElementType::f32, {kDynamicDim, 4});
    Node* relu = model->add_node("Relu", "opset1", {p->output(0)});
    model->add_result(relu->output(0), "y");
    model->validate();
    const SupportedOpsMap supported = core.query_model(model, "REFERENCE");
    EXPECT_EQ(supported.at(relu->get_friendly_name()), "REFERENCE");
    InferRequest r = core.compile_model(model, "REFERENCE").create_infer_request();
    r.set_tensor("x", Tensor(ElementType::f32, {2, 4}));
    r.infer();
    EXPECT_EQ(r.get_tensor("y").get_shape(), (Shape{2, 4}));
    model->reshape({{"x", {2, 4}}});
    EXPECT_EQ(core.query_model(model, "REFERENCE").size(), 3u);
}

}  // namespace
}  // namespace mosaic::test

namespace mosaic::test {
namespace {

// A registry declaring REFERENCE twice: plainly, and as "EMU" emulating three instances. A folder
// per process: ctest runs these tests at once, and one must not read the file another is writing.
std::string multi_instance_registry() {
    const std::string dir = ::testing::TempDir() + "/mosaic_multi_instance_" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    const std::string plugin = std::string(MOSAIC_BUILD_DIR) + "/lib/mosaic/plugins/libmosaic_reference_plugin.so";
    nlohmann::json registry = {{"version", 1},
                               {"plugins", {{{"device", "REFERENCE"}, {"library", plugin}},
                                            {{"device", "EMU"}, {"library", plugin}, {"properties", {{"INSTANCES", 3}}}}}}};
    std::ofstream(dir + "/plugins.json") << registry.dump(2);
    return dir + "/plugins.json";
}

TEST(DeviceIds, DevicesWithSeveralInstancesAreListedWithIds) {
    Core core(multi_instance_registry());
    EXPECT_EQ(core.get_available_devices(), (std::vector<std::string>{"REFERENCE", "EMU.0", "EMU.1", "EMU.2"}));
}

TEST(DeviceIds, CompilingOnAnInstanceRunsThere) {
    Core core(multi_instance_registry());
    CompiledModel compiled = core.compile_model(conv_relu_model(), "EMU.1");
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), nlohmann::json::array({"EMU.1"}));
    InferRequest r = compiled.create_infer_request();
    r.set_tensor("x", iota_tensor({1, 1, 4, 4}));
    r.infer();
    EXPECT_EQ(r.get_tensor("y").to_vector<float>(), conv_relu_expected());
}

TEST(DeviceIds, AnInstanceThatDoesNotExistIsNamedWithTheAvailableOnes) {
    Core core(multi_instance_registry());
    std::string msg = error_of([&] { core.compile_model(conv_relu_model(), "EMU.7"); });
    EXPECT_TRUE(contains(msg, "'EMU.7' does not exist"));
    EXPECT_TRUE(contains(msg, "EMU.0, EMU.1, EMU.2"));
}

}  // namespace
}  // namespace mosaic::test
