// The mosaic command line, run as a separate process on the bundled default model: what each
// command prints, the files it writes, and that every user mistake ends in one clear error line
// and exit code 1.
#include "cli_runner.hpp"

#include "tools/mosaic/npy.hpp"

#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <regex>

namespace mosaic::cli_test {
namespace {

// Input data for the default model that differs from what the CLI generates by itself.
Tensor test_input(const Shape& shape = {1, 3, 32, 32}, float scale = 1.0f) {
    Tensor t(ElementType::f32, shape);
    float* p = t.data<float>();
    for (size_t i = 0; i < t.get_size(); ++i) p[i] = scale * static_cast<float>((i * 37) % 101) / 101.0f;
    return t;
}

bool same_tensor(const Tensor& a, const Tensor& b) {
    return a.get_element_type() == b.get_element_type() && a.get_shape() == b.get_shape() && a.get_byte_size() == b.get_byte_size() &&
           std::memcmp(a.data(), b.data(), a.get_byte_size()) == 0;
}

// ---------------------------------------------------------------------------------------------
// General

TEST(CliGeneral, HelpExitsZeroAndListsCommands) {
    const CliResult r = run_mosaic({"--help"});
    EXPECT_EQ(r.exit_code, 0) << r;
    for (const char* cmd : {"devices", "query", "run", "benchmark", "convert"}) EXPECT_TRUE(contains(r.out, cmd)) << r;
}

TEST(CliGeneral, NoCommandIsAnError) { expect_clean_error(run_mosaic({})); }

TEST(CliGeneral, UnknownCommandIsAnError) {
    const CliResult r = run_mosaic({"frobnicate"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "frobnicate")) << r;
}

TEST(CliGeneral, MissingRequiredOptionIsAnError) {
    const CliResult r = run_mosaic({"run", "-d", "REFERENCE"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "--model")) << r;
}

// ---------------------------------------------------------------------------------------------
// devices

TEST(CliDevices, ListsReferenceAndAccelWithProperties) {
    const CliResult r = run_mosaic({"devices"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const auto lines = lines_of(r.out);
    EXPECT_NE(std::find(lines.begin(), lines.end(), "REFERENCE"), lines.end()) << r;
    EXPECT_NE(std::find(lines.begin(), lines.end(), "ACCEL"), lines.end()) << r;
    EXPECT_TRUE(contains(r.out, "FULL_DEVICE_NAME: ")) << r;
    EXPECT_TRUE(contains(r.out, "SUPPORTED_PROPERTIES:")) << r;
    EXPECT_TRUE(contains(r.out, "Emulated accelerator")) << r;
}

TEST(CliDevices, JsonListsEveryDevice) {
    const CliResult r = run_mosaic({"devices", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    std::vector<std::string> names;
    for (const auto& d : j.at("devices")) {
        names.push_back(d.at("name").get<std::string>());
        EXPECT_TRUE(d.at("full_name").is_string());
        EXPECT_TRUE(d.at("properties").is_object());
    }
    EXPECT_NE(std::find(names.begin(), names.end(), "REFERENCE"), names.end()) << r;
    EXPECT_NE(std::find(names.begin(), names.end(), "ACCEL"), names.end()) << r;
    EXPECT_TRUE(j.at("problems").is_array());
}

TEST(CliDevices, BrokenRegistryEntryIsAWarningNotAnError) {
    TempDir dir;
    const nlohmann::json registry = {
        {"version", 1},
        {"plugins",
         {{{"device", "REFERENCE"}, {"library", build_dir() + "/lib/mosaic/plugins/libmosaic_reference_plugin.so"}},
          {{"device", "BROKENDEV"}, {"library", dir / "no_such_plugin.so"}}}}};
    write_text(dir / "plugins.json", registry.dump(2));
    const CliResult r = run_mosaic({"devices"}, {{"MOSAIC_PLUGINS", dir / "plugins.json"}});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "REFERENCE")) << r;
    EXPECT_FALSE(contains(r.out, "BROKENDEV")) << r;
    EXPECT_TRUE(contains(r.err, "mosaic: warning: ")) << r;
    EXPECT_TRUE(contains(r.err, "BROKENDEV")) << r;
}

// ---------------------------------------------------------------------------------------------
// query

TEST(CliQuery, AccelTakesConvolutionsAndRejectsTheHead) {
    const CliResult r = run_mosaic({"query", "-m", default_model(), "-d", "ACCEL"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "conv1 (Convolution): ACCEL")) << r;
    EXPECT_TRUE(contains(r.out, "dw3 (GroupConvolution): ACCEL")) << r;
    EXPECT_TRUE(contains(r.out, "prob (Softmax): UNSUPPORTED")) << r;
    EXPECT_TRUE(contains(r.out, "fc (MatMul): UNSUPPORTED")) << r;
    EXPECT_TRUE(contains(r.out, "unsupported")) << r;
}

TEST(CliQuery, JsonNamesDevicesAndReasons) {
    const CliResult r = run_mosaic({"query", "-m", default_model(), "-d", "ACCEL", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("affinity").at("conv1"), "ACCEL");
    EXPECT_EQ(j.at("affinity").at("pool1"), "ACCEL");
    ASSERT_TRUE(j.at("unsupported").contains("prob")) << r;
    const auto& reasons = j.at("unsupported").at("prob");
    ASSERT_TRUE(reasons.contains("ACCEL")) << r;
    EXPECT_FALSE(reasons.at("ACCEL").get<std::string>().empty());
}

TEST(CliQuery, ReferenceSupportsEverything) {
    const CliResult r = run_mosaic({"query", "-m", default_model(), "-d", "REFERENCE", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j.at("unsupported").empty()) << r;
    EXPECT_EQ(j.at("affinity").at("prob"), "REFERENCE");
}

TEST(CliQuery, UnknownDeviceIsAnError) {
    const CliResult r = run_mosaic({"query", "-m", default_model(), "-d", "NOSUCHDEV"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "NOSUCHDEV")) << r;
}

// ---------------------------------------------------------------------------------------------
// run

TEST(CliRun, PrintsOutputsWithSummary) {
    const CliResult r = run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Output 'prob': f32 [1,10]")) << r;
    EXPECT_TRUE(contains(r.out, "values: ")) << r;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("min: \\S+ max: \\S+ mean: 0\\.1\\b"))) << r;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("argmax: [0-9] \\("))) << r;
    EXPECT_TRUE(contains(r.out, "Input 'data'")) << r;
    EXPECT_TRUE(contains(r.out, "not given")) << r;
    EXPECT_TRUE(contains(r.out, "uniform")) << r;
}

TEST(CliRun, GeneratedInputsAreDeterministic) {
    const CliResult a = run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE"});
    const CliResult b = run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE"});
    ASSERT_EQ(a.exit_code, 0) << a;
    ASSERT_EQ(b.exit_code, 0) << b;
    auto values = [](const std::string& out) {
        std::smatch m;
        std::regex_search(out, m, std::regex("values:[^\n]*"));
        return m.str();
    };
    EXPECT_FALSE(values(a.out).empty());
    EXPECT_EQ(values(a.out), values(b.out));
}

TEST(CliRun, PerfCountersUseTheBenchmarkAppLayout) {
    const CliResult r = run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "-pc"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const std::regex record(
        "^(.+): (EXECUTED|NOT_RUN|OPTIMIZED_OUT) layerType: (\\S+) realTime: ([0-9]+) cpu: ([0-9]+) execType: (.*)$");
    const std::regex total("^Total time: ([0-9]+) microseconds$");
    long long sum = 0, reported = -1;
    int records = 0;
    bool saw_conv = false;
    for (const auto& line : lines_of(r.out)) {
        std::smatch m;
        if (std::regex_match(line, m, record)) {
            ++records;
            sum += std::stoll(m[4]);
            if (m[1] == "conv1" && m[3] == "Convolution") saw_conv = true;
        } else if (std::regex_match(line, m, total)) {
            reported = std::stoll(m[1]);
        }
    }
    EXPECT_GT(records, 0) << r;
    EXPECT_TRUE(saw_conv) << r;
    EXPECT_EQ(reported, sum) << r;
}

TEST(CliRun, OutputNpyMatchesInProcessInference) {
    TempDir dir;
    const Tensor input = test_input();
    npy::write(dir / "in.npy", input);
    const CliResult r =
        run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "--input", "data=" + (dir / "in.npy"), "-o",
                    dir / "out"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "from " + (dir / "in.npy"))) << r;

