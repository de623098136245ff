// The registry file itself: unreadable and malformed files, malformed entries, duplicate names,
// registry properties and per-device property files. A broken entry never hides the others.
#include "plugins/test_plugins.hpp"

namespace mosaic::test {
namespace {

TEST(RegistryFile, BuildRegistryListsItsDevices) {
    Core core(build_registry().string());
    EXPECT_EQ(core.registry_path(), build_registry().string());
    EXPECT_TRUE(has_device(core, "REFERENCE"));
    EXPECT_TRUE(has_device(core, "ACCEL"));
    // Other devices of the build registry (GPU, ...) may be unusable on this machine; these two never are.
    EXPECT_TRUE(problems_of(core, "REFERENCE").empty());
    EXPECT_TRUE(problems_of(core, "ACCEL").empty());
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
}

TEST(RegistryFile, InvalidJsonThrowsNamingTheFile) {
    TempRegistry reg;
    reg.write_text("{\"version\": 1, \"plugins\": [ {\"device\": \"REFERENCE\",");
    const std::string message = error_of([&] { Core core(reg.path()); });
    EXPECT_CONTAINS(message, reg.path());
    EXPECT_CONTAINS(message, "not valid JSON");
}

TEST(RegistryFile, MissingFileThrowsNamingTheFile) {
    TempRegistry reg;  // nothing written
    const std::string message = error_of([&] { Core core(reg.path()); });
    EXPECT_CONTAINS(message, reg.path());
    EXPECT_CONTAINS(message, "cannot be read");
}

TEST(RegistryFile, LibraryPathIsRelativeToTheRegistryFile) {
    // The layout of an installed registry: plugins.json beside a plugins/ folder.
    TempRegistry reg;
    reg.add_copy("REFERENCE", reference_plugin());
    reg.write();
    Core core(reg.path());
    EXPECT_EQ(core.get_available_devices(), std::vector<std::string>{"REFERENCE"});
    EXPECT_TRUE(core.problems().empty());
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
}

TEST(RegistryFile, EntryWithoutDeviceOrLibraryIsReportedWithItsIndex) {
    TempRegistry reg;
    reg.add("REFERENCE", reference_plugin());
    reg.add_raw({{"library", "plugins/libsomething.so"}});  // plugins[1]: no device
    reg.add_raw({{"device", "NOLIB"}});                      // plugins[2]: no library
    reg.write();

    Core core(reg.path());  // never throws for a broken entry
    const auto devices = core.get_available_devices();
    EXPECT_EQ(devices, std::vector<std::string>{"REFERENCE"});

    bool saw_missing_device = false, saw_missing_library = false;
    for (const auto& p : core.problems()) {
        EXPECT_EQ(fs::path(p.source), reg.file()) << p.message;
        if (p.message.find("plugins[1]") != std::string::npos) {
            saw_missing_device = true;
            EXPECT_CONTAINS(p.message, "device");
        }
        if (p.message.find("plugins[2]") != std::string::npos) {
            saw_missing_library = true;
            EXPECT_EQ(p.device, "NOLIB");
            EXPECT_CONTAINS(p.message, "library");
        }
    }
    EXPECT_TRUE(saw_missing_device) << "no problem names plugins[1], the entry without \"device\"";
    EXPECT_TRUE(saw_missing_library) << "no problem names plugins[2], the entry without \"library\"";

    // The entry that has a name but no library fails with its problem when used.
    const std::string message = error_of([&] { core.compile_model(relu_model(), "NOLIB"); });
    EXPECT_CONTAINS(message, "plugins[2]");
    EXPECT_CONTAINS(message, "library");

    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
}

TEST(RegistryFile, DeviceDefinedTwiceKeepsTheFirstEntry) {
    TempRegistry reg;
    reg.add("REFERENCE", reference_plugin());
    reg.add("REFERENCE", abi10_plugin());  // a different library: the first must win
    reg.write();

    Core core(reg.path());
    EXPECT_EQ(core.get_available_devices(), std::vector<std::string>{"REFERENCE"});
    const auto problems = problems_of(core, "REFERENCE");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_CONTAINS(problems[0].message, "REFERENCE");
    EXPECT_CONTAINS(problems[0].message, "defined twice");
    EXPECT_EQ(fs::path(problems[0].source), reg.file());

    // Still the reference plugin's device, and it works.
    EXPECT_CONTAINS(core.get_property("REFERENCE", "FULL_DEVICE_NAME").get<std::string>(), "reference");
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
}

TEST(RegistryFile, UnknownRegistryPropertyBreaksOnlyThatDevice) {
    TempRegistry reg;
    reg.add("REFERENCE", reference_plugin());
    reg.add("BADPROP", reference_plugin(), {{"NO_SUCH_PROPERTY", 1}});
    reg.write();

    Core core(reg.path());
    EXPECT_EQ(core.get_available_devices(), std::vector<std::string>{"REFERENCE"});
    const auto problems = problems_of(core, "BADPROP");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_CONTAINS(problems[0].message, "NO_SUCH_PROPERTY");
    EXPECT_CONTAINS(problems[0].message, "has no property");
    EXPECT_EQ(fs::path(problems[0].source), reg.file());
    EXPECT_CONTAINS(error_of([&] { core.compile_model(relu_model(), "BADPROP"); }), "NO_SUCH_PROPERTY");
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
}

TEST(RegistryFile, IllTypedRegistryPropertyBreaksOnlyThatDevice) {
    TempRegistry reg;
    reg.add("BADTYPE", reference_plugin(), {{"PERF_COUNT", "maybe"}});
    reg.add("REFERENCE", reference_plugin());
    reg.write();

    Core core(reg.path());
    EXPECT_EQ(core.get_available_devices(), std::vector<std::string>{"REFERENCE"});
    const auto problems = problems_of(core, "BADTYPE");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_CONTAINS(problems[0].message, "PERF_COUNT");
    EXPECT_CONTAINS(problems[0].message, "expects");
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
}

TEST(RegistryFile, RegistryPropertiesAndDeviceFilesApply) {
    TempRegistry reg;
    reg.add("THROUGHPUT_REF", reference_plugin(), {{"PERFORMANCE_HINT", "THROUGHPUT"}});
    reg.add("FILE_REF", reference_plugin());
    reg.add("BOTH_REF", reference_plugin(), {{"PERFORMANCE_HINT", "THROUGHPUT"}, {"NUM_STREAMS", 2}});
    reg.write();
    reg.write_device_file("FILE_REF", {{"PERF_COUNT", true}});
    // The device file is read after the registry entry's properties, so it wins where both set a key.
    reg.write_device_file("BOTH_REF", {{"PERFORMANCE_HINT", "LATENCY"}});

    Core core(reg.path());
    for (const auto& p : core.problems()) ADD_FAILURE() << "unexpected problem: " << p.device << ": " << p.message;
    EXPECT_EQ(core.get_property("THROUGHPUT_REF", "PERFORMANCE_HINT"), "THROUGHPUT");
    EXPECT_EQ(core.get_property("FILE_REF", "PERF_COUNT"), true);
    EXPECT_EQ(core.get_property("FILE_REF", "PERFORMANCE_HINT"), "LATENCY");  // the default
    EXPECT_EQ(core.get_property("BOTH_REF", "PERFORMANCE_HINT"), "LATENCY");
    EXPECT_EQ(core.get_property("BOTH_REF", "NUM_STREAMS"), 2);
    // Two devices from one library keep separate properties.
    EXPECT_EQ(core.get_property("THROUGHPUT_REF", "PERF_COUNT"), false);
}

TEST(RegistryFile, BadDeviceFileBreaksOnlyThatDevice) {
    TempRegistry reg;
    reg.add("REFERENCE", reference_plugin());
    reg.add("BADFILE", reference_plugin());
    reg.write();
    reg.write_device_file("BADFILE", {{"NO_SUCH_PROPERTY", true}});

    Core core(reg.path());
    EXPECT_EQ(core.get_available_devices(), std::vector<std::string>{"REFERENCE"});
    const auto problems = problems_of(core, "BADFILE");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_CONTAINS(problems[0].message, "NO_SUCH_PROPERTY");
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
}

TEST(RegistryFile, EmptyRegistryHasNoDevices) {
    TempRegistry reg;
    reg.write();
    Core core(reg.path());
    EXPECT_TRUE(core.get_available_devices().empty());
    EXPECT_TRUE(core.problems().empty());
    const std::string message = error_of([&] { core.compile_model(relu_model(), "REFERENCE"); });
    EXPECT_CONTAINS(message, "REFERENCE");
    EXPECT_CONTAINS(message, "not registered");
}

// A misspelt key in an entry ("propertis") used to be ignored, dropping the properties it was
// meant to set without a word; the schema allows no other keys, and neither does the host.
TEST(RegistryFile, MisspeltEntryKeyBreaksOnlyThatDeviceNamingTheNearestKey) {
    TempRegistry reg;
    reg.add("REFERENCE", reference_plugin());
    reg.add_raw({{"device", "TYPO"}, {"library", fs::relative(reference_plugin(), reg.dir()).string()},
                 {"propertis", {{"PERF_COUNT", true}}}});
    reg.write();

    Core core(reg.path());
    EXPECT_EQ(core.get_available_devices(), std::vector<std::string>{"REFERENCE"});
    const auto problems = problems_of(core, "TYPO");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_CONTAINS(problems[0].message, reg.path());
    EXPECT_CONTAINS(problems[0].message, "plugins[1]");
    EXPECT_CONTAINS(problems[0].message, "device 'TYPO'");
    EXPECT_CONTAINS(problems[0].message, "unknown key \"propertis\" (did you mean \"properties\"?)");
    EXPECT_CONTAINS(problems[0].message, "\"device\", \"library\", \"properties\"");
    EXPECT_CONTAINS(error_of([&] { core.compile_model(relu_model(), "TYPO"); }), "propertis");
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
}

TEST(RegistryFile, MisspeltLibraryKeyNamesLibrary) {
    TempRegistry reg;
    reg.add_raw({{"device", "TYPO"}, {"libary", "plugins/x.so"}});
    reg.write();
    Core core(reg.path());
    const auto problems = problems_of(core, "TYPO");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_CONTAINS(problems[0].message, "unknown key \"libary\" (did you mean \"library\"?)");
}

// The top level has no entry to blame: the file is refused, naming the key.
TEST(RegistryFile, MisspeltTopLevelKeyRefusesTheFile) {
    TempRegistry reg;
    reg.write_text(R"({"version": 1, "plugins": [], "verison": 2})");
    const std::string message = error_of([&] { Core core(reg.path()); });
    EXPECT_CONTAINS(message, reg.path());
    EXPECT_CONTAINS(message, "unknown key \"verison\" (did you mean \"version\"?)");
}

// Found by fuzzing (tests/fuzz/regressions/device_properties): nlohmann reports a number too large
// for a double as out_of_range, not parse_error; it escaped the registry reader and took down every
// device instead of the one whose file holds it.
TEST(RegistryFile, NumberTooLargeForADoubleBreaksOnlyThatDevice) {
    TempRegistry reg;
    reg.add("REFERENCE", reference_plugin());
    reg.add("HUGE", reference_plugin());
    reg.write();
    reg.write_device_text("HUGE", R"({"NUM_STREAMS": 1e999})");

    Core core(reg.path());
    EXPECT_EQ(core.get_available_devices(), std::vector<std::string>{"REFERENCE"});
    const auto problems = problems_of(core, "HUGE");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_CONTAINS(problems[0].message, (reg.dir() / "devices" / "HUGE.json").string());
    EXPECT_CONTAINS(problems[0].message, "not valid JSON");
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
}

// A device name also names its property file, devices/<name>.json; "/" in it would read a file
// from outside devices/ ("/etc/x" from anywhere), so such a name is refused like "GPU.1" is.
TEST(RegistryFile, DeviceNameWithAPathSeparatorIsRefusedNamingTheEntry) {
    TempRegistry reg;
    reg.add("REFERENCE", reference_plugin());
    reg.add("../OUTSIDE", reference_plugin());
    reg.add("SUB/DIR", reference_plugin());
    reg.write();
    fs::create_directories(reg.dir() / "devices" / "SUB");
    std::ofstream(reg.dir() / "devices" / "SUB" / "DIR.json") << R"({"PERF_COUNT": true})";

    Core core(reg.path());
    EXPECT_EQ(core.get_available_devices(), std::vector<std::string>{"REFERENCE"});
    const auto problems = problems_of(core, "SUB/DIR");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_CONTAINS(problems[0].message, reg.path());
    EXPECT_CONTAINS(problems[0].message, "plugins[2]");
    EXPECT_CONTAINS(problems[0].message, "contains '/', a path separator");
    EXPECT_EQ(problems_of(core, "../OUTSIDE").size(), 1u);
}

}  // namespace
}  // namespace mosaic::test
