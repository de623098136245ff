// The HETERO side of the mosaic command line, run as a separate process on the bundled default
// model with HETERO:ACCEL,REFERENCE: query --explain, the "Split:" line of run and benchmark,
// per-subgraph and transfer counters, and visualize (.dot and .svg files, and its clear errors).
// The default model's head (flatten = Reshape, fc = MatMul, prob = Softmax) is beyond ACCEL, so
// HETERO always splits it across both devices.
#include "cli_runner.hpp"

#include "tools/mosaic/split_summary.hpp"

#include <mosaic/mosaic.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <regex>

namespace mosaic::cli_test {
namespace {

const std::string kHetero = "HETERO:ACCEL,REFERENCE";
const std::string kNeedsHetero = "visualize needs a HETERO device string, e.g. HETERO:ACCEL,REFERENCE";

// The indented lines printed under the op line that starts with `op_line`, without the indent.
std::vector<std::string> lines_under(const std::string& out, const std::string& op_line) {
    const auto lines = lines_of(out);
    std::vector<std::string> under;
    auto it = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(op_line, 0) == 0; });
    if (it == lines.end()) return under;
    for (++it; it != lines.end() && it->rfind("    ", 0) == 0; ++it) under.push_back(it->substr(4));
    return under;
}

bool any_starts_with(const std::vector<std::string>& lines, const std::string& prefix) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The first line of `out` that matches `pattern` entirely, or "".
std::string line_matching(const std::string& out, const std::regex& pattern) {
    for (const auto& line : lines_of(out))
        if (std::regex_match(line, pattern)) return line;
    return "";
}

const std::regex kSplitLine(
    "^Split: ([A-Z]+ [0-9]+ ops?)(, [A-Z]+ [0-9]+ ops?)*; [0-9]+ subgraphs?; [0-9]+ bytes? cross(es)? devices per "
    "inference$");

// ---------------------------------------------------------------------------------------------
// The summary line itself (no plugin needed)

TEST(CliHeteroSplitSummary, FormatsDevicesSubgraphsAndBytes) {
    const PropertyValue split = nlohmann::json::parse(R"({
        "placement": "GREEDY",
        "devices": [{"device": "ACCEL", "ops": 9, "subgraphs": 2}, {"device": "NPU", "ops": 0, "subgraphs": 0},
                    {"device": "REFERENCE", "ops": 5, "subgraphs": 2}],
        "subgraphs": [{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}],
        "transfers": [], "transfer_bytes": 12288, "affinity": {}})");
    EXPECT_EQ(cli::format_split_summary(split),
              "Split: ACCEL 9 ops, REFERENCE 5 ops; 4 subgraphs; 12288 bytes cross devices per inference");
}

TEST(CliHeteroSplitSummary, SingularsAndMissingFields) {
    EXPECT_EQ(cli::format_split_summary(nlohmann::json::parse(
                  R"({"devices": [{"device": "ACCEL", "ops": 1}], "subgraphs": [{}], "transfer_bytes": 0})")),
              "Split: ACCEL 1 op; 1 subgraph; 0 bytes cross devices per inference");
    EXPECT_EQ(cli::format_split_summary(nlohmann::json::object()),
              "Split: no ops; 0 subgraphs; 0 bytes cross devices per inference");
}

// ---------------------------------------------------------------------------------------------
// query --explain

TEST(CliHeteroQuery, ExplainShowsChosenLinesAndWhyAccelRejectsReshape) {
    const CliResult r = run_mosaic({"query", "-m", default_model(), "-d", kHetero, "--explain"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "conv1 (Convolution): ACCEL")) << r;
    EXPECT_TRUE(contains(r.out, "flatten (Reshape): REFERENCE")) << r;
    EXPECT_FALSE(contains(r.out, "no explanation")) << r;

    const auto conv = lines_under(r.out, "conv1 (Convolution): ");
    EXPECT_TRUE(any_starts_with(conv, "chosen: ACCEL")) << r;

    // flatten: ACCEL, first in priority, says why not; then the choice.
    const auto flatten = lines_under(r.out, "flatten (Reshape): ");
    EXPECT_TRUE(std::any_of(flatten.begin(), flatten.end(), [](const std::string& l) {
        return l.rfind("ACCEL: ", 0) == 0 && contains(l, "Reshape");
    })) << r;
    EXPECT_TRUE(any_starts_with(flatten, "chosen: REFERENCE")) << r;
}