    const Tensor written = npy::read(dir / "out/prob.npy");
    Core core;
    CompiledModel compiled = core.compile_model(default_model(), "REFERENCE");
    InferRequest request = compiled.create_infer_request();
    request.set_tensor("data", input);
    request.infer();
    const Tensor expected = request.get_tensor("prob");
    EXPECT_TRUE(same_tensor(written, expected));

    float total = 0;
    for (float v : written.to_vector<float>()) total += v;
    EXPECT_NEAR(total, 1.0f, 1e-4f);  // a softmax
}

TEST(CliRun, WrongShapeNpyNamesInputAndShapes) {
    TempDir dir;
    npy::write(dir / "small.npy", test_input({1, 3, 16, 16}));
    const CliResult r =
        run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "--input", "data=" + (dir / "small.npy")});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "'data'")) << r;
    EXPECT_TRUE(contains(r.err, "[1,3,32,32]")) << r;
    EXPECT_TRUE(contains(r.err, "[1,3,16,16]")) << r;
}

TEST(CliRun, WrongDtypeNpyNamesBothTypes) {
    TempDir dir;
    Tensor t(ElementType::f64, {1, 3, 32, 32});
    npy::write(dir / "f64.npy", t);
    const CliResult r =
        run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "--input", "data=" + (dir / "f64.npy")});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "expects f32")) << r;
    EXPECT_TRUE(contains(r.err, "holds f64")) << r;
    EXPECT_TRUE(contains(r.err, "astype('<f4')")) << r;
}

