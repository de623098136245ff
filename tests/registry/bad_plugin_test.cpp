// Registry entries whose library is bad in each way the loader must survive: missing file, a file
// that is not a shared library, no entry symbol, an ABI major mismatch, and an entry point that
// refuses to load. All of them sit in one registry with REFERENCE, which must keep working.
#include "plugins/test_plugins.hpp"

#include <mosaic/plugin_abi.h>

namespace mosaic::test {
namespace {

struct BadCase {
    const char* device;
    std::vector<std::string> expected;  // substrings of the problem message
};

std::string host_abi() {
    return std::to_string(MOSAIC_ABI_VERSION_MAJOR) + "." + std::to_string(MOSAIC_ABI_VERSION_MINOR);
}

class BadPlugins : public ::testing::Test {
protected:
    void SetUp() override {
        // The good device first and last, so neither order hides a bad entry's effect on it.
        reg.add("REFERENCE", reference_plugin());
        reg.add_raw({{"device", "MISSING"}, {"library", "plugins/libmosaic_no_such_plugin.so"}});
        broken_copy = reg.add_copy("NOTALIB", not_a_library());
        no_entry_copy = reg.add_copy("NOENTRY", no_entry_plugin());
        abi2_copy = reg.add_copy("ABI2", abi_major2_plugin());
        refusing_copy = reg.add_copy("REFUSING", refusing_plugin());
        reg.add("ACCEL2", reference_plugin(), {{"SUPPORTED_OPS", "Relu"}});
        reg.write();

        cases = {
            {"MISSING", {(reg.dir() / "plugins" / "libmosaic_no_such_plugin.so").string(), "does not exist"}},
            {"NOTALIB", {broken_copy.string(), "cannot be loaded"}},
            {"NOENTRY", {no_entry_copy.string(), "mosaic_plugin_entry"}},
            {"ABI2", {abi2_copy.string(), "ABI", "major", "2.0", host_abi()}},
            {"REFUSING", {refusing_copy.string(), refusal_message()}},
        };
    }

    TempRegistry reg;
    fs::path broken_copy, no_entry_copy, abi2_copy, refusing_copy;
    std::vector<BadCase> cases;
};

TEST_F(BadPlugins, ConstructorAndDeviceListNeverThrow) {
    std::unique_ptr<Core> core;
    ASSERT_NO_THROW(core = std::make_unique<Core>(reg.path()));
    std::vector<std::string> devices;
    ASSERT_NO_THROW(devices = core->get_available_devices());
    EXPECT_EQ(devices, (std::vector<std::string>{"REFERENCE", "ACCEL2"}));
}

TEST_F(BadPlugins, EachIsReportedWithDeviceSourceAndCause) {
    Core core(reg.path());
    core.get_available_devices();  // loads every entry
    for (const auto& c : cases) {
        SCOPED_TRACE(c.device);
        const auto problems = problems_of(core, c.device);
        ASSERT_EQ(problems.size(), 1u);
        EXPECT_EQ(fs::path(problems[0].source), reg.file());
        for (const auto& part : c.expected) EXPECT_CONTAINS(problems[0].message, part);
    }
    // Nothing else is wrong.
    EXPECT_EQ(core.problems().size(), cases.size());
}

TEST_F(BadPlugins, UsingABrokenDeviceThrowsItsProblem) {
    Core core(reg.path());
    // Used before get_available_devices(): plugins load lazily, the error must be the same.
    for (const auto& c : cases) {
        SCOPED_TRACE(c.device);
        const std::string compile_error = error_of([&] { core.compile_model(relu_model(), c.device); });
        for (const auto& part : c.expected) EXPECT_CONTAINS(compile_error, part);
        const std::string set_error = error_of([&] { core.set_property(c.device, {{"PERF_COUNT", true}}); });
        for (const auto& part : c.expected) EXPECT_CONTAINS(set_error, part);
        const std::string get_error = error_of([&] { core.get_property(c.device, "FULL_DEVICE_NAME"); });
        for (const auto& part : c.expected) EXPECT_CONTAINS(get_error, part);
        const std::string query_error = error_of([&] { core.query_model(relu_model(), c.device); });
        for (const auto& part : c.expected) EXPECT_CONTAINS(query_error, part);
    }
    // Retrying does not pile up problems: one per broken device.
    core.get_available_devices();
    for (const auto& c : cases) EXPECT_EQ(problems_of(core, c.device).size(), 1u) << c.device;
}

TEST_F(BadPlugins, GoodDevicesInTheSameCoreKeepWorking) {
    Core core(reg.path());
    for (const auto& c : cases) error_of([&] { core.compile_model(relu_model(), c.device); });
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
    EXPECT_EQ(run_once(core, relu_model(), "ACCEL2", sample_input()), relu_of_sample());
    EXPECT_EQ(run_once(core, relu_add_model(), "REFERENCE", sample_input()), relu_add_of_sample());
    // ACCEL2's registry property narrowed its ops: Add is refused, Relu is not.
    const QueryResult q = core.query_model_details(relu_add_model(), "ACCEL2");
    EXPECT_EQ(q.affinity.count("relu"), 1u);
    EXPECT_EQ(q.unsupported.count("add"), 1u);
}

TEST_F(BadPlugins, UnknownDeviceIsNotRegisteredAndTheMessageListsTheKnownOnes) {
    Core core(reg.path());
    for (auto call : std::vector<std::function<void()>>{
             [&] { core.compile_model(relu_model(), "NOSUCHDEV"); },
             [&] { core.set_property("NOSUCHDEV", {{"PERF_COUNT", true}}); },
             [&] { core.get_property("NOSUCHDEV", "FULL_DEVICE_NAME"); },
         }) {
        const std::string message = error_of(call);
        EXPECT_CONTAINS(message, "NOSUCHDEV");
        EXPECT_CONTAINS(message, "not registered");
        EXPECT_CONTAINS(message, "REFERENCE");
        EXPECT_CONTAINS(message, "ACCEL2");
    }
}

TEST(BadPluginFiles, AbsoluteLibraryPathsAreUsedAsGiven) {
    // Registry entries may name a library by absolute path too; the message then has that path.
    TempRegistry reg;
    reg.add_raw({{"device", "NOTALIB"}, {"library", not_a_library().string()}});
    reg.add_raw({{"device", "REFERENCE"}, {"library", reference_plugin().string()}});
    reg.write();
    Core core(reg.path());
    EXPECT_EQ(core.get_available_devices(), std::vector<std::string>{"REFERENCE"});
    const auto problems = problems_of(core, "NOTALIB");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_CONTAINS(problems[0].message, not_a_library().lexically_normal().string());
    EXPECT_CONTAINS(problems[0].message, "cannot be loaded");
}

}  // namespace
}  // namespace mosaic::test
