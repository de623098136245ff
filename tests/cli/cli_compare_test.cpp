// `mosaic compare`: every value a model computes on a device against REFERENCE. A right device
// agrees on each; a wrong one (tests/plugins/faulty_plugin.cpp's wrong_values: a model with a
// Sigmoid gets 1 added to its outputs) is named at its first op, and the op case it writes is one
// that `verify-plugin --op-cases` then fails on that device and passes on a right one.
#include "cli/cli_runner.hpp"

#include <mosaic/mosaic.hpp>
#include <mosaic/serialize.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace mosaic::test {
namespace {

using namespace cli_test;

// x -> Sigmoid -> Relu -> Multiply by a constant: three values.
std::string write_model(const TempDir& dir) {
    ModelBuilder b("compare_me");
    Output x = b.parameter("x", ElementType::f32, {2, 3});
    Output s = b.op("Sigmoid", {x}, {}, "sig");
    Output r = b.op("Relu", {s}, {}, "relu");
    b.result(b.op("Multiply", {r, b.constant<float>({}, {3.0f}, "three")}, {}, "scaled"), "y");
    const std::string path = dir / "model.xml";
    serialize(*b.build(), path);
    return path;
}

class CliCompare : public ::testing::Test {
protected:
    // A registry with REFERENCE and BAD, the faulty plugin whose values are wrong.
    std::map<std::string, std::string> bad_registry() {
        const nlohmann::json registry = {
            {"version", 1},
            {"plugins",
             {{{"device", "REFERENCE"}, {"library", plugin_dir() + "/libmosaic_reference_plugin.so"}},
              {{"device", "BAD"}, {"library", faulty_plugin("wrong_values")}}}}};
        write_text(dir / "plugins.json", registry.dump());
        return {{"MOSAIC_PLUGINS", dir / "plugins.json"}};
    }
    TempDir dir;
};

TEST_F(CliCompare, ARightDeviceAgreesOnEveryValue) {
    const CliResult r = run_mosaic({"compare", "-m", default_model(), "-d", "CPU"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "CPU agrees with REFERENCE on all")) << r;
    EXPECT_TRUE(contains(r.out, "conv1")) << r;  // a line per value
}

TEST_F(CliCompare, AWrongDeviceIsNamedAtItsFirstOpAndTheCaseItWritesFailsVerifyPlugin) {
    const std::string model = write_model(dir);
    const auto env = bad_registry();
    const CliResult r = run_mosaic({"compare", "-m", model, "-d", "BAD", "--save-case", dir / "cases"}, env);
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.out, "first divergence: op 'sig' (Sigmoid-opset1), max |error| 1")) << r;
    EXPECT_TRUE(contains(r.out, "its inputs within tolerance")) << r;
    ASSERT_TRUE(std::filesystem::exists(dir / "cases/sig.json")) << r;

    const CliResult bad = run_mosaic({"verify-plugin", "BAD", "--op-cases", dir / "cases", "--timeout", "2"}, env);
    EXPECT_EQ(bad.exit_code, 1) << bad;
    EXPECT_TRUE(contains(line_of(bad, "ops"), "sig_sig output 0")) << bad;
    const CliResult good = run_mosaic({"verify-plugin", "REFERENCE", "--op-cases", dir / "cases", "--timeout", "2"}, env);
    EXPECT_TRUE(contains(line_of(good, "ops"), "PASS")) << good;
}

// A fusion's error (faulty_plugin.cpp's wrong_fusion: a Sigmoid read only by a Relu goes wrong, as a
// device that fuses the two might): observed one value at a time, 'relu' is the first wrong value,
// and the case written is the fused chain (Sigmoid -> Relu), which goes wrong alone where the op
// alone would not; `mosaic conformance` and verify-plugin's model check fail it on that device and
// pass it on a right one.
TEST_F(CliCompare, AFusionsErrorIsWrittenAsTheFusedChain) {
    const std::string model = write_model(dir);
    const nlohmann::json registry = {
        {"version", 1},
        {"plugins",
         {{{"device", "REFERENCE"}, {"library", plugin_dir() + "/libmosaic_reference_plugin.so"}},
          {{"device", "FUSING"}, {"library", faulty_plugin("wrong_fusion")}}}}};
    write_text(dir / "plugins.json", registry.dump());
    const std::map<std::string, std::string> env{{"MOSAIC_PLUGINS", dir / "plugins.json"}};
    const CliResult r = run_mosaic({"compare", "-m", model, "-d", "FUSING", "--save-case", dir / "cases"}, env);
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.out, "first divergence: op 'relu' (Relu-opset1)")) << r;
    EXPECT_TRUE(contains(r.out, "the error is in what FUSING fuses into this op")) << r;
    const std::string chain = dir / "cases/relu_chain";
    EXPECT_TRUE(contains(r.out, "Fused chain written to " + chain)) << r;
    ASSERT_TRUE(std::filesystem::exists(chain + "/model.xml")) << r;
    EXPECT_TRUE(std::filesystem::exists(chain + "/test_data_set_0/input_0.pb"));
    EXPECT_TRUE(std::filesystem::exists(chain + "/test_data_set_0/output_0.pb"));
    Core core;
    const std::shared_ptr<Model> written = core.read_model(chain + "/model.xml");
    std::vector<std::string> ops;
    for (const Node* n : written->get_ordered_ops())
        if (!n->is_parameter() && !n->is_result() && !n->is_constant()) ops.push_back(n->get_type_name());
    EXPECT_EQ(ops, (std::vector<std::string>{"Sigmoid", "Relu"})) << "the chain, not the model ('scaled' left out)";

    const CliResult fails = run_mosaic({"conformance", "-d", "FUSING", chain}, env);
    EXPECT_EQ(fails.exit_code, 1) << fails;
    const CliResult passes = run_mosaic({"conformance", "-d", "REFERENCE", chain}, env);
    EXPECT_EQ(passes.exit_code, 0) << passes;
    const CliResult verify =
        run_mosaic({"verify-plugin", "FUSING", "--model", chain + "/model.xml", "--cases-per-op", "1", "--timeout", "2"}, env);
    EXPECT_TRUE(contains(line_of(verify, "model"), "first divergence: op 'relu'")) << verify;
}