TEST(CliHeteroQuery, ExplainJsonHasAnExplanationPerOp) {
    const CliResult r = run_mosaic({"query", "-m", default_model(), "-d", kHetero, "--explain", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("affinity").at("conv1"), "ACCEL");
    EXPECT_EQ(j.at("affinity").at("flatten"), "REFERENCE");
    EXPECT_TRUE(j.at("unsupported").empty()) << r;
    ASSERT_TRUE(j.contains("explanation")) << r;
    const nlohmann::json& explanation = j.at("explanation");
    ASSERT_TRUE(explanation.is_object()) << r;
    ASSERT_TRUE(explanation.contains("flatten")) << r;
    const std::string flatten = explanation.at("flatten").get<std::string>();
    EXPECT_TRUE(contains(flatten, "ACCEL: ")) << flatten;
    EXPECT_TRUE(contains(flatten, "chosen: REFERENCE")) << flatten;
}

TEST(CliHeteroQuery, ExplainOnAPlainDeviceSaysSoOnce) {
    const CliResult r = run_mosaic({"query", "-m", default_model(), "-d", "REFERENCE", "--explain"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const std::string note = "(no explanation: REFERENCE is not an orchestrator)";
    const size_t at = r.out.find(note);
    ASSERT_NE(at, std::string::npos) << r;
    EXPECT_EQ(r.out.find(note, at + 1), std::string::npos) << r;
    EXPECT_TRUE(contains(r.out, "conv1 (Convolution): REFERENCE")) << r;

    const CliResult j = run_mosaic({"query", "-m", default_model(), "-d", "REFERENCE", "--explain", "--json"});
    ASSERT_EQ(j.exit_code, 0) << j;
    const nlohmann::json parsed = nlohmann::json::parse(j.out);
    EXPECT_TRUE(parsed.at("explanation").is_object()) << j;
    EXPECT_TRUE(parsed.at("explanation").empty()) << j;
}

TEST(CliHeteroQuery, WithoutExplainTheOutputIsUnchanged) {
    const CliResult r = run_mosaic({"query", "-m", default_model(), "-d", kHetero, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_FALSE(nlohmann::json::parse(r.out).contains("explanation")) << r;
}

// ---------------------------------------------------------------------------------------------
// run and benchmark

TEST(CliHeteroRun, PrintsTheSplitLineAfterCompiling) {
    const CliResult r = run_mosaic({"run", "-m", default_model(), "-d", kHetero});
    ASSERT_EQ(r.exit_code, 0) << r;
    const auto lines = lines_of(r.out);
    const auto compiled = std::find_if(lines.begin(), lines.end(),
                                       [](const std::string& l) { return l.rfind("Compiled in ", 0) == 0; });
    ASSERT_NE(compiled, lines.end()) << r;
    ASSERT_NE(compiled + 1, lines.end()) << r;
    EXPECT_TRUE(std::regex_match(*(compiled + 1), kSplitLine)) << r;
    EXPECT_TRUE(contains(*(compiled + 1), "ACCEL ")) << r;
    EXPECT_TRUE(contains(*(compiled + 1), "REFERENCE ")) << r;

    // The same line as the library's HETERO_SPLIT gives in process.
    Core core(build_registry());
    const CompiledModel in_process = core.compile_model(default_model(), kHetero);
    EXPECT_EQ(*(compiled + 1), cli::split_summary(in_process)) << r;
}

TEST(CliHeteroRun, SameOutputsAsReference) {
    const CliResult hetero = run_mosaic({"run", "-m", default_model(), "-d", kHetero});
    const CliResult reference = run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE"});
    ASSERT_EQ(hetero.exit_code, 0) << hetero;
    ASSERT_EQ(reference.exit_code, 0) << reference;
    const std::regex values("^    values:.*$");
    EXPECT_FALSE(line_matching(hetero.out, values).empty()) << hetero;
    EXPECT_EQ(line_matching(hetero.out, values), line_matching(reference.out, values));
}

TEST(CliHeteroRun, PlainDevicePrintsNoSplitLine) {
    const CliResult r = run_mosaic({"run", "-m", default_model(), "-d", "REFERENCE"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_FALSE(contains(r.out, "Split:")) << r;
}

TEST(CliHeteroRun, PerfCountersPerSubgraphAndTransfer) {
    const CliResult r = run_mosaic({"run", "-m", default_model(), "-d", kHetero, "-pc"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const std::regex record(
        "^(.+): (EXECUTED|NOT_RUN|OPTIMIZED_OUT) layerType: (\\S+) realTime: ([0-9]+) cpu: ([0-9]+) execType: (.*)$");
    const std::regex transfer_name("^transfer: \\S+ subgraph[0-9]+ \\([A-Z]+\\) -> subgraph[0-9]+ \\([A-Z]+\\), "
                                   "[0-9]+ bytes$");
    const std::regex total("^Total time: ([0-9]+) microseconds$");
    long long sum = 0, reported = -1;
    bool conv_in_subgraph0 = false, transfer = false;
    for (const auto& line : lines_of(r.out)) {
        std::smatch m;
        if (std::regex_match(line, m, record)) {
            sum += std::stoll(m[4]);
            const std::string name = m[1];
            if (name == "subgraph0: conv1" && m[3] == "Convolution") conv_in_subgraph0 = true;
            if (name.rfind("transfer: ", 0) == 0) {
                transfer = true;
                EXPECT_TRUE(std::regex_match(name, transfer_name)) << line;
                EXPECT_EQ(m[3], "Transfer") << line;
                EXPECT_EQ(m[6], "zero-copy") << line;  // REFERENCE-backed devices read the host tensor in place
                EXPECT_EQ(m[2], "EXECUTED") << line;
            }
        } else if (std::regex_match(line, m, total)) {
            reported = std::stoll(m[1]);
        }
    }
    EXPECT_TRUE(contains(r.out, "\nsubgraph0: ")) << r;
    EXPECT_TRUE(conv_in_subgraph0) << r;
    EXPECT_TRUE(transfer) << r;
    EXPECT_EQ(reported, sum) << r;
}

TEST(CliHeteroBenchmark, PrintsTheSplitLine) {
    const CliResult r = run_mosaic({"benchmark", "-m", default_model(), "-d", kHetero, "-niter", "2", "-nireq", "1"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_FALSE(line_matching(r.out, kSplitLine).empty()) << r;
    EXPECT_TRUE(contains(r.out, "Count: 2 iterations")) << r;
}

// ---------------------------------------------------------------------------------------------
// visualize

TEST(CliHeteroVisualize, WritesDotAndSvgFilesIntoANewFolder) {
    TempDir dir;
    const std::string out = dir / "pictures/nested";  // does not exist yet
    const CliResult r = run_mosaic({"visualize", "-m", default_model(), "-d", kHetero, "-o", out});
    ASSERT_EQ(r.exit_code, 0) << r;
    for (const char* kind : {"affinity", "subgraphs"}) {
        const std::string base = out + "/hetero_" + kind + "_mosaic_cnn";
        EXPECT_TRUE(contains(r.out, "Wrote " + base + ".dot")) << r;
        EXPECT_TRUE(contains(r.out, "Wrote " + base + ".svg")) << r;
        const std::string dot = read_text(base + ".dot");
        EXPECT_TRUE(contains(dot, "digraph")) << base << ".dot:\n" << dot;
        const std::string svg = read_text(base + ".svg");
        EXPECT_TRUE(svg.rfind("<?xml", 0) == 0 || contains(svg, "<svg")) << base << ".svg:\n" << svg.substr(0, 200);
    }
    EXPECT_TRUE(contains(read_text(out + "/hetero_affinity_mosaic_cnn.dot"), "conv1"));
    EXPECT_FALSE(line_matching(r.out, kSplitLine).empty()) << r;
}

TEST(CliHeteroVisualize, ConfigFileReachesHetero) {
    TempDir dir;
    // The default model needs more than one subgraph on HETERO:ACCEL,REFERENCE.
    write_text(dir / "config.json", R"({"HETERO_MAX_SUBGRAPHS": 1})");
    const CliResult r = run_mosaic(
        {"visualize", "-m", default_model(), "-d", kHetero, "-o", dir / "out", "--config", dir / "config.json"});
    expect_clean_error(r, false);
    EXPECT_TRUE(contains(lower(r.err), "subgraph")) << r;
}

TEST(CliHeteroVisualize, ReferenceAloneIsNotHetero) {
    TempDir dir;
    const CliResult r = run_mosaic({"visualize", "-m", default_model(), "-d", "REFERENCE", "-o", dir / "out"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, kNeedsHetero)) << r;
    EXPECT_TRUE(contains(r.err, "'REFERENCE'")) << r;
    EXPECT_FALSE(std::filesystem::exists(dir / "out")) << "nothing is written for a device that is not HETERO";
}

TEST(CliHeteroVisualize, DeviceThatCannotRunTheModelIsNotHeteroEither) {
    TempDir dir;
    const CliResult r = run_mosaic({"visualize", "-m", default_model(), "-d", "ACCEL", "-o", dir / "out"});
    expect_clean_error(r, false);
    EXPECT_EQ(r.err.rfind("mosaic: error: " + kNeedsHetero, 0), 0u) << r;
}

TEST(CliHeteroVisualize, MissingModelFile) {
    TempDir dir;
    const CliResult r = run_mosaic({"visualize", "-m", dir / "nothing.xml", "-d", kHetero, "-o", dir / "out"});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "model file '" + (dir / "nothing.xml") + "' does not exist")) << r;
}

TEST(CliHeteroVisualize, OutputFolderIsRequired) {
    const CliResult r = run_mosaic({"visualize", "-m", default_model(), "-d", kHetero});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "--output-dir")) << r;
}

TEST(CliHeteroVisualize, WithoutGraphvizKeepsTheDotFilesAndSaysWhatToInstall) {
    TempDir dir, empty_path;
    const CliResult r = run_mosaic({"visualize", "-m", default_model(), "-d", kHetero, "-o", dir / "out"},
                                   {{"PATH", empty_path.path()}});
    expect_clean_error(r);
    const std::string dot = dir / "out/hetero_affinity_mosaic_cnn.dot";
    EXPECT_TRUE(contains(r.err, "'" + dot + "'")) << r;
    EXPECT_TRUE(contains(r.err, "install graphviz")) << r;
    EXPECT_TRUE(std::filesystem::exists(dot)) << r;
    EXPECT_FALSE(std::filesystem::exists(dir / "out/hetero_affinity_mosaic_cnn.svg")) << r;
}

TEST(CliHeteroVisualize, FailingDotIsReportedWithWhatItSaid) {
    TempDir dir, fake_bin;
    // A `dot` that fails the way Graphviz does on a bad file.
    write_text(fake_bin / "dot", "#!/bin/sh\necho 'Error: syntax error in line 3 near ->' >&2\nexit 1\n");
    std::filesystem::permissions(fake_bin / "dot", std::filesystem::perms::owner_all);
    const CliResult r = run_mosaic({"visualize", "-m", default_model(), "-d", kHetero, "-o", dir / "out"},
                                   {{"PATH", fake_bin.path()}});
    expect_clean_error(r);
    EXPECT_TRUE(contains(r.err, "'" + (dir / "out/hetero_affinity_mosaic_cnn.dot") + "'")) << r;
    EXPECT_TRUE(contains(r.err, "exit code 1")) << r;
    EXPECT_TRUE(contains(r.err, "syntax error in line 3")) << r;
    EXPECT_TRUE(contains(r.err, "graphviz")) << r;
    EXPECT_FALSE(std::filesystem::exists(dir / "out/hetero_affinity_mosaic_cnn.svg")) << r;
}

TEST(CliHeteroGeneral, HelpListsVisualize) {
    const CliResult r = run_mosaic({"--help"});
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "visualize")) << r;
}

}  // namespace
}  // namespace mosaic::cli_test

// ---- plan ----

namespace mosaic::cli_test {
namespace {

TEST(CliHeteroPlan, TablesOfDevicesSubgraphsAndCrossingsWithoutCompiling) {
    const CliResult r = run_mosaic({"plan", "-m", default_model(), "-d", kHetero});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(contains(r.out, "Placement: GREEDY")) << r;
    const auto lines = lines_of(r.out);
    EXPECT_TRUE(any_starts_with(lines, "ACCEL ")) << r;
    EXPECT_TRUE(any_starts_with(lines, "REFERENCE ")) << r;
    EXPECT_TRUE(contains(r.out, "Subgraphs:")) << r;
    EXPECT_TRUE(contains(r.out, "  0  ACCEL")) << r;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("Crossings: [1-9][0-9]*, [1-9][0-9]* bytes per inference"))) << r;
    EXPECT_TRUE(contains(r.out, "(reports no memory)")) << "REFERENCE has no memory_info: " << r;
}

TEST(CliHeteroPlan, JsonIsTheShapeOfHeteroSplit) {
    const CliResult r = run_mosaic({"plan", "-m", default_model(), "-d", kHetero, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r;
    const nlohmann::json plan = nlohmann::json::parse(r.out);
    Core core;
    CompiledModel compiled = core.compile_model(core.read_model(default_model()), kHetero);
    const nlohmann::json split = compiled.get_property("HETERO_SPLIT");
    EXPECT_EQ(plan["affinity"], split["affinity"]);
    EXPECT_EQ(plan["subgraphs"], split["subgraphs"]);
    EXPECT_EQ(plan["transfers"], split["transfers"]);
    ASSERT_EQ(plan["memory"].size(), 2u);
    EXPECT_GT(plan["memory"][0]["weights_bytes"].get<uint64_t>(), 0u) << plan["memory"].dump();
}

TEST(CliHeteroPlan, APlainDeviceAndAPlanThatCannotBeHonouredAreErrors) {
    const CliResult plain = run_mosaic({"plan", "-m", default_model(), "-d", "REFERENCE"});
    expect_clean_error(plain);
    EXPECT_TRUE(contains(plain.err, "device 'REFERENCE' has no plan to show")) << plain;
    TempDir dir;
    write_text(dir / "config.json", R"({"HETERO": {"HETERO_AFFINITY_PATTERNS": {"^fc$": "ACCEL"}}})");
    const CliResult bad = run_mosaic({"plan", "-m", default_model(), "-d", kHetero, "--config", dir / "config.json"});
    expect_clean_error(bad);
    EXPECT_TRUE(contains(bad.err, "op 'fc' (MatMul) matches a HETERO_AFFINITY_PATTERNS pattern for ACCEL")) << bad;
}

}  // namespace
}  // namespace mosaic::cli_test
