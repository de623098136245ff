// Device properties through Core: every device validates what it is given with the same messages
// (an unknown key "has no property", an ill-typed value "expects ...") and changes nothing on error.
#include "plugins/test_plugins.hpp"

namespace mosaic::test {
namespace {

class DeviceProperties : public ::testing::Test {
protected:
    Core core{build_registry().string()};
};

TEST_F(DeviceProperties, UnknownKeyIsNamed) {
    const std::string set_error = error_of([&] { core.set_property("REFERENCE", {{"NO_SUCH_PROPERTY", 1}}); });
    EXPECT_CONTAINS(set_error, "NO_SUCH_PROPERTY");
    EXPECT_CONTAINS(set_error, "has no property");
    const std::string get_error = error_of([&] { core.get_property("REFERENCE", "NO_SUCH_PROPERTY"); });
    EXPECT_CONTAINS(get_error, "NO_SUCH_PROPERTY");
    EXPECT_CONTAINS(get_error, "has no property");
}

TEST_F(DeviceProperties, IllTypedValueSaysWhatIsExpected) {
    for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
             {"PERF_COUNT", "maybe"}, {"NUM_STREAMS", "many"}, {"PERFORMANCE_HINT", "FASTEST"}, {"NUM_STREAMS", 0}}) {
        SCOPED_TRACE(key + "=" + value.dump());
        const std::string message = error_of([&] { core.set_property("REFERENCE", {{key, value}}); });
        EXPECT_CONTAINS(message, key);
        EXPECT_CONTAINS(message, "expects");
    }
}

TEST_F(DeviceProperties, AFailedSetChangesNothing) {
    const auto before = core.get_property("REFERENCE", "PERF_COUNT");
    error_of([&] { core.set_property("REFERENCE", {{"PERF_COUNT", !before.get<bool>()}, {"NO_SUCH_PROPERTY", 1}}); });
    EXPECT_EQ(core.get_property("REFERENCE", "PERF_COUNT"), before);
}

TEST_F(DeviceProperties, OpenVinoSpellingsAreAccepted) {
    core.set_property("REFERENCE", {{"PERF_COUNT", "YES"}, {"NUM_STREAMS", "2"}, {"PERFORMANCE_HINT", "throughput"}});
    EXPECT_EQ(core.get_property("REFERENCE", "PERF_COUNT"), true);
    EXPECT_EQ(core.get_property("REFERENCE", "NUM_STREAMS"), 2);
    EXPECT_EQ(core.get_property("REFERENCE", "PERFORMANCE_HINT"), "THROUGHPUT");
}

TEST_F(DeviceProperties, ReadOnlyPropertyCannotBeSet) {
    const std::string message = error_of([&] { core.set_property("REFERENCE", {{"FULL_DEVICE_NAME", "x"}}); });
    EXPECT_CONTAINS(message, "FULL_DEVICE_NAME");
    EXPECT_CONTAINS(message, "read-only");
}

TEST_F(DeviceProperties, RegistryPropertiesOfTheBuildRegistry) {
    // config/plugins.json declares ACCEL as REFERENCE restricted to a few ops.
    EXPECT_CONTAINS(core.get_property("ACCEL", "SUPPORTED_OPS").get<std::string>(), "Relu");
    EXPECT_CONTAINS(core.get_property("ACCEL", "FULL_DEVICE_NAME").get<std::string>(), "accelerator");
    // config/devices/REFERENCE.json
    EXPECT_EQ(core.get_property("REFERENCE", "PERFORMANCE_HINT"), "LATENCY");
}

TEST_F(DeviceProperties, UnknownCompilePropertyIsNamed) {
    const std::string message =
        error_of([&] { core.compile_model(relu_model(), "REFERENCE", {{"NO_SUCH_PROPERTY", 1}}); });
    EXPECT_CONTAINS(message, "NO_SUCH_PROPERTY");
    EXPECT_CONTAINS(message, "has no property");
}

}  // namespace
}  // namespace mosaic::test
