// `mosaic benchmark` as OpenVINO's benchmark_app, run as a separate process on the default model
// with HETERO:ACCEL,REFERENCE: the eleven step lines and the figures (which must parse and agree
// with each other), -b / -shape / -data_shape, the device tuning flags, -pc / -pcsort, the CSV and
// JSON reports in benchmark_app's layout, and a clear error for each bad value.
#include "cli_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>

namespace mosaic::cli_test {
namespace {

const std::string kHetero = "HETERO:ACCEL,REFERENCE";

CliResult benchmark(std::vector<std::string> extra) {
    std::vector<std::string> args{"benchmark", "-m", default_model(), "-d", kHetero, "-niter", "4"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_mosaic(args);
}

// The number in the first line matching `pattern` (one capture group), or -1.
double figure(const std::string& out, const std::string& pattern) {
    std::smatch m;
    const std::regex re(pattern);
    for (const auto& line : lines_of(out))
        if (std::regex_match(line, m, re)) return std::stod(m[1]);
    return -1;
}

struct Figures {
    double count, duration, median, average, min, max, fps;
};

Figures figures(const std::string& out) {
    const std::string num = "([0-9]+(?:\\.[0-9]+)?)";
    return {figure(out, "^Count: " + num + " iterations$"),   figure(out, "^Duration: " + num + " ms$"),
            figure(out, "^    Median: " + num + " ms$"),      figure(out, "^    Average: " + num + " ms$"),
            figure(out, "^    Min: " + num + " ms$"),         figure(out, "^    Max: " + num + " ms$"),
            figure(out, "^Throughput: " + num + " FPS$")};
}

// benchmark_app's throughput: frames (iterations x batch) per second of the run.
void expect_consistent(const Figures& f, double batch, const CliResult& r) {
    EXPECT_GT(f.duration, 0) << r;
    EXPECT_LE(f.min, f.median) << r;
    EXPECT_LE(f.median, f.max) << r;
    EXPECT_LE(f.min, f.average) << r;
    EXPECT_LE(f.average, f.max) << r;
    EXPECT_NEAR(f.fps, f.count * batch * 1000.0 / f.duration, 0.02 * f.fps + 0.01) << r;
}

std::vector<std::string> csv_lines(const std::string& path) { return lines_of(read_text(path)); }

bool has_line(const std::vector<std::string>& lines, const std::string& prefix) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
}

// ---------------------------------------------------------------------------------------------
// Output

TEST(CliBenchmarkApp, ElevenStepsThenFiguresThatParseAndAgree) {
    const CliResult r = benchmark({"-nireq", "2"});
    ASSERT_EQ(r.exit_code, 0) << r;
    // Every step in order, and a few of benchmark_app's names word for word.
    const std::regex step("^\\[Step ([0-9]+)/11\\] (.+)$");
    std::vector<std::string> names;
    for (const auto& line : lines_of(r.out)) {
        std::smatch m;
        if (!std::regex_match(line, m, step)) continue;
        EXPECT_EQ(std::stoul(m[1]), names.size() + 1) << line << "\n" << r;
        names.push_back(m[2]);
    }
    ASSERT_EQ(names.size(), 11u) << r;
    EXPECT_EQ(names[0], "Parsing and validating input arguments");
    EXPECT_EQ(names[4], "Resizing model to match image sizes and given batch");
    EXPECT_EQ(names[9], "Measuring performance (Start inference asynchronously, 2 inference requests, limits: 4 "
                        "iterations)");
    EXPECT_EQ(names[10], "Dumping statistics report");
    EXPECT_LT(r.out.find("First inference took "), r.out.find("[Step 11/11]")) << r;
    EXPECT_GT(r.out.find("Count: 4 iterations"), r.out.find("[Step 11/11]")) << r;
    EXPECT_TRUE(contains(r.out, "Split: ACCEL ")) << r;  // Mosaic's HETERO line stays
    EXPECT_TRUE(contains(r.out, "\nExecution Devices: ACCEL, REFERENCE\nCount: ")) << r;
    const Figures f = figures(r.out);
    EXPECT_EQ(f.count, 4) << r;
    expect_consistent(f, 1, r);
}

TEST(CliBenchmarkApp, SyncThroughputCountsFramesOverTheRun) {
    const CliResult r = benchmark({"-api", "sync"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Measuring performance (Start inference synchronously, limits: 4 iterations)")) << r;
    expect_consistent(figures(r.out), 1, r);
}

// ---------------------------------------------------------------------------------------------
// Shapes

TEST(CliBenchmarkApp, BatchTwoReshapesAndDoublesTheFrames) {
    const CliResult r = benchmark({"-b", "2", "-nireq", "1"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Reshaped input 'data': [1,3,32,32] -> [2,3,32,32]")) << r;
    EXPECT_TRUE(contains(r.out, "Batch: 2\n")) << r;
    EXPECT_TRUE(contains(r.out, "Input 'data': f32 [2,3,32,32]")) << r;
    expect_consistent(figures(r.out), 2, r);
}

TEST(CliBenchmarkApp, ShapeForEveryInputOrByName) {
    const CliResult all = benchmark({"-shape", "[2,3,32,32]"});
    ASSERT_EQ(all.exit_code, 0) << all;
    EXPECT_TRUE(contains(all.out, "    data : [2,3,32,32]")) << all;
    const CliResult named = benchmark({"-shape", "data[1,3,48,48]"});
    ASSERT_EQ(named.exit_code, 0) << named;
    EXPECT_TRUE(contains(named.out, "Input 'data': f32 [1,3,48,48]")) << named;
}

TEST(CliBenchmarkApp, DataShapeFillsDynamicDimensions) {
    const CliResult r = benchmark({"-shape", "[?,3,32,32]", "-data_shape", "[3,3,32,32]"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Input 'data': f32 [3,3,32,32]")) << r;
    EXPECT_TRUE(contains(r.out, "Batch: 3\n")) << r;

    const CliResult contradicts = benchmark({"-data_shape", "[1,3,16,16]"});
    expect_clean_error(contradicts);
    EXPECT_TRUE(contains(contradicts.err, "-data_shape gives input 'data' the shape [1,3,16,16]")) << contradicts;
}

TEST(CliBenchmarkApp, BadShapesAreClearErrors) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"-shape", "data[1,3,x,32]"}, "'x' is not a dimension"},
        {{"-shape", "data[1,3"}, "is not NAME[d0,d1,...] or [d0,d1,...]"},
        {{"-shape", "[1,3,32]"}, "the input has rank 4"},
        {{"-shape", "pixels[1,3,32,32]"}, "names input 'pixels', which the model does not have; its inputs are: data"},
        {{"-b", "-2"}, "-b must be a positive batch size"},
    };
    for (const auto& [args, message] : cases) {
        const CliResult r = benchmark(args);
        expect_clean_error(r);
        EXPECT_TRUE(contains(r.err, message)) << message << "\n" << r;
    }
}

// ---------------------------------------------------------------------------------------------
// Device properties

TEST(CliBenchmarkApp, TuningFlagsReachTheDevicesOfHetero) {
    const CliResult r = benchmark({"-nstreams", "1", "-nthreads", "1", "-infer_precision", "f32"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "\"ACCEL\":{\"INFERENCE_NUM_THREADS\":\"1\",\"INFERENCE_PRECISION_HINT\":\"f32\","
                                "\"NUM_STREAMS\":\"1\"}"))
        << r;

    // ACCEL alone gets a value it refuses: the error comes from ACCEL, so the value got there.
    const CliResult refused = benchmark({"-nstreams", "ACCEL:0,REFERENCE:1"});
    expect_clean_error(refused, false);
    EXPECT_TRUE(contains(refused.err, "property 'NUM_STREAMS' of device 'ACCEL'")) << refused;
}

TEST(CliBenchmarkApp, APropertyADeviceRefusesIsAnErrorNotIgnored) {
    const CliResult r = benchmark({"-infer_precision", "f16"});
    expect_clean_error(r, false);
    EXPECT_TRUE(contains(r.err, "INFERENCE_PRECISION_HINT")) << r;
    EXPECT_TRUE(contains(r.err, "\"f16\"")) << r;

    const CliResult plain = run_mosaic(
        {"benchmark", "-m", default_model(), "-d", "REFERENCE", "-niter", "1", "-infer_precision", "f16"});
    expect_clean_error(plain, false);
    EXPECT_TRUE(contains(plain.err, "property 'INFERENCE_PRECISION_HINT' of device 'REFERENCE'")) << plain;
}

TEST(CliBenchmarkApp, PerDeviceValueForADeviceNotInTheStringIsAnError) {
    const CliResult r = benchmark({"-nstreams", "ACCEL:1,GPU:2"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "-nstreams 'ACCEL:1,GPU:2' names device 'GPU'")) << r;
    EXPECT_TRUE(contains(r.err, "its devices are: ACCEL, REFERENCE")) << r;
}

// ---------------------------------------------------------------------------------------------
// Performance counters

// The realTime of each counter line of the first request's table.
std::vector<long long> real_times(const std::string& out, const std::string& heading, bool& all_executed) {
    const std::regex record("^.+: (EXECUTED|NOT_RUN|OPTIMIZED_OUT) layerType: \\S+ realTime: ([0-9]+) cpu: [0-9]+ "
                            "execType: .*$");
    std::vector<long long> times;
    all_executed = true;
    bool in_table = false;
    for (const auto& line : lines_of(out)) {
        if (line == heading) {
            in_table = true;
        } else if (in_table && line.rfind("Total time: ", 0) == 0) {
            break;
        }
        std::smatch m;
        if (in_table && std::regex_match(line, m, record)) {
            times.push_back(std::stoll(m[2]));
            all_executed = all_executed && m[1] == "EXECUTED";
        }
    }
    return times;
}

TEST(CliBenchmarkApp, PcPrintsEveryRequestsCounters) {
    const CliResult r = benchmark({"-nireq", "2", "-pc"});
    ASSERT_EQ(r.exit_code, 0) << r;
    bool executed = false;
    EXPECT_FALSE(real_times(r.out, "Performance counts for 0-th infer request:", executed).empty()) << r;
    EXPECT_FALSE(real_times(r.out, "Performance counts for 1-th infer request:", executed).empty()) << r;
    EXPECT_TRUE(contains(r.out, "subgraph0: conv1: EXECUTED layerType: Convolution")) << r;
}

TEST(CliBenchmarkApp, PcsortOrdersByRealTime) {
    for (const std::string order : {"sort", "simple_sort"}) {
        const CliResult r = benchmark({"-nireq", "1", "-pcsort", order});
        ASSERT_EQ(r.exit_code, 0) << r;
        bool executed = false;
        const auto times = real_times(r.out, "Sort performance counts for 0-th infer request:", executed);
        ASSERT_GT(times.size(), 3u) << r;
        EXPECT_TRUE(std::is_sorted(times.rbegin(), times.rend())) << order << "\n" << r;
        EXPECT_TRUE(contains(r.out, " proportion: ")) << r;
        if (order == "simple_sort") {
            EXPECT_TRUE(executed) << r;
        }
    }
    const CliResult garbage = benchmark({"-pcsort", "fastest"});
    expect_clean_error(garbage);
    EXPECT_TRUE(contains(garbage.err, "-pcsort 'fastest' is not a sort order; use sort, no_sort or simple_sort"))
        << garbage;
}

// ---------------------------------------------------------------------------------------------
// Reports

TEST(CliBenchmarkApp, NoCountersWritesTheStatisticsCsv) {
    TempDir dir;
    const CliResult r = benchmark({"-b", "2", "-report_type", "no_counters", "-report_folder", dir / "reports"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const auto lines = csv_lines(dir / "reports/benchmark_report.csv");
    for (const char* line : {"Command line parameters;", "Configuration setup;", "Execution results;", "b;2;",
                             "d;HETERO:ACCEL,REFERENCE;", "niter;4;", "target device;HETERO:ACCEL,REFERENCE;",
                             "batch size;2;", "total number of iterations;4;", "Percentile boundary;50;"})
        EXPECT_TRUE(has_line(lines, line)) << line << "\n" << read_text(dir / "reports/benchmark_report.csv");
    for (const char* figure : {"read model time (ms);", "compile model time (ms);", "first inference time (ms);",
                               "total execution time (ms);", "Median latency (ms);", "Average latency (ms);",
                               "Min latency (ms);", "Max latency (ms);", "throughput;"})
        EXPECT_TRUE(has_line(lines, figure)) << figure;
    EXPECT_FALSE(std::filesystem::exists(dir / "reports/benchmark_average_counters_report.csv"));
}

// The lines of the counters CSV of `type` after a run with two requests.
std::vector<std::string> counters_csv(const std::string& type) {
    TempDir dir;
    const CliResult r = benchmark({"-nireq", "2", "-report_type", type, "-report_folder", dir.path()});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(std::filesystem::exists(dir / "benchmark_report.csv"));
    return csv_lines(dir / ("benchmark_" + type + "_report.csv"));
}

const std::string kCountersHeader = "layerName;execStatus;layerType;execType;realTime (ms);cpuTime (ms);";

TEST(CliBenchmarkApp, AverageCountersWritesOneTable) {
    const auto lines = counters_csv("average_counters");
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.front(), kCountersHeader);
    EXPECT_TRUE(has_line(lines, "subgraph0: conv1;EXECUTED;Convolution;ref;"));
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("Total;;;;", 0) == 0; }), 1);
}

TEST(CliBenchmarkApp, DetailedCountersWritesATablePerRequest) {
    const auto lines = counters_csv("detailed_counters");
    EXPECT_EQ(std::count(lines.begin(), lines.end(), kCountersHeader), 2);
}

TEST(CliBenchmarkApp, JsonStatsWritesJsonReports) {
    TempDir dir;
    const CliResult r = benchmark(
        {"-report_type", "average_counters", "-report_folder", dir.path(), "-json_stats", "-nireq", "1"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const nlohmann::json stats = nlohmann::json::parse(read_text(dir / "benchmark_report.json"));
    EXPECT_EQ(stats.at("cmd_options").at("report_type"), "average_counters");
    EXPECT_EQ(stats.at("configuration_setup").at("target_device"), kHetero);
    EXPECT_EQ(stats.at("execution_results").at("iterations_num"), 4);
    EXPECT_NEAR(stats.at("execution_results").at("throughput").get<double>(), figures(r.out).fps, 0.01) << r;
    const nlohmann::json counters = nlohmann::json::parse(read_text(dir / "benchmark_average_counters_report.json"));
    EXPECT_EQ(counters.at("report_type"), "average");
    EXPECT_FALSE(counters.at("avg_performance").at("nodes").empty());
    EXPECT_FALSE(std::filesystem::exists(dir / "benchmark_report.csv")) << "JSON replaces CSV, as in benchmark_app";
}

TEST(CliBenchmarkApp, UnknownReportTypeIsAClearError) {
    const CliResult r = benchmark({"-report_type", "everything"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "-report_type 'everything' is not a report type; use no_counters, average_counters "
                                "or detailed_counters"))
        << r;
}

// ---------------------------------------------------------------------------------------------
// query --config

TEST(CliQueryConfig, ConfigFileReachesTheDevices) {
    TempDir dir;
    write_text(dir / "config.json", R"({"ACCEL": {"SUPPORTED_OPS": "Convolution"}})");
    const CliResult plain = run_mosaic({"query", "-m", default_model(), "-d", kHetero});
    const CliResult configured = run_mosaic({"query", "-m", default_model(), "-d", kHetero, "--config", dir / "config.json"});
    ASSERT_EQ(plain.exit_code, 0) << plain;
    ASSERT_EQ(configured.exit_code, 0) << configured;
    EXPECT_TRUE(contains(plain.out, "conv1/relu (Relu): ACCEL")) << plain;
    EXPECT_TRUE(contains(configured.out, "conv1/relu (Relu): REFERENCE")) << configured;
    EXPECT_TRUE(contains(configured.out, "conv1 (Convolution): ACCEL")) << configured;

    write_text(dir / "unknown.json", R"({"NO_SUCH_KEY": 1})");
    const CliResult bad = run_mosaic({"query", "-m", default_model(), "-d", "REFERENCE", "--config", dir / "unknown.json"});
    expect_clean_error(bad);
    EXPECT_TRUE(contains(bad.err, "no property 'NO_SUCH_KEY'")) << bad;
}

}  // namespace
}  // namespace mosaic::cli_test
