// mosaic generate on an LLM folder (tools/models/make_llm_models.py): the streamed text is
// transformers' greedy continuation, --json carries the text and the figures, and bad input ends
// as one error line. mosaic benchmark's LLM mode on the same folder: the figures of its rounds.
#include "cli_runner.hpp"
#include "onnx/exporter_models.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace mosaic::test {
namespace {

using namespace cli_test;

std::filesystem::path llm_folder() {
    return generated_model("llm_models", "llm_qwen2_ov", "make_llm_models.py", "--only qwen2_ov", torch_exporter_python(),
                           "generate.json");
}

// Each command ends with exit code 1 and an error line that says `says`.
struct ErrorCase {
    std::vector<std::string> args;
    std::string says;
};
void expect_errors(const std::vector<ErrorCase>& cases) {
    for (const ErrorCase& c : cases) {
        const CliResult r = run_mosaic(c.args);
        EXPECT_EQ(r.exit_code, 1) << r;
        EXPECT_NE(r.err.find("mosaic: error:"), std::string::npos) << r;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << c.says << "\n" << r;
    }
}

TEST(CliGenerate, StreamsTransformersTextThenTheFigures) {
    const auto folder = llm_folder();
    if (folder.empty()) GTEST_SKIP() << "the exporters' venv is needed for llm_qwen2_ov (scripts/install_model_exporters.sh)";
    std::ifstream in(folder / "generate.json");
    const nlohmann::json prompt = nlohmann::json::parse(in)["prompts"][0];
    const CliResult r = run_mosaic({"generate", "-m", folder.string(), "-d", "CPU", "-p", prompt["text"], "-n", "64"});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.out.rfind(prompt["generated_text"].get<std::string>() + "\n", 0), 0u) << r;
    for (const char* line : {"Time to first token:", "Decode:", "tokens/s", "Peak memory:", "generated tokens: 64"})
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r;

    const CliResult j = run_mosaic({"generate", "-m", folder.string(), "-p", prompt["text"], "-n", "8", "--json"});
    ASSERT_EQ(j.exit_code, 0) << j;
    const nlohmann::json out = nlohmann::json::parse(j.out);
    EXPECT_EQ(out["tokens"], 8);
    EXPECT_EQ(prompt["generated_text"].get<std::string>().rfind(out["text"].get<std::string>(), 0), 0u) << j;
    for (const char* key : {"ttft_ms", "decode_tokens_per_s", "peak_rss_mib"}) EXPECT_TRUE(out[key].is_number()) << key;
}

TEST(CliGenerate, BadInputIsOneErrorLine) {
    const auto folder = llm_folder();
    if (folder.empty()) GTEST_SKIP() << "the exporters' venv is needed for llm_qwen2_ov (scripts/install_model_exporters.sh)";
    std::vector<ErrorCase> cases = {
        {{"-n", "0"}, "max_new_tokens is 0"},
        {{"--temperature", "0"}, "temperature"},
        {{"--top-p", "1.5"}, "top_p"},
    };
    for (ErrorCase& c : cases) c.args.insert(c.args.begin(), {"generate", "-m", folder.string(), "-p", "Hello"});
    expect_errors(cases);
    const CliResult missing = run_mosaic({"generate", "-m", "/nonexistent/llm", "-p", "Hello"});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.err.find("/nonexistent/llm is not a folder"), std::string::npos) << missing;
}

TEST(CliBenchmarkLlm, PrintsTheRoundsFiguresAndWritesTheReport) {
    const auto folder = llm_folder();
    if (folder.empty()) GTEST_SKIP() << "the exporters' venv is needed for llm_qwen2_ov (scripts/install_model_exporters.sh)";
    TempDir dir;
    const std::string report = dir / "llm.json";
    const CliResult r = run_mosaic({"benchmark", "-m", folder.string(), "-d", "CPU", "--prompt_length", "20",
                                    "--new_tokens", "8", "-niter", "2", "-nthreads", "1", "--report", report});
    ASSERT_EQ(r.exit_code, 0) << r;
    for (const char* line : {"prompt of 20 tokens, 8 new tokens, 2 rounds", "Load time:", "TTFT:", "TPOT:",
                             "Throughput:", "tokens/s", "Peak memory:"})
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r;
    std::ifstream in(report);
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j["prompt_tokens"], 20);
    EXPECT_EQ(j["new_tokens"], 8);
    EXPECT_EQ(j["rounds"], 2);
    EXPECT_GT(j["tpot_ms"]["mean"].get<double>(), 0) << j.dump();
    EXPECT_GT(j["ttft_ms"]["mean"].get<double>(), 0) << j.dump();
    EXPECT_GT(j["decode_tokens_per_s"]["mean"].get<double>(), 0) << j.dump();
}

