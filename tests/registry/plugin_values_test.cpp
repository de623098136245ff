// What a plugin sends across the ABI is checked against the shapes plugin_abi.h documents ("JSON
// values that cross the ABI"): each faulty plugin of tests/plugins/faulty_plugin.cpp sends one
// wrong shape, and the error must name the plugin library, the device, the key and the expected
// shape, never a raw nlohmann exception ("[json.exception...").
#include "plugins/test_plugins.hpp"

namespace mosaic::test {
namespace {

fs::path hetero_plugin() { return build_dir() / "lib" / "mosaic" / "plugins" / "libmosaic_hetero_plugin.so"; }

class PluginValues : public ::testing::Test {
protected:
    // A registry of REFERENCE, HETERO and the faulty plugin for `fault` as device BAD.
    std::unique_ptr<Core> core_with(const std::string& fault) {
        reg.add("REFERENCE", reference_plugin());
        reg.add("HETERO", hetero_plugin());
        reg.add("BAD", faulty_plugin(fault));
        reg.write();
        return std::make_unique<Core>(reg.path());
    }

    // The message names the plugin, the device and the key, quotes the shape, and is no raw nlohmann error.
    void expect_named(const std::string& message, const std::string& fault, const std::string& key,
                      const std::string& shape) {
        EXPECT_CONTAINS(message, faulty_plugin(fault).filename().string());
        EXPECT_CONTAINS(message, "device 'BAD'");
        EXPECT_CONTAINS(message, key);
        EXPECT_CONTAINS(message, shape);
        EXPECT_CONTAINS(message, "plugin_abi.h");
        EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
    }

    TempRegistry reg;
};

// The case of the issue: a plugin answering SUPPORTED_PROPERTIES with a string broke HETERO with
// "[json.exception.type_error.304] cannot use at() with string".
TEST_F(PluginValues, SupportedPropertiesAsAStringIsRefusedNamingThePlugin) {
    auto owned = core_with("props_string");
    Core& core = *owned;
    const std::string via_hetero = error_of([&] { run_once(core, relu_model(), "HETERO:BAD,REFERENCE", sample_input()); });
    expect_named(via_hetero, "props_string", "SUPPORTED_PROPERTIES", "array of {\"name\": string, \"mutable\": boolean}");
    EXPECT_CONTAINS(via_hetero, "\"FULL_DEVICE_NAME\"");
    const std::string direct = error_of([&] { core.get_property("BAD", "SUPPORTED_PROPERTIES"); });
    expect_named(direct, "props_string", "SUPPORTED_PROPERTIES", "array of {\"name\"");
}

TEST_F(PluginValues, SupportedPropertiesWithoutNamesIsRefused) {
    auto owned = core_with("props_nameless");
    Core& core = *owned;
    const std::string message = error_of([&] { core.get_property("BAD", "SUPPORTED_PROPERTIES"); });
    expect_named(message, "props_nameless", "SUPPORTED_PROPERTIES", "array of {\"name\"");
    EXPECT_CONTAINS(message, "the entry {\"mutable\":true} is wrong");
}

TEST_F(PluginValues, SupportedPropertiesAsNumbersIsRefused) {
    auto owned = core_with("props_numbers");
    Core& core = *owned;
    const std::string message = error_of([&] { run_once(core, relu_model(), "HETERO:BAD,REFERENCE", sample_input()); });
    expect_named(message, "props_numbers", "SUPPORTED_PROPERTIES", "array of {\"name\"");
    EXPECT_CONTAINS(message, "the entry 1 is wrong");
}

// The documented alternative shape: bare names, made canonical (mutable) by the host.
TEST_F(PluginValues, SupportedPropertiesAsPlainNamesIsAcceptedAndMadeCanonical) {
    auto owned = core_with("props_names");
    Core& core = *owned;
    const nlohmann::json supported = core.get_property("BAD", "SUPPORTED_PROPERTIES");
    ASSERT_EQ(supported.size(), 3u) << supported.dump();
    EXPECT_EQ(supported[0], (nlohmann::json{{"name", "FULL_DEVICE_NAME"}, {"mutable", true}})) << supported.dump();
    EXPECT_EQ(run_once(core, relu_model(), "HETERO:BAD,REFERENCE", sample_input()), relu_of_sample());
}

TEST_F(PluginValues, DeviceIdsThatAreNotStringsMakeTheDeviceAProblem) {
    auto owned = core_with("ids_numbers");
    Core& core = *owned;
    EXPECT_FALSE(has_device(core, "BAD"));
    const auto problems = problems_of(core, "BAD");
    ASSERT_EQ(problems.size(), 1u);
    expect_named(problems[0].message, "ids_numbers", "device_ids", "array of non-empty strings");
    EXPECT_CONTAINS(problems[0].message, "the id 0 is wrong");
}

TEST_F(PluginValues, PropertyThatIsNotJsonIsRefused) {
    auto owned = core_with("property_not_json");
    Core& core = *owned;
    const std::string message = error_of([&] { core.get_property("BAD", "FULL_DEVICE_NAME"); });
    expect_named(message, "property_not_json", "property FULL_DEVICE_NAME", "a JSON value");
    EXPECT_CONTAINS(message, "'Faulty device (unquoted)' (not JSON)");
}

TEST_F(PluginValues, QueryAnswerPastTheGraphIsRefused) {
    auto owned = core_with("query_out_of_range");
    Core& core = *owned;
    const std::string message = error_of([&] { core.query_model(relu_model(), "BAD"); });
    expect_named(message, "query_out_of_range", "a query answer", "a node index below the graph's node_count (3)");
    EXPECT_CONTAINS(message, "node 8");
}

TEST_F(PluginValues, ExecutionDevicesThatIsNotAnArrayIsRefused) {
    auto owned = core_with("exec_devices_string");
    Core& core = *owned;
    CompiledModel compiled = core.compile_model(relu_model(), "BAD");
    const std::string message = error_of([&] { compiled.get_property("EXECUTION_DEVICES"); });
    expect_named(message, "exec_devices_string", "compiled-model property EXECUTION_DEVICES",
                 "a JSON array of device-name strings");
}

// Canonical answers pass through unchanged: the bundled REFERENCE already writes the canonical shape.
TEST_F(PluginValues, CanonicalSupportedPropertiesPassUnchanged) {
    reg.add("REFERENCE", reference_plugin());
    reg.write();
    Core core(reg.path());
    const nlohmann::json supported = core.get_property("REFERENCE", "SUPPORTED_PROPERTIES");
    ASSERT_TRUE(supported.is_array());
    ASSERT_FALSE(supported.empty());
    for (const auto& p : supported) {
        EXPECT_TRUE(p["name"].is_string()) << p.dump();
        EXPECT_TRUE(p["mutable"].is_boolean()) << p.dump();
    }
}

}  // namespace
}  // namespace mosaic::test
