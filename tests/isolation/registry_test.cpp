// The registry's "isolation" key and the settings of an isolated entry: values other than
// "in-process" and "process", settings on an entry that is not isolated, and settings that are not
// whole numbers above 0 are refused, naming the registry file, the entry and what is allowed; the
// other devices stay usable.
#include "isolation/isolation_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test::isolation {
namespace {

std::string problem_of(const nlohmann::json& entry) {
    TempRegistry registry;
    registry.add_raw(entry);
    registry.add("REFERENCE", reference_plugin());
    registry.write();
    Core core(registry.path());
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
    const auto problems = problems_of(core, "X");
    if (problems.size() != 1) {
        ADD_FAILURE() << "expected one problem for device X, got " << problems.size();
        return "";
    }
    EXPECT_PRED_FORMAT2(contains, problems[0].message, registry.path());
    EXPECT_PRED_FORMAT2(contains, problems[0].message, "plugins[0]");
    return problems[0].message;
}

nlohmann::json entry(nlohmann::json extra) {
    nlohmann::json e = {{"device", "X"}, {"library", reference_plugin().string()}};
    for (const auto& [k, v] : extra.items()) e[k] = v;
    return e;
}

TEST(IsolationRegistry, AnUnknownValueNamesTheAllowedOnes) {
    const std::string message = problem_of(entry({{"isolation", "thread"}}));
    EXPECT_PRED_FORMAT2(contains, message, "\"isolation\": \"thread\"");
    EXPECT_PRED_FORMAT2(contains, message, "\"in-process\"");
    EXPECT_PRED_FORMAT2(contains, message, "\"process\"");
    EXPECT_PRED_FORMAT2(contains, problem_of(entry({{"isolation", true}})), "the values allowed are");
}

TEST(IsolationRegistry, SettingsNeedAnIsolatedEntry) {
    EXPECT_PRED_FORMAT2(contains, problem_of(entry({{"timeout_ms", 100}})),
                        "\"timeout_ms\", which applies only to a plugin isolated in its own process");
    EXPECT_PRED_FORMAT2(contains, problem_of(entry({{"isolation", "in-process"}, {"memory_limit_mb", 100}})),
                        "add \"isolation\": \"process\" or remove it");
}

TEST(IsolationRegistry, SettingsMustBeWholeNumbersAboveZero) {
    EXPECT_PRED_FORMAT2(contains, problem_of(entry({{"isolation", "process"}, {"infer_timeout_ms", 0}})),
                        "\"infer_timeout_ms\": 0; it must be a whole number above 0");
    EXPECT_PRED_FORMAT2(contains, problem_of(entry({{"isolation", "process"}, {"memory_limit_mb", "1G"}})),
                        "\"memory_limit_mb\": \"1G\"");
}

TEST(IsolationRegistry, AMisspeltKeyIsNamedWithTheNearestOne) {
    EXPECT_PRED_FORMAT2(contains, problem_of(entry({{"isolaton", "process"}})), "did you mean \"isolation\"?");
}

TEST(IsolationRegistry, InProcessIsTheDefaultAndCanBeSaid) {
    TempRegistry registry;
    registry.add_raw(entry({{"isolation", "in-process"}}));
    registry.write();
    Core core(registry.path());
    EXPECT_TRUE(core.problems().empty());
    EXPECT_EQ(run_once(core, relu_model(), "X", sample_input()), relu_of_sample());
}

// The error the first use of device X, isolated and loading `library`, gets: the host starts then.
std::string first_use_error(const fs::path& library) {
    TempRegistry registry;
    registry.add_raw(isolated_entry(registry, "X", library));
    registry.write();
    Core core(registry.path());
    return error_of([&] { core.get_property("X", "FULL_DEVICE_NAME"); });
}

TEST(IsolationRegistry, AMissingPluginHostIsNamed) {
    setenv("MOSAIC_PLUGIN_HOST", "/nonexistent/mosaic-plugin-host", 1);
    const std::string error = first_use_error(reference_plugin());
    EXPECT_PRED_FORMAT2(contains, error, "MOSAIC_PLUGIN_HOST names '/nonexistent/mosaic-plugin-host'");
    use_build_plugin_host();
}

TEST(IsolationRegistry, ALibraryThatDoesNotLoadInTheHostIsReportedAsInProcess) {
    use_build_plugin_host();
    const std::string error = first_use_error(abi_major2_plugin());
    EXPECT_PRED_FORMAT2(contains, error, "isolated in its own process");
    EXPECT_PRED_FORMAT2(contains, error, "the ABI major version must match");
}

}  // namespace
}  // namespace mosaic::test::isolation