// --requests N: N requests decoded together (ContinuousBatchingPipeline), their tokens/s together.
TEST(CliBenchmarkLlm, RequestsTogetherReportTheirThroughput) {
    const auto folder = llm_folder();
    if (folder.empty()) GTEST_SKIP() << "the exporters' venv is needed for llm_qwen2_ov (scripts/install_model_exporters.sh)";
    TempDir dir;
    const std::string report = dir / "batched.json";
    const CliResult r = run_mosaic({"benchmark", "-m", folder.string(), "-d", "CPU", "--prompt_length", "12",
                                    "--new_tokens", "6", "-niter", "1", "--requests", "3", "--report", report});
    ASSERT_EQ(r.exit_code, 0) << r;
    for (const char* line : {"3 requests together (continuous batching)", "Generate time (all requests):",
                             "Throughput (all requests, prompts included):"})
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r;
    std::ifstream in(report);
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j["requests"], 3);
    EXPECT_GT(j["tokens_per_s"]["mean"].get<double>(), 0) << j.dump();
}

TEST(CliBenchmarkLlm, FlagsOfTheOtherModeAreRefused) {
    const auto folder = llm_folder();
    if (folder.empty()) GTEST_SKIP() << "the exporters' venv is needed for llm_qwen2_ov (scripts/install_model_exporters.sh)";
    expect_errors({
        {{"benchmark", "-m", folder.string(), "-d", "CPU", "-t", "5"}, "is a folder: an LLM"},
        {{"benchmark", "-m", folder.string(), "-d", "CPU", "--new_tokens", "0"}, "--new_tokens must be at least 1"},
        {{"benchmark", "-m", folder.string(), "-d", "CPU", "--prompt_length", "0"}, "--prompt_length must be at least 1"},
        {{"benchmark", "-m", default_model(), "-d", "CPU", "--new_tokens", "4"}, "are for an LLM folder"},
        {{"benchmark", "-m", folder.string(), "-d", "CPU", "--requests", "0"}, "--requests must be 1 to 1024"},
        {{"benchmark", "-m", default_model(), "-d", "CPU", "--requests", "2"}, "are for an LLM folder"},
    });
}

// mosaic plan on an LLM folder: the decoder as the pipeline compiles it, its KV cache planned at the
// model's longest sequence (256 positions) or at KV_CACHE_PLAN_LENGTH, spread over the devices.
TEST(CliPlanLlm, TheKvCacheIsPlannedAtItsLongestLength) {
    const auto folder = llm_folder();
    if (folder.empty()) GTEST_SKIP() << "the exporters' venv is needed for llm_qwen2_ov (scripts/install_model_exporters.sh)";
    TempDir dir;
    auto state = [&](const std::string& config) {
        write_text(dir / "config.json", config);
        const CliResult r = run_mosaic({"plan", "-m", folder.string(), "-d", "HETERO:GPU,CPU", "--json", "--config",
                                        dir / "config.json", "--prompt_length", "16"});
        EXPECT_EQ(r.exit_code, 0) << r;
        const nlohmann::json plan = nlohmann::json::parse(r.out);
        uint64_t bytes = 0;
        for (const auto& d : plan.at("memory")) bytes += d.at("state_bytes").get<uint64_t>();
        return bytes;
    };
    // Two layers, keys and values, two KV heads of 16 floats, 256 positions.
    EXPECT_EQ(state(R"({"MODEL_DISTRIBUTION_POLICY": "PIPELINE_PARALLEL"})"), 2u * 2 * 2 * 16 * 4 * 256);
    EXPECT_EQ(state(R"({"MODEL_DISTRIBUTION_POLICY": "PIPELINE_PARALLEL", "KV_CACHE_PLAN_LENGTH": 512})"), 2u * 2 * 2 * 16 * 4 * 512);
    const CliResult text = run_mosaic({"plan", "-m", folder.string(), "-d", "HETERO:GPU,CPU"});
    EXPECT_EQ(text.exit_code, 0) << text;
    EXPECT_NE(text.out.find("Subgraphs:"), std::string::npos) << text;
}

}  // namespace
}  // namespace mosaic::test
