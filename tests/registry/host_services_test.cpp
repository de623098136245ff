// The host services an orchestrator uses, exercised through the FORWARD test plugin, which queries,
// compiles and runs on another device only through them.
#include "plugins/test_plugins.hpp"

namespace mosaic::test {
namespace {

class HostServices : public ::testing::Test {
protected:
    void SetUp() override {
        reg.add("REFERENCE", reference_plugin());
        reg.add("RELU_ONLY", reference_plugin(), {{"SUPPORTED_OPS", "Relu"}});
        reg.add("EMU", reference_plugin(), {{"INSTANCES", 2}});
        reg.add("FORWARD", forward_plugin());
        reg.write();
    }
    TempRegistry reg;
};

TEST_F(HostServices, CompileAndInferOnAnotherDeviceMatchReference) {
    Core core(reg.path());
    EXPECT_EQ(run_once(core, relu_add_model(), "FORWARD", sample_input()), relu_add_of_sample());
    CompiledModel compiled = core.compile_model(relu_model(), "FORWARD");
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), nlohmann::json::array({"REFERENCE"}));
}

TEST_F(HostServices, QueryReportsTheTargetsAnswers) {
    ModelBuilder b("sigmoid");
    auto x = b.parameter("x", ElementType::f32, {4});
    b.result(b.op("Relu", {b.op("Sigmoid", {x}, {}, "sigmoid")}, {}, "relu"), "y");
    auto model = b.build();
    Core core(reg.path());
    QueryResult q = core.query_model_details(model, "FORWARD", {{"TARGET", "RELU_ONLY"}});
    EXPECT_EQ(q.affinity.at("relu"), "RELU_ONLY");
    ASSERT_EQ(q.unsupported.count("sigmoid"), 1u);
    EXPECT_CONTAINS(q.unsupported.at("sigmoid").at("FORWARD"), "SUPPORTED_OPS of device RELU_ONLY");
}

TEST_F(HostServices, ProfilingRecordsComeBackFromTheTarget) {
    Core core(reg.path());
    InferRequest r = core.compile_model(relu_add_model(), "FORWARD", {{"PERF_COUNT", true}}).create_infer_request();
    r.set_input_tensor(Tensor::from_vector(Shape{2, 3}, ElementType::f32, sample_input()));
    r.infer();
    std::vector<ProfilingInfo> records = r.get_profiling_info();
    ASSERT_FALSE(records.empty());
    for (const auto& p : records) {
        EXPECT_EQ(p.node_name.rfind("forwarded: ", 0), 0u) << p.node_name;
        EXPECT_EQ(p.exec_type, "ref");
    }
}

TEST_F(HostServices, DeviceIdsResolveThroughTheHost) {
    Core core(reg.path());
    CompiledModel compiled = core.compile_model(relu_model(), "FORWARD", {{"TARGET", "EMU.1"}});
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), nlohmann::json::array({"EMU.1"}));
    EXPECT_CONTAINS(error_of([&] { core.compile_model(relu_model(), "FORWARD", {{"TARGET", "EMU.5"}}); }),
                    "'EMU.5' does not exist");
}

TEST_F(HostServices, UnknownTargetIsReportedThroughTheOrchestrator) {
    Core core(reg.path());
    std::string msg = error_of([&] { core.compile_model(relu_model(), "FORWARD", {{"TARGET", "NOPE"}}); });
    EXPECT_CONTAINS(msg, "'NOPE'");
    EXPECT_CONTAINS(msg, "not registered");
    EXPECT_CONTAINS(msg, "FORWARD");
}

TEST_F(HostServices, CompiledModelKeepsWorkingAfterItsCoreIsGone) {
    CompiledModel compiled;
    {
        Core core(reg.path());
        compiled = core.compile_model(relu_model(), "FORWARD");
    }
    InferRequest r = compiled.create_infer_request();
    r.set_input_tensor(Tensor::from_vector(Shape{2, 3}, ElementType::f32, sample_input()));
    r.infer();
    EXPECT_EQ(r.get_output_tensor().to_vector<float>(), relu_of_sample());
}

}  // namespace
}  // namespace mosaic::test
