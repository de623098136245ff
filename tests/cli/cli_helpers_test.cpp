// The pieces of the mosaic CLI that need no device: argument spelling, --config and --input
// parsing, output file names, deterministic inputs, the output summary and the -pc layout.
#include "tools/mosaic/args.hpp"
#include "tools/mosaic/common.hpp"
#include "tools/mosaic/config_file.hpp"
#include "tools/mosaic/fill.hpp"
#include "tools/mosaic/inputs.hpp"
#include "tools/mosaic/outputs.hpp"
#include "tools/mosaic/profiling.hpp"
#include "tools/mosaic/statistics.hpp"
#include "tools/mosaic/summary.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <iterator>
#include <sstream>

namespace mosaic::cli {
namespace {

TEST(CliArgs, OpenVinoSingleDashSpellings) {
    const char* argv[] = {"mosaic", "benchmark", "-niter", "5", "-nireq=2", "-api", "sync", "-hint", "latency",
                          "-pc", "-load_config", "c.json", "-m", "-niter.xml", "-t", "3"};
    const auto args = normalize_args(static_cast<int>(std::size(argv)), argv);
    const std::vector<std::string> expected{"benchmark", "--niter", "5", "--nireq=2", "--api", "sync",
                                            "--hint",    "latency", "--pc", "--config", "c.json", "-m",
                                            "-niter.xml", "-t", "3"};
    EXPECT_EQ(args, expected);
}

TEST(CliConfig, FlatProperties) {
    const AnyMap p = parse_config(R"({"PERF_COUNT": true, "NUM_STREAMS": 2})", "REFERENCE", "c.json");
    EXPECT_EQ(p.at("PERF_COUNT"), true);
    EXPECT_EQ(p.at("NUM_STREAMS"), 2);
    EXPECT_EQ(p.size(), 2u);
}

TEST(CliConfig, SectionOfTheDeviceIsMerged) {
    const AnyMap p = parse_config(R"({"REFERENCE": {"PERF_COUNT": true}, "INFERENCE_NUM_THREADS": 1})",
                                  "REFERENCE", "c.json");
    EXPECT_EQ(p.at("PERF_COUNT"), true);
    EXPECT_EQ(p.at("INFERENCE_NUM_THREADS"), 1);
    EXPECT_FALSE(p.count("REFERENCE"));
    EXPECT_FALSE(p.count("DEVICE_PROPERTIES"));
}

TEST(CliConfig, SectionsOfOtherDevicesAreIgnoredForAPlainDevice) {
    const AnyMap p = parse_config(R"({"ACCEL": {"PERF_COUNT": true}})", "REFERENCE", "c.json");
    EXPECT_TRUE(p.empty());
}

TEST(CliConfig, SubDeviceSectionsBecomeDeviceProperties) {
    const AnyMap p = parse_config(
        R"({"HETERO": {"PERF_COUNT": true}, "ACCEL": {"NUM_STREAMS": 2}, "REFERENCE": {"PERF_COUNT": false},
            "DEVICE_PROPERTIES": {"ACCEL": {"INFERENCE_NUM_THREADS": 1}}})",
        "HETERO:ACCEL,REFERENCE", "c.json");
    EXPECT_EQ(p.at("PERF_COUNT"), true);
    const PropertyValue& dp = p.at("DEVICE_PROPERTIES");
    EXPECT_EQ(dp.at("ACCEL").at("NUM_STREAMS"), 2);
    EXPECT_EQ(dp.at("ACCEL").at("INFERENCE_NUM_THREADS"), 1);
    EXPECT_EQ(dp.at("REFERENCE").at("PERF_COUNT"), false);
}

TEST(CliConfig, Malformed) {
    try {
        parse_config("{\"PERF_COUNT\": ", "REFERENCE", "bad.json");
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
    }
    EXPECT_THROW(parse_config("42", "REFERENCE", "bad.json"), UsageError);
    EXPECT_THROW(parse_config("", "REFERENCE", "bad.json"), UsageError);
}

