// ABI negotiation: a plugin of an older minor (1.0, whose table ends before estimate_cost) loads and
// runs; a plugin of another major is refused naming both versions.
#include "plugins/test_plugins.hpp"

#include <mosaic/plugin_abi.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace mosaic::test {
namespace {

TEST(AbiVersion, OneZeroTableIsSmallerThanTheCurrentOne) {
    // Otherwise the 1.0 plugin would not be testing anything.
    static_assert(MOSAIC_ABI_VERSION_MINOR >= 1, "the host is expected to be newer than ABI 1.0");
    EXPECT_LT(MOSAIC_PLUGIN_API_SIZE_1_0, sizeof(mosaic_plugin_api));
}

class OldMinorPlugin : public ::testing::Test {
protected:
    void SetUp() override {
        reg.add("REFERENCE", reference_plugin());
        reg.add("OLD10", abi10_plugin());
        reg.write();
    }
    TempRegistry reg;
};

TEST_F(OldMinorPlugin, LoadsWithoutProblems) {
    Core core(reg.path());
    EXPECT_EQ(core.get_available_devices(), (std::vector<std::string>{"REFERENCE", "OLD10"}));
    for (const auto& p : core.problems()) ADD_FAILURE() << "unexpected problem: " << p.device << ": " << p.message;
    EXPECT_CONTAINS(core.get_property("OLD10", "FULL_DEVICE_NAME").get<std::string>(), "ABI 1.0");
}

TEST_F(OldMinorPlugin, RunsAModelAndAgreesWithReference) {
    Core core(reg.path());
    EXPECT_EQ(run_once(core, relu_model(), "OLD10", sample_input()), relu_of_sample());
    const auto old = run_once(core, relu_add_model(), "OLD10", sample_input());
    EXPECT_EQ(old, relu_add_of_sample());
    EXPECT_EQ(old, run_once(core, relu_add_model(), "REFERENCE", sample_input()));
}

TEST_F(OldMinorPlugin, QueryReportsThePluginsReason) {
    ModelBuilder b("sigmoid");
    auto x = b.parameter("x", ElementType::f32, {4});
    b.result(b.op("Relu", {b.op("Sigmoid", {x}, {}, "sigmoid")}, {}, "relu"), "y");
    auto model = b.build();

    Core core(reg.path());
    const QueryResult q = core.query_model_details(model, "OLD10");
    EXPECT_EQ(q.affinity.count("relu"), 1u);
    ASSERT_EQ(q.unsupported.count("sigmoid"), 1u);
    ASSERT_EQ(q.unsupported.at("sigmoid").count("OLD10"), 1u);
    EXPECT_CONTAINS(q.unsupported.at("sigmoid").at("OLD10"), "Sigmoid");
    EXPECT_CONTAINS(error_of([&] { core.compile_model(model, "OLD10"); }), "Sigmoid");
}

TEST_F(OldMinorPlugin, AsyncInferenceWithoutStartAsync) {
    // The 1.0 plugin leaves start_async NULL: the host runs infer() on its own thread.
    Core core(reg.path());
    CompiledModel compiled = core.compile_model(relu_add_model(), "OLD10");
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(Tensor::from_vector({2, 3}, ElementType::f32, sample_input()));
    request.start_async();
    ASSERT_TRUE(request.wait_for(std::chrono::seconds(30)));
    request.wait();
    EXPECT_EQ(request.get_output_tensor().to_vector<float>(), relu_add_of_sample());
}

TEST_F(OldMinorPlugin, CallbackRestartsARequestWithoutStartAsync) {
    // The host's fallback worker must allow start_async from the completion callback.
    Core core(reg.path());
    InferRequest r = core.compile_model(relu_model(), "OLD10").create_infer_request();
    r.set_input_tensor(Tensor::from_vector(Shape{2, 3}, ElementType::f32, sample_input()));
    std::atomic<int> runs{0};
    std::exception_ptr last;
    r.set_callback([&](std::exception_ptr e) {
        last = e;
        if (++runs < 4) r.start_async();
    });
    r.start_async();
    for (int i = 0; i < 5000 && runs < 4; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    r.wait();
    EXPECT_EQ(runs.load(), 4);
    EXPECT_EQ(last, nullptr);
    EXPECT_EQ(r.get_output_tensor().to_vector<float>(), relu_of_sample());
}

TEST_F(OldMinorPlugin, PropertiesAndProfiling) {
    Core core(reg.path());
    EXPECT_EQ(core.get_property("OLD10", "PERF_COUNT"), false);
    core.set_property("OLD10", {{"PERF_COUNT", true}});
    EXPECT_EQ(core.get_property("OLD10", "PERF_COUNT"), true);

    const std::string unknown = error_of([&] { core.set_property("OLD10", {{"NO_SUCH_PROPERTY", 1}}); });
    EXPECT_CONTAINS(unknown, "NO_SUCH_PROPERTY");
    EXPECT_CONTAINS(unknown, "has no property");

    CompiledModel compiled = core.compile_model(relu_add_model(), "OLD10");
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(Tensor::from_vector({2, 3}, ElementType::f32, sample_input()));
    request.infer();
    bool saw_relu = false, saw_add = false;
    for (const auto& info : request.get_profiling_info()) {
        saw_relu |= info.node_name == "relu" && info.node_type == "Relu";
        saw_add |= info.node_name == "add" && info.node_type == "Add";
    }
    EXPECT_TRUE(saw_relu && saw_add) << "profiling records of the 1.0 plugin did not come through";
}

TEST_F(OldMinorPlugin, RegisteredAtRunTime) {
    Core core(build_registry().string());
    core.register_plugin(abi10_plugin().string(), "OLD10_RT");
    EXPECT_TRUE(has_device(core, "OLD10_RT"));
    EXPECT_EQ(run_once(core, relu_add_model(), "OLD10_RT", sample_input()), relu_add_of_sample());
}

TEST(AbiVersion, OtherMajorIsRefusedNamingBothVersions) {
    TempRegistry reg;
    reg.add("REFERENCE", reference_plugin());
    reg.add("ABI2", abi_major2_plugin());
    reg.write();
    Core core(reg.path());
    EXPECT_EQ(core.get_available_devices(), std::vector<std::string>{"REFERENCE"});
    const auto problems = problems_of(core, "ABI2");
    ASSERT_EQ(problems.size(), 1u);
    const std::string host = std::to_string(MOSAIC_ABI_VERSION_MAJOR) + "." + std::to_string(MOSAIC_ABI_VERSION_MINOR);
    for (const std::string& part : {std::string("ABI"), std::string("major"), std::string("2.0"), host})
        EXPECT_CONTAINS(problems[0].message, part);
    EXPECT_EQ(run_once(core, relu_model(), "REFERENCE", sample_input()), relu_of_sample());
}

}  // namespace
}  // namespace mosaic::test