// An output nothing reads is not observed: MaxPool-8's indices, which the GPU does not compute, would
// otherwise make the GPU refuse a model it runs.
TEST_F(CliCompare, AnOutputNothingReadsIsNotObserved) {
    ModelBuilder b("pool_indices_unused");
    Output x = b.parameter("x", ElementType::f32, {1, 2, 4, 4});
    Output pooled = b.op("MaxPool", {x},
                         {{"strides", "2,2"}, {"dilations", "1,1"}, {"pads_begin", "0,0"}, {"pads_end", "0,0"},
                          {"kernel", "2,2"}, {"rounding_type", "floor"}, {"auto_pad", "explicit"}},
                         "pool", "opset8");
    b.result(b.op("Relu", {pooled}, {}, "relu"), "y");
    const std::string model = dir / "pool.xml";
    serialize(*b.build(), model);
    const CliResult r = run_mosaic({"compare", "-m", model, "-d", "GPU"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "GPU agrees with REFERENCE on all 2 values")) << r;
}

TEST_F(CliCompare, JsonNamesEveryValueAndTheFirstDivergence) {
    const std::string model = write_model(dir);
    const CliResult r = run_mosaic({"compare", "-m", model, "-d", "BAD", "--json"}, bad_registry());
    EXPECT_EQ(r.exit_code, 1) << r;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.at("values").size(), 3u) << r.out;
    EXPECT_EQ(j.at("first_divergence").at("node"), "sig") << r.out;
    EXPECT_EQ(j.at("first_divergence").at("type"), "Sigmoid") << r.out;
    EXPECT_FALSE(j.at("found_by_bisection").get<bool>());
    EXPECT_TRUE(j.at("outputs").at(0).at("exceeds").get<bool>()) << r.out;
}

// The same comparison as verify-plugin's "model" check, for a vendor's conformance run.
TEST_F(CliCompare, VerifyPluginsModelCheckNamesTheFirstOpThatDiffers) {
    const std::string model = write_model(dir);
    const auto env = bad_registry();
    const CliResult bad = run_mosaic({"verify-plugin", "BAD", "--model", model, "--cases-per-op", "1", "--timeout", "2"}, env);
    EXPECT_EQ(bad.exit_code, 1) << bad;
    EXPECT_EQ(line_of(bad, "model").rfind("FAIL", 0), 0u) << bad;
    EXPECT_TRUE(contains(line_of(bad, "model"), "first divergence: op 'sig' (Sigmoid-opset1)")) << bad;
    const CliResult good = run_mosaic({"verify-plugin", "REFERENCE", "--model", model, "--cases-per-op", "1"}, env);
    EXPECT_EQ(line_of(good, "model").rfind("PASS", 0), 0u) << good;
    EXPECT_TRUE(contains(line_of(good, "model"), "agrees with REFERENCE on all 3 values")) << good;
    const CliResult none = run_mosaic({"verify-plugin", "REFERENCE", "--cases-per-op", "1"}, env);
    EXPECT_TRUE(contains(line_of(none, "model"), "SKIP")) << none;
}

TEST_F(CliCompare, BadArgumentsAreNamed) {
    const std::string model = write_model(dir);
    CliResult r = run_mosaic({"compare", "-m", model, "-d", "NO_SUCH_DEVICE"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "NO_SUCH_DEVICE")) << r;
    r = run_mosaic({"compare", "-m", dir / "missing.onnx", "-d", "CPU"});
    EXPECT_EQ(r.exit_code, 1) << r;
    EXPECT_TRUE(contains(r.err, "missing.onnx")) << r;
}

}  // namespace
}  // namespace mosaic::test
