// The pieces of the mosaic CLI that need no device: argument spelling, --config and --input
// parsing, output file names, deterministic inputs, the output summary and the -pc layout.
#include "tools/mosaic/args.hpp"
#include "tools/mosaic/common.hpp"
#include "tools/mosaic/config_file.hpp"
#include "tools/mosaic/device_flags.hpp"
#include "tools/mosaic/fill.hpp"
#include "tools/mosaic/inputs.hpp"
#include "tools/mosaic/outputs.hpp"
#include "tools/mosaic/profiling.hpp"
#include "tools/mosaic/shapes.hpp"
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

TEST(CliArgs, BenchmarkAppSpellings) {
    const char* argv[] = {"mosaic",        "benchmark",     "-shape",     "[1,3,8,8]",   "-data_shape=x[1]",
                          "-nstreams",     "2",             "-nthreads",  "1",           "-infer_precision",
                          "f32",           "-pcsort",       "sort",       "-report_type", "no_counters",
                          "-report_folder", "r",            "-json_stats", "-b",          "2"};
    const std::vector<std::string> expected{"benchmark", "--shape", "[1,3,8,8]", "--data_shape=x[1]", "--nstreams", "2",
                                            "--nthreads", "1", "--infer_precision", "f32", "--pcsort", "sort",
                                            "--report_type", "no_counters", "--report_folder", "r", "--json_stats",
                                            "-b", "2"};
    EXPECT_EQ(normalize_args(static_cast<int>(std::size(argv)), argv), expected);
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

// Found by fuzzing (tests/fuzz/regressions/cli_config): nlohmann reports a number too large for a
// double as out_of_range, not parse_error, and it escaped as an uncaught exception.
TEST(CliConfig, NumberTooLargeForADoubleIsAUsageError) {
    try {
        parse_config(R"({"NUM_STREAMS": 1e999})", "REFERENCE", "big.json");
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("big.json"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
    }
}

// Found by fuzzing: a DEVICE_PROPERTIES entry that is not an object, merged with a section for the
// same device, threw nlohmann's type_error from update().
TEST(CliConfig, NonObjectDevicePropertiesEntryIsAUsageError) {
    try {
        parse_config(R"({"DEVICE_PROPERTIES": {"ACCEL": 1}, "ACCEL": {"PERF_COUNT": true}})", "HETERO:ACCEL,REFERENCE",
                     "dp.json");
        FAIL();
    } catch (const UsageError& e) {
        for (const char* part : {"dp.json", "DEVICE_PROPERTIES entry 'ACCEL'", "must be an object"})
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << part << " in: " << e.what();
    }
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

ProfilingInfo record(const char* name, const char* type, const char* exec, ProfilingInfo::Status status,
                     long long real_us, long long cpu_us) {
    return {name, type, exec, status, std::chrono::microseconds(real_us), std::chrono::microseconds(cpu_us)};
}

TEST(CliProfiling, BenchmarkAppLayout) {
    const std::vector<ProfilingInfo> records = {
        record("conv1", "Convolution", "ref", ProfilingInfo::Status::executed, 120, 118),
        record("flatten", "Reshape", "undef", ProfilingInfo::Status::optimized_out, 0, 0),
        record("skip", "Relu", "undef", ProfilingInfo::Status::not_run, 3, 0)};
    std::ostringstream out;
    print_profiling(out, records);
    EXPECT_EQ(out.str(),
              "conv1: EXECUTED layerType: Convolution realTime: 120 cpu: 118 execType: ref\n"
              "flatten: OPTIMIZED_OUT layerType: Reshape realTime: 0 cpu: 0 execType: undef\n"
              "skip: NOT_RUN layerType: Relu realTime: 3 cpu: 0 execType: undef\n"
              "Total time: 123 microseconds\n");
}

std::vector<ProfilingInfo> three_records() {
    return {record("a", "Add", "ref", ProfilingInfo::Status::executed, 10, 10),
            record("b", "Relu", "ref", ProfilingInfo::Status::not_run, 30, 0),
            record("c", "MatMul", "ref", ProfilingInfo::Status::executed, 20, 40)};
}

std::vector<std::string> names_of(const std::vector<ProfilingInfo>& records) {
    std::vector<std::string> names;
    for (const auto& r : records) names.push_back(r.node_name);
    return names;
}

TEST(CliProfiling, PcsortOrders) {
    const auto records = three_records();
    EXPECT_EQ(names_of(sort_profiling(records, parse_pcsort("no_sort"))), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(names_of(sort_profiling(records, parse_pcsort("sort"))), (std::vector<std::string>{"b", "c", "a"}));
    EXPECT_EQ(names_of(sort_profiling(records, parse_pcsort("simple_sort"))), (std::vector<std::string>{"c", "a"}));
    EXPECT_THROW(parse_pcsort("Sort"), UsageError);
}

TEST(CliProfiling, ProportionOfTheTotal) {
    std::ostringstream out;
    print_profiling(out, sort_profiling(three_records(), PcSort::simple_sort), true);
    EXPECT_EQ(out.str(),
              "c: EXECUTED layerType: MatMul realTime: 20 cpu: 40 execType: ref proportion: 66.67%\n"
              "a: EXECUTED layerType: Add realTime: 10 cpu: 10 execType: ref proportion: 33.33%\n"
              "Total time: 30 microseconds\n");
}

TEST(CliProfiling, AverageOverRequestsByNodeName) {
    auto second = three_records();
    std::swap(second[0], second[2]);  // another order: matched by name, kept in the first order
    second[2].real_time = std::chrono::microseconds(30);  // node a: (10 + 30) / 2
    const auto avg = average_profiling({three_records(), second});
    ASSERT_EQ(names_of(avg), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(avg[0].real_time.count(), 20);
    EXPECT_EQ(avg[2].cpu_time.count(), 40);
}

TEST(CliShapes, ParseNamedUnnamedAndDynamic) {
    const auto shapes = parse_shape_args({"a[1,?,4],b[2]", "[-1,3]"});
    EXPECT_EQ(shapes.at("a"), (Shape{1, kDynamicDim, 4}));
    EXPECT_EQ(shapes.at("b"), (Shape{2}));
    EXPECT_EQ(shapes.at(""), (Shape{kDynamicDim, 3}));
    for (const char* bad : {"a[1,x]", "a[1,2", "a[1,-2]", "a[1],a[2]"}) EXPECT_THROW(parse_shape_args({bad}), UsageError) << bad;
}

TEST(CliShapes, ShapeThenBatchThenDataShapeThenOne) {
    const std::vector<std::pair<std::string, Shape>> declared = {{"img", {kDynamicDim, 3, kDynamicDim, kDynamicDim}},
                                                                 {"ids", {1, kDynamicDim}},
                                                                 {"scale", {kDynamicDim}}};
    ShapeArgs args;
    args.shape = {"img[?,3,?,64]"};
    args.batch = 4;
    args.data_shape = {"img[4,3,48,64]"};
    const auto r = resolve_shapes(declared, args);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].resolved, (Shape{4, 3, 48, 64}));
    EXPECT_FALSE(r[0].defaulted);
    EXPECT_EQ(r[1].resolved, (Shape{4, 1}));  // batched, then the dynamic length becomes 1
    EXPECT_TRUE(r[1].defaulted);
    EXPECT_EQ(r[2].resolved, (Shape{1}));  // rank 1: no batch dimension
    EXPECT_EQ(r[2].declared, (Shape{kDynamicDim}));
}

// convert keeps what the flags leave dynamic (IR holds it) and says nothing was defaulted.
TEST(CliShapes, KeepDynamicLeavesWhatTheFlagsDoNotFix) {
    const std::vector<std::pair<std::string, Shape>> declared = {{"img", {kDynamicDim, 3, kDynamicDim, kDynamicDim}}};
    ShapeArgs args;
    args.shape = {"img[?,3,?,64]"};
    args.keep_dynamic = true;
    const auto r = resolve_shapes(declared, args);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].resolved, (Shape{kDynamicDim, 3, kDynamicDim, 64}));
    EXPECT_FALSE(r[0].defaulted);
}

TEST(CliShapes, MistakesNameTheFlagAndTheInput) {
    const std::vector<std::pair<std::string, Shape>> declared = {{"x", {1, 3}}};
    auto message = [&](const ShapeArgs& args) {
        try {
            resolve_shapes(declared, args);
        } catch (const UsageError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message({{"y[1,3]"}, {}, 0}).find("-shape names input 'y'"), std::string::npos);
    EXPECT_NE(message({{"[1,3,1]"}, {}, 0}).find("rank 3, but the input has rank 2"), std::string::npos);
    EXPECT_NE(message({{}, {"[1,4]"}, 0}).find("-data_shape gives input 'x' the shape [1,4]"), std::string::npos);
    EXPECT_NE(message({{}, {"[?,3]"}, 0}).find("no dynamic dimensions"), std::string::npos);
    EXPECT_EQ(message({{}, {}, 2}), "no error");  // x has rank 2: a batch dimension
    const std::vector<std::pair<std::string, Shape>> flat = {{"v", {8}}};
    EXPECT_THROW(resolve_shapes(flat, {{}, {}, 2}), UsageError);
}

TEST(CliDeviceFlags, PlainDeviceGetsTheKey) {
    AnyMap props;
    apply_device_flag(props, "REFERENCE", {"-nstreams", "NUM_STREAMS", "2"});
    apply_device_flag(props, "REFERENCE", {"-nthreads", "INFERENCE_NUM_THREADS", ""});
    EXPECT_EQ(props.at("NUM_STREAMS"), "2");
    EXPECT_EQ(props.size(), 1u);
    EXPECT_THROW(apply_device_flag(props, "REFERENCE", {"-nstreams", "NUM_STREAMS", "ACCEL:2"}), UsageError);
}

TEST(CliDeviceFlags, HeteroDevicesGetDeviceProperties) {
    AnyMap props;
    props["DEVICE_PROPERTIES"] = {{"ACCEL", {{"PERF_COUNT", true}}}};  // from --config: kept
    apply_device_flag(props, "HETERO:ACCEL,REFERENCE", {"-nstreams", "NUM_STREAMS", "2"});
    apply_device_flag(props, "HETERO:ACCEL,REFERENCE", {"-infer_precision", "INFERENCE_PRECISION_HINT", "REFERENCE:f32"});
    const PropertyValue& dp = props.at("DEVICE_PROPERTIES");
    EXPECT_EQ(dp.at("ACCEL").at("PERF_COUNT"), true);
    EXPECT_EQ(dp.at("ACCEL").at("NUM_STREAMS"), "2");
    EXPECT_EQ(dp.at("REFERENCE").at("NUM_STREAMS"), "2");
    EXPECT_EQ(dp.at("REFERENCE").at("INFERENCE_PRECISION_HINT"), "f32");
    EXPECT_FALSE(dp.at("ACCEL").contains("INFERENCE_PRECISION_HINT"));
    EXPECT_FALSE(props.count("NUM_STREAMS"));
    EXPECT_THROW(apply_device_flag(props, "HETERO:ACCEL,REFERENCE", {"-nstreams", "NUM_STREAMS", "ACCEL:"}), UsageError);
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
