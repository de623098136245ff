// mosaic verify-plugin: every bundled plugin passes it, and each deliberately broken plugin of
// tests/plugins/faulty_plugin.cpp is caught by the check named for its fault, with the reason.
#include "cli_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace mosaic::cli_test {
namespace {

void expect_all_pass(const CliResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, " 0 failed")) << r;
    for (const char* check : {"abi", "properties", "ops", "async", "threads", "bad-inputs"})
        EXPECT_EQ(line_of(r, check).rfind("PASS", 0), 0u) << check << " did not pass:\n" << r;
    // export passes where the plugin exports, and is skipped (saying why) where it declines.
    const std::string exp = line_of(r, "export");
    EXPECT_TRUE(exp.rfind("PASS", 0) == 0 || exp.rfind("SKIP", 0) == 0) << r;
    // So does memory, where the plugin has no device memory of its own (ABI 1.3).
    const std::string memory = line_of(r, "memory");
    EXPECT_TRUE(memory.rfind("PASS", 0) == 0 || memory.rfind("SKIP", 0) == 0) << r;
}

TEST(CliVerifyPlugin, ReferencePasses) {
    const CliResult r = run_mosaic({"verify-plugin", "REFERENCE"});
    expect_all_pass(r);
    EXPECT_TRUE(contains(line_of(r, "export"), "PASS")) << r;  // REFERENCE exports and imports
}

TEST(CliVerifyPlugin, CpuPasses) {
    const CliResult r = run_mosaic({"verify-plugin", "CPU"});
    expect_all_pass(r);
    // Its memory is the host's: figures (for DEVICE_MEMORY_LIMIT and HETERO's plans), no buffers.
    EXPECT_TRUE(contains(line_of(r, "memory"), "PASS")) << r;
    EXPECT_TRUE(contains(line_of(r, "memory"), "\"buffers\":false,\"shares_host_memory\":true")) << r;
}

TEST(CliVerifyPlugin, GpuPassesAndItsBuffersCarryATensorBetweenSubgraphs) {
    const CliResult r = run_mosaic({"verify-plugin", "GPU"});
    expect_all_pass(r);
    const std::string memory = line_of(r, "memory");
    EXPECT_EQ(memory.rfind("PASS", 0), 0u) << r;
    EXPECT_TRUE(contains(memory, "DEVICE_MEMORY {\"available_bytes\"")) << memory;
    EXPECT_TRUE(contains(memory, "a tensor kept in its buffers between two subgraphs of HETERO:GPU,REFERENCE")) << memory;
}

TEST(CliVerifyPlugin, HeteroWithADeviceListPasses) {
    expect_all_pass(run_mosaic({"verify-plugin", "HETERO:CPU,REFERENCE"}));
}

// An entry isolated in its own process passes what it passes in process, and `mosaic devices`
// lists it; libmosaic finds mosaic-plugin-host beside itself (<build>/bin), with no variable set.
TEST(CliVerifyPlugin, AnIsolatedReferencePassesAndIsListed) {
    TempDir dir;
    const nlohmann::json registry = {
        {"version", 1},
        {"plugins",
         {{{"device", "REFERENCE_ISOLATED"},
           {"library", plugin_dir() + "/libmosaic_reference_plugin.so"},
           {"isolation", "process"}}}}};
    write_text(dir / "plugins.json", registry.dump(2));
    const std::map<std::string, std::string> env = {{"MOSAIC_PLUGINS", dir / "plugins.json"}};
    expect_all_pass(run_mosaic({"verify-plugin", "REFERENCE_ISOLATED"}, env));
    const CliResult devices = run_mosaic({"devices"}, env);
    EXPECT_EQ(devices.exit_code, 0) << devices;
    EXPECT_TRUE(contains(devices.out, "REFERENCE_ISOLATED")) << devices;
}