TEST(CliInputs, Spec) {
    const InputSpec s = parse_input_spec("data=dir/with=sign.npy");
    EXPECT_EQ(s.name, "data");
    EXPECT_EQ(s.path, "dir/with=sign.npy");
    const InputSpec unnamed = parse_input_spec("photo.png");  // the model's only input
    EXPECT_EQ(unnamed.name, "");
    EXPECT_EQ(unnamed.path, "photo.png");
    EXPECT_THROW(parse_input_spec(""), UsageError);
    EXPECT_THROW(parse_input_spec("=x.npy"), UsageError);
    EXPECT_THROW(parse_input_spec("data="), UsageError);
}

TEST(CliInputs, TensorCheckNamesEverything) {
    PortDesc port;
    port.name = "image";
    port.type = ElementType::f32;
    port.shape = {1, 3, 8, 8};
    check_input_tensor(port, Tensor(ElementType::f32, {1, 3, 8, 8}), "ok.npy");
    try {
        check_input_tensor(port, Tensor(ElementType::u8, {1, 8, 8, 3}), "hwc.npy");
        FAIL();
    } catch (const UsageError& e) {
        const std::string msg = e.what();
        for (const char* part : {"'image'", "f32 [1,3,8,8]", "hwc.npy", "u8 [1,8,8,3]", "astype('<f4')"})
            EXPECT_NE(msg.find(part), std::string::npos) << part << " in: " << msg;
    }
    port.shape = {-1, 3, 8, 8};  // a dynamic batch accepts any batch
    check_input_tensor(port, Tensor(ElementType::f32, {4, 3, 8, 8}), "batch.npy");
    EXPECT_THROW(check_input_tensor(port, Tensor(ElementType::f32, {4, 3, 8}), "rank.npy"), UsageError);
}

TEST(CliOutputs, FileNamesAreSanitized) {
    EXPECT_EQ(sanitize_file_name("prob", 0), "prob");
    EXPECT_EQ(sanitize_file_name("model/head:0", 0), "model_head_0");
    EXPECT_EQ(sanitize_file_name("../../etc/passwd", 0), ".._.._etc_passwd");
    EXPECT_EQ(sanitize_file_name("..", 3), "output_3");
    EXPECT_EQ(sanitize_file_name("", 1), "output_1");
    EXPECT_EQ(sanitize_file_name("a b\\c", 0), "a_b_c");
}

TEST(CliFill, DeterministicAndInRange) {
    const Tensor a = deterministic_tensor(ElementType::f32, {2, 50}, input_seed(0));
    const Tensor b = deterministic_tensor(ElementType::f32, {2, 50}, input_seed(0));
    const Tensor c = deterministic_tensor(ElementType::f32, {2, 50}, input_seed(1));
    EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
    EXPECT_NE(a.to_vector<float>(), c.to_vector<float>());
    for (float v : a.to_vector<float>()) {
        EXPECT_GE(v, 0.0f);
        EXPECT_LT(v, 1.0f);
    }
    for (int64_t v : deterministic_tensor(ElementType::i64, {100}, 7).to_vector<int64_t>()) {
        EXPECT_GE(v, 0);
        EXPECT_LE(v, 9);
    }
    for (uint8_t v : deterministic_tensor(ElementType::boolean, {100}, 7).to_vector<uint8_t>()) EXPECT_LE(v, 1);
    const Tensor h = deterministic_tensor(ElementType::f16, {10}, 7);
    for (uint16_t bits : h.to_vector<uint16_t>()) {
        EXPECT_GE(f16_to_f32(bits), 0.0f);
        EXPECT_LE(f16_to_f32(bits), 1.0f);
    }
}