TEST(CliRun, UnknownInputNameListsTheInputs) {
    TempDir dir;
    npy::write(dir / "in.npy", test_input());
    const CliResult r =
        run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "--input", "pixels=" + (dir / "in.npy")});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "'pixels'")) << r;
    EXPECT_TRUE(contains(r.err, "data")) << r;
}

TEST(CliRun, BadInputSyntax) {
    for (const std::string spec : {"=x.npy", "data="}) {
        const CliResult r = run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "--input", spec});
        expect_clean_error(r);
        EXPECT_TRUE(contains(r.err, "NAME=FILE")) << r;
    }
}

TEST(CliRun, MissingNpyFile) {
    const CliResult r =
        run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "--input", "data=/no/such/file.npy"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "/no/such/file.npy")) << r;
}

TEST(CliRun, MalformedNpyFile) {
    TempDir dir;
    write_text(dir / "bad.npy", "this is not numpy");
    const CliResult r =
        run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "--input", "data=" + (dir / "bad.npy")});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "bad.npy")) << r;
}

TEST(CliRun, MissingModelFile) {
    const CliResult r = run_mosaic({"run", "-m", "/no/such/model.xml", "-d", "REFERENCE"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "/no/such/model.xml")) << r;
    EXPECT_TRUE(contains(r.err, "does not exist")) << r;
}

TEST(CliRun, UnknownDeviceListsTheAvailableOnes) {
    const CliResult r = run_mosaic({"run", "-m", default_model(), "-d", "NOSUCHDEV"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "NOSUCHDEV")) << r;
    EXPECT_TRUE(contains(r.err, "REFERENCE")) << r;
}

TEST(CliRun, MalformedConfigJson) {
    TempDir dir;
    write_text(dir / "config.json", "{\"PERF_COUNT\": tru");
    const CliResult r =
        run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "--config", dir / "config.json"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "config.json")) << r;
    EXPECT_TRUE(contains(r.err, "not valid JSON")) << r;
}

TEST(CliRun, ConfigThatIsNotAnObject) {
    TempDir dir;
    write_text(dir / "config.json", "[1, 2]");
    const CliResult r =
        run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "--config", dir / "config.json"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "config.json")) << r;
}

TEST(CliRun, PerDeviceConfigIsAccepted) {
    TempDir dir;
    write_text(dir / "config.json", R"({"REFERENCE": {"PERF_COUNT": true}, "ACCEL": {"NUM_STREAMS": 1}})");
    const CliResult r =
        run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "--config", dir / "config.json"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Output 'prob'")) << r;
    EXPECT_TRUE(contains(r.err, "mosaic: warning: ")) << r;  // the ACCEL section is not used
    EXPECT_TRUE(contains(r.err, "'ACCEL'")) << r;
}

TEST(CliRun, PropertyTheDeviceDoesNotKnowFailsCleanly) {
    TempDir dir;
    write_text(dir / "config.json", R"({"NO_SUCH_PROPERTY": 1})");
    const CliResult r =
        run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "--config", dir / "config.json"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "NO_SUCH_PROPERTY")) << r;
}