TEST(CliVerifyPlugin, UnknownDeviceFailsTheAbiCheckNamingTheRegistry) {
    const CliResult r = run_mosaic({"verify-plugin", "NO_SUCH_DEVICE"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(line_of(r, "abi"), "FAIL")) << r;
    EXPECT_TRUE(contains(line_of(r, "abi"), "not registered")) << r;
    EXPECT_TRUE(contains(line_of(r, "ops"), "SKIP")) << r;
    EXPECT_TRUE(contains(r.err, "mosaic: error: verify-plugin NO_SUCH_DEVICE: 1 check(s) failed")) << r;
}

// The faulty plugins run everything on REFERENCE through the host, so a registry holds both (and
// HETERO, which the memory check splits with).
class FaultyPlugin : public ::testing::Test {
protected:
    CliResult verify(const std::string& fault) {
        const nlohmann::json registry = {
            {"version", 1},
            {"plugins",
             {{{"device", "REFERENCE"}, {"library", plugin_dir() + "/libmosaic_reference_plugin.so"}},
              {{"device", "HETERO"}, {"library", plugin_dir() + "/libmosaic_hetero_plugin.so"}},
              {{"device", "BAD"}, {"library", faulty_plugin(fault)}}}}};
        write_text(dir / "plugins.json", registry.dump());
        // One case per op keeps the run short; every op type is still claimed and checked.
        return run_mosaic({"verify-plugin", "BAD", "--cases-per-op", "1", "--timeout", "2"},
                          {{"MOSAIC_PLUGINS", dir / "plugins.json"}});
    }
    // `check` fails with each of `why`, and the run exits 1; each of `others` (check, outcome)
    // has that outcome, showing the fault is caught where it belongs.
    void expect_caught(const CliResult& r, const std::string& check, std::initializer_list<std::string> why,
                       std::initializer_list<std::pair<std::string, std::string>> others = {}) {
        EXPECT_EQ(r.exit_code, 1) << r;
        const std::string line = line_of(r, check);
        EXPECT_EQ(line.rfind("FAIL", 0), 0u) << check << " did not fail:\n" << r;
        for (const auto& part : why) EXPECT_TRUE(contains(line, part)) << "'" << part << "' not in: " << line;
        for (const auto& [other, outcome] : others)
            EXPECT_EQ(line_of(r, other).rfind(outcome, 0), 0u) << other << " is not " << outcome << ":\n" << r;
    }
    TempDir dir;
};

// A plain list of names is accepted (everything else passes), but a bare name means "mutable", so
// the read-only FULL_DEVICE_NAME listed bare is reported: use the canonical form for such keys.
TEST_F(FaultyPlugin, PlainNamesInSupportedPropertiesAreAcceptedButReadAsMutable) {
    expect_caught(verify("props_names"), "properties", {"FULL_DEVICE_NAME is listed as mutable but setting it to its own value"},
                  {{"abi", "PASS"}, {"ops", "PASS"}, {"async", "PASS"}, {"threads", "PASS"}, {"bad-inputs", "PASS"}});
}

TEST_F(FaultyPlugin, MalformedSupportedPropertiesFailsProperties) {
    expect_caught(verify("props_string"), "properties",
                  {"sent SUPPORTED_PROPERTIES as \"FULL_DEVICE_NAME\", not a JSON array of {\"name\": string"});
}

TEST_F(FaultyPlugin, AcceptingUnknownKeysFailsProperties) {
    expect_caught(verify("accepts_unknown"), "properties",
                  {"set_property accepted the unknown key MOSAIC_VERIFY_NO_SUCH_KEY"}, {{"ops", "PASS"}, {"async", "PASS"}});
}

TEST_F(FaultyPlugin, WrongValuesForAClaimedOpFailOps) {
    expect_caught(verify("wrong_values"), "ops", {"Sigmoid", "(REFERENCE's value expected)"},
                  {{"properties", "PASS"}, {"async", "PASS"}});
}

TEST_F(FaultyPlugin, QueryAnswerPastTheGraphFailsOps) {
    expect_caught(verify("query_out_of_range"), "ops", {"query failed: plugin '", "sent a query answer as node"});
}

// Buffers that a request reads but never writes as an output: everything through host memory passes,
// the memory check's split with a tensor kept in the device's buffers does not.
TEST_F(FaultyPlugin, OutputsNeverWrittenToDeviceBuffersFailMemory) {
    expect_caught(verify("lost_device_outputs"), "memory",
                  {"HETERO:BAD,REFERENCE with the crossing in the device's buffers computed [0.0,0.0,0.0,4.5,9.0,0.0]",
                   "expected [0.0,0.0,0.0,6.0,12.0,0.0]"},
                  {{"abi", "PASS"}, {"ops", "PASS"}, {"async", "PASS"}, {"threads", "PASS"}, {"bad-inputs", "PASS"}});
}

TEST_F(FaultyPlugin, NeverCallingTheCallbackFailsAsyncAfterTheTimeout) {
    expect_caught(verify("no_callback"), "async",
                  {"did not complete within 2000 ms: the plugin never called `done`"}, {{"threads", "PASS"}});
}

TEST_F(FaultyPlugin, TooSmallFunctionTableFailsAbi) {
    expect_caught(verify("small_table"), "abi", {"function table of"}, {{"properties", "SKIP"}});
}

}  // namespace
}  // namespace mosaic::cli_test