TEST(CliSummary, ClassifierOutput) {
    const Tensor t = Tensor::from_vector<float>({2, 3}, ElementType::f32, {0.1f, 0.7f, 0.2f, 0.5f, 0.25f, 0.25f});
    std::ostringstream out;
    print_tensor_summary(out, "prob", t, 4);
    const std::string s = out.str();
    EXPECT_NE(s.find("Output 'prob': f32 [2,3]"), std::string::npos) << s;
    EXPECT_NE(s.find("values: 0.1 0.7 0.2 0.5 ... (6 in all)"), std::string::npos) << s;
    EXPECT_NE(s.find("min: 0.1 max: 0.7 mean: 0.333333"), std::string::npos) << s;
    EXPECT_NE(s.find("argmax[row 0]: 1 (0.7)"), std::string::npos) << s;
    EXPECT_NE(s.find("argmax[row 1]: 0 (0.5)"), std::string::npos) << s;
    EXPECT_NE(s.find("top-3[row 1]: 0 (0.5) 1 (0.25) 2 (0.25)"), std::string::npos) << s;
}

TEST(CliSummary, IntegerAndNaN) {
    const Tensor i = Tensor::from_vector<int64_t>({3}, ElementType::i64, {-5, 9000000000LL, 2});
    std::ostringstream out;
    print_tensor_summary(out, "idx", i);
    EXPECT_NE(out.str().find("values: -5 9000000000 2"), std::string::npos) << out.str();
    EXPECT_EQ(out.str().find("argmax"), std::string::npos) << out.str();

    const Tensor f = Tensor::from_vector<float>({3}, ElementType::f32, {1.0f, NAN, 3.0f});
    std::ostringstream out2;
    print_tensor_summary(out2, "x", f);
    EXPECT_NE(out2.str().find("min: 1 max: 3 mean: 2"), std::string::npos) << out2.str();
    EXPECT_NE(out2.str().find("NaN values: 1"), std::string::npos) << out2.str();
}

TEST(CliProfiling, BenchmarkAppLayout) {
    std::vector<ProfilingInfo> records(3);
    records[0] = {"conv1", "Convolution", "ref", ProfilingInfo::Status::executed, std::chrono::microseconds(120),
                  std::chrono::microseconds(118)};
    records[1] = {"flatten", "Reshape", "undef", ProfilingInfo::Status::optimized_out, std::chrono::microseconds(0),
                  std::chrono::microseconds(0)};
    records[2] = {"skip", "Relu", "undef", ProfilingInfo::Status::not_run, std::chrono::microseconds(3),
                  std::chrono::microseconds(0)};
    std::ostringstream out;
    print_profiling(out, records);
    EXPECT_EQ(out.str(),
              "conv1: EXECUTED layerType: Convolution realTime: 120 cpu: 118 execType: ref\n"
              "flatten: OPTIMIZED_OUT layerType: Reshape realTime: 0 cpu: 0 execType: undef\n"
              "skip: NOT_RUN layerType: Relu realTime: 3 cpu: 0 execType: undef\n"
              "Total time: 123 microseconds\n");
}

TEST(CliStatistics, Latency) {
    const LatencyStats odd = latency_stats({5, 1, 3});
    EXPECT_DOUBLE_EQ(odd.median, 3);
    EXPECT_DOUBLE_EQ(odd.average, 3);
    EXPECT_DOUBLE_EQ(odd.min, 1);
    EXPECT_DOUBLE_EQ(odd.max, 5);
    EXPECT_DOUBLE_EQ(latency_stats({4, 1, 2, 3}).median, 2.5);
}

TEST(CliCommon, PropertyFormatting) {
    EXPECT_EQ(format_property("LATENCY"), "LATENCY");
    EXPECT_EQ(format_property(""), "\"\"");
    EXPECT_EQ(format_property(3), "3");
    EXPECT_EQ(format_property(PropertyValue::array({"A", "B"})), "A, B");
    EXPECT_EQ(property_names(PropertyValue::array({{{"name", "X"}, {"mutable", true}}, "Y"})),
              (std::vector<std::string>{"X", "Y"}));
    EXPECT_EQ(property_names(PropertyValue{{"Z", "RO"}}), std::vector<std::string>{"Z"});
}

}  // namespace
}  // namespace mosaic::cli
