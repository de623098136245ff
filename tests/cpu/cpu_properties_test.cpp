// The CPU device's properties: what it declares, what a compiled model reports, and clear errors
// for values it refuses.
#include "cpu/cpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test {
namespace {

std::shared_ptr<Model> small_model() {
    ModelBuilder b("small");
    Output x = b.parameter("x", ElementType::f32, {1, 3, 8, 8});
    b.result(b.op("Relu", {conv_bias(b, x, 3, 4, 1, "conv")}, {}, "relu"), "y");
    return b.build();
}



TEST(CpuProperties, DeviceDeclaresTheStandardKeys) {
    const nlohmann::json supported = shared_core().get_property("CPU", "SUPPORTED_PROPERTIES");
    for (const char* key : {"PERF_COUNT", "INFERENCE_NUM_THREADS", "PERFORMANCE_HINT", "NUM_STREAMS",
                            "INFERENCE_PRECISION_HINT", "FULL_DEVICE_NAME"}) {
        bool found = false;
        for (const auto& p : supported) found |= p.at("name") == key;
        EXPECT_TRUE(found) << key << " in " << supported.dump();
    }
    EXPECT_TRUE(contains(shared_core().get_property("CPU", "FULL_DEVICE_NAME").get<std::string>(), "oneDNN"));
}

TEST(CpuProperties, CompiledModelReportsItsSettings) {
    CompiledModel compiled = shared_core().compile_model(
        small_model(), "CPU",
        {{"INFERENCE_NUM_THREADS", "1"}, {"PERFORMANCE_HINT", "THROUGHPUT"}, {"NUM_STREAMS", 2},
         {"INFERENCE_PRECISION_HINT", "f32"}, {"PERF_COUNT", "YES"}});
    // Two streams of one thread each (an explicit NUM_STREAMS beyond the thread budget is honoured).
    EXPECT_EQ(compiled.get_property("INFERENCE_NUM_THREADS"), 2);
    EXPECT_EQ(compiled.get_property("CPU_THREADS_PER_STREAM"), 1);
    EXPECT_EQ(compiled.get_property("PERFORMANCE_HINT"), "THROUGHPUT");
    EXPECT_EQ(compiled.get_property("NUM_STREAMS"), 2);
    EXPECT_EQ(compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"), 2);
    EXPECT_EQ(compiled.get_property("INFERENCE_PRECISION_HINT"), "f32");
    EXPECT_EQ(compiled.get_property("PERF_COUNT"), true);
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), nlohmann::json::array({"CPU"}));
    const nlohmann::json executors = compiled.get_property("CPU_EXECUTORS");
    ASSERT_EQ(executors.size(), 1u) << executors.dump();
    EXPECT_EQ(executors[0].at("name"), "relu");
}

TEST(CpuProperties, ZeroThreadsMeansEveryCore) {
    CompiledModel compiled = shared_core().compile_model(small_model(), "CPU", {{"INFERENCE_NUM_THREADS", 0}});
    EXPECT_GE(compiled.get_property("INFERENCE_NUM_THREADS").get<int64_t>(), 1);
}

TEST(CpuProperties, UnofferedPrecisionIsRefusedClearly) {
    // f16 is never offered; the message lists what is (bf16 too where the CPU has it).
    const std::string e = error_of([] {
        shared_core().compile_model(small_model(), "CPU", {{"INFERENCE_PRECISION_HINT", "f16"}});
    });
    EXPECT_TRUE(contains(e, "INFERENCE_PRECISION_HINT")) << e;
    EXPECT_TRUE(contains(e, "CPU")) << e;
    EXPECT_TRUE(contains(e, "f32")) << e;
    EXPECT_TRUE(contains(e, "f16")) << e;
}

TEST(CpuProperties, BadThreadCountsAreRefusedClearly) {
    for (const PropertyValue& bad : {PropertyValue(-1), PropertyValue("many"), PropertyValue(2.5)}) {
        const std::string e = error_of([&] {
            shared_core().compile_model(small_model(), "CPU", {{"INFERENCE_NUM_THREADS", bad}});
        });
        EXPECT_TRUE(contains(e, "INFERENCE_NUM_THREADS")) << e;
        EXPECT_TRUE(contains(e, "integer")) << e;
    }
    // A refused set_property changes nothing.
    Core core;
    EXPECT_TRUE(contains(error_of([&] { core.set_property("CPU", {{"INFERENCE_NUM_THREADS", -4}}); }),
                         "INFERENCE_NUM_THREADS"));
    EXPECT_EQ(core.get_property("CPU", "INFERENCE_NUM_THREADS"), 0);
}

TEST(CpuProperties, UnknownKeyIsNamed) {
    const std::string e = error_of([] { shared_core().compile_model(small_model(), "CPU", {{"CPU_TURBO", true}}); });
    EXPECT_TRUE(contains(e, "CPU_TURBO")) << e;
}

TEST(CpuProperties, QueryReportsEveryOpSupported) {
    ModelBuilder b("many_ops");
    Output x = b.parameter("x", ElementType::f32, {1, 3, 8, 8});
    Output y = b.op("Relu", {conv_bias(b, x, 3, 4, 1, "conv")}, {}, "relu");
    y = b.op("Erf", {y}, {}, "erf");
    y = b.op("ReduceMean", {y, b.constant<int64_t>({2}, {2, 3})}, {{"keep_dims", "false"}}, "mean");
    y = b.op("TopK", {y, b.constant<int64_t>({}, {2})},
             {{"axis", "1"}, {"mode", "max"}, {"sort", "value"}, {"index_element_type", "i32"}}, "topk", "opset11");
    b.result(y, "y");
    auto model = b.build();
    const QueryResult q = shared_core().query_model_details(model, "CPU");
    EXPECT_TRUE(q.unsupported.empty());
    for (const char* op : {"conv", "conv_bias", "relu", "erf", "mean", "topk"}) EXPECT_EQ(q.affinity.at(op), "CPU") << op;
}

}  // namespace
}  // namespace mosaic::test