TEST(CliRun, OpsTheDeviceCannotRunFailCleanly) {
    const CliResult r = run_mosaic({"run", "-m", default_model(), "-d", "ACCEL"});
    expect_clean_error(r, /*one_line=*/false);
}

// ---------------------------------------------------------------------------------------------
// convert

TEST(CliConvert, WrittenIrRunsWithIdenticalOutputs) {
    TempDir dir;
    npy::write(dir / "in.npy", test_input());
    const CliResult c = run_mosaic({"convert", "-m", default_model(), "-o", dir / "copy/model.xml"});
    ASSERT_EQ(c.exit_code, 0) << c;
    EXPECT_TRUE(std::filesystem::exists(dir / "copy/model.xml"));
    EXPECT_TRUE(std::filesystem::exists(dir / "copy/model.bin"));

    const std::string input = "data=" + (dir / "in.npy");
    const CliResult a = run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE", "-i", input, "-o", dir / "a"});
    const CliResult b =
        run_mosaic({"run", "-m", dir / "copy/model.xml", "-d", "REFERENCE", "-i", input, "-o", dir / "b"});
    ASSERT_EQ(a.exit_code, 0) << a;
    ASSERT_EQ(b.exit_code, 0) << b;
    EXPECT_TRUE(same_tensor(npy::read(dir / "a/prob.npy"), npy::read(dir / "b/prob.npy")));
}

TEST(CliConvert, OutputMustBeXml) {
    TempDir dir;
    const CliResult r = run_mosaic({"convert", "-m", default_model(), "-o", dir / "model.onnx"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, ".xml")) << r;
}

TEST(CliConvert, MissingInput) {
    TempDir dir;
    const CliResult r = run_mosaic({"convert", "-m", dir / "nothing.xml", "-o", dir / "out.xml"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "nothing.xml")) << r;
}

// ---------------------------------------------------------------------------------------------
// benchmark

TEST(CliBenchmark, AsyncNiterPrintsFiguresAndWritesReport) {
    TempDir dir;
    const CliResult r = run_mosaic({"benchmark", "-m", default_model(), "-d", "REFERENCE", "-niter", "5", "-nireq",
                                    "1", "--report", dir / "report.json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    for (const char* what : {"First inference took", "Count: 5 iterations", "Median:", "Average:", "Min:", "Max:",
                             "Throughput:", "FPS"})
        EXPECT_TRUE(contains(r.out, what)) << what << "\n" << r;

    const nlohmann::json report = nlohmann::json::parse(read_text(dir / "report.json"));
    EXPECT_EQ(report.at("iterations"), 5);
    EXPECT_EQ(report.at("api"), "async");
    const auto& lat = report.at("latency_ms");
    EXPECT_LE(lat.at("min").get<double>(), lat.at("median").get<double>());
    EXPECT_LE(lat.at("median").get<double>(), lat.at("max").get<double>());
    EXPECT_GT(report.at("throughput_fps").get<double>(), 0.0);
}

TEST(CliBenchmark, AsyncWithSeveralRequestsAlignsIterations) {
    const CliResult r =
        run_mosaic({"benchmark", "-m", default_model(), "-d", "REFERENCE", "-niter", "5", "-nireq", "2"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Count: 6 iterations")) << r;
    EXPECT_TRUE(contains(r.err, "aligned")) << r;
}

TEST(CliBenchmark, SyncApi) {
    const CliResult r = run_mosaic(
        {"benchmark", "-m", default_model(), "-d", "REFERENCE", "-niter", "3", "-api", "sync", "-hint", "latency"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Count: 3 iterations")) << r;
    EXPECT_TRUE(contains(r.out, "API: sync")) << r;
}

TEST(CliBenchmark, TimeLimitedRun) {
    const CliResult r = run_mosaic({"benchmark", "-m", default_model(), "-d", "REFERENCE", "-t", "0.3"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("Count: [1-9][0-9]* iterations"))) << r;
}

TEST(CliBenchmark, BadApiValue) {
    const CliResult r =
        run_mosaic({"benchmark", "-m", default_model(), "-d", "REFERENCE", "-niter", "1", "-api", "sometimes"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "sometimes")) << r;
}

TEST(CliBenchmark, MissingModelFile) {
    const CliResult r = run_mosaic({"benchmark", "-m", "/no/such/model.xml", "-d", "REFERENCE", "-niter", "1"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "does not exist")) << r;
}

}  // namespace
}  // namespace mosaic::cli_test
