// A plugin isolated in its own process that segfaults, aborts, hangs or exhausts its memory in
// query, compile or infer: the test process survives, the call fails with an error naming the
// device, the call and what happened, REFERENCE (in process) still works, and the next compile on
// the device starts a fresh plugin process that works. HETERO falls back when a device dies answering
// its query or compiling.
#include "isolation/isolation_test_util.hpp"

#include <gtest/gtest.h>

#include <tuple>

namespace mosaic::test::isolation {
namespace {

struct Fault {
    std::string how;       // SEGV, ABORT, HANG, LEAK
    std::string call;      // QUERY, COMPILE, INFER
    std::string expected;  // what the error must say happened
};

std::string expected_for(const std::string& how, const std::string& call) {
    const std::string lower = call == "QUERY" ? "query" : call == "COMPILE" ? "compile" : "infer";
    // AddressSanitizer catches the segfault itself, reports it and aborts (abort_on_error=1).
    if (how == "SEGV" && kSanitized) return " during " + lower;
    if (how == "SEGV") return "crashed with SIGSEGV (Segmentation fault) during " + lower;
    if (how == "ABORT") return "aborted (SIGABRT (Aborted)) during " + lower;
    if (how == "HANG")
        return "did not answer " + lower + " within " + std::to_string(call == "INFER" ? kInferTimeoutMs : kTimeoutMs) +
               " ms";
    return "ran out of memory: its address space is capped at " + std::to_string(kMemoryLimitMb) + " MiB";
}

class IsolatedFault : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
protected:
    void SetUp() override {
        use_build_plugin_host();
        registry_.add_raw(isolated_entry(registry_, "BROKEN", crashing_plugin()));
        registry_.add("REFERENCE", reference_plugin());
        registry_.write();
    }
    TempRegistry registry_;
};

TEST_P(IsolatedFault, FailsWithItsErrorAndTheNextCompileWorks) {
    const auto& [how, call] = GetParam();
    if (how == "LEAK" && kSanitized) GTEST_SKIP() << "no memory cap under sanitizers (they reserve terabytes of address space)";
    Core core(registry_.path());
    const auto model = relu_model();
    const AnyMap fault = {{"FAULT", how + "@" + call}};
    std::string error;
    if (call == "QUERY") {
        error = error_of([&] { core.query_model(model, "BROKEN", fault); });
    } else if (call == "COMPILE") {
        error = error_of([&] { core.compile_model(model, "BROKEN", fault); });
    } else {
        CompiledModel compiled = core.compile_model(model, "BROKEN", fault);
        InferRequest request = compiled.create_infer_request();
        request.set_input_tensor(Tensor::from_vector({2, 3}, ElementType::f32, sample_input()));
        error = error_of([&] { request.infer(); });
        // The request and its model outlive their process: every later call answers the same error.
        EXPECT_PRED_FORMAT2(contains, error_of([&] { request.infer(); }), expected_for(how, call));
        EXPECT_PRED_FORMAT2(contains, error_of([&] { compiled.create_infer_request(); }), "device 'BROKEN'");
    }
    EXPECT_PRED_FORMAT2(contains, error, "the plugin process for device 'BROKEN'");
    EXPECT_PRED_FORMAT2(contains, error, expected_for(how, call));
    EXPECT_PRED_FORMAT2(contains, error, "the next compile on 'BROKEN' starts a fresh plugin process");

    EXPECT_EQ(run_once(core, relu_add_model(), "REFERENCE", sample_input()), relu_add_of_sample());
    EXPECT_EQ(run_once(core, model, "BROKEN", sample_input()), relu_of_sample());
}

INSTANTIATE_TEST_SUITE_P(EveryFaultInEveryCall, IsolatedFault,
                         ::testing::Combine(::testing::Values("SEGV", "ABORT", "HANG", "LEAK"),
                                            ::testing::Values("QUERY", "COMPILE", "INFER")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

// The same plugin in process: a crash takes the application with it, as in every in-process runtime
// (OpenVINO, ONNX Runtime); that is what "isolation": "process" is for.
TEST(InProcessFault, ASegfaultingPluginIsFatalToTheApplication) {
    ::testing::FLAGS_gtest_death_test_style = "threadsafe";
    TempRegistry registry;
    registry.add("BROKEN", crashing_plugin());
    registry.write();
    EXPECT_DEATH(
        {
            Core core(registry.path());
            core.compile_model(relu_model(), "BROKEN", {{"FAULT", "SEGV@COMPILE"}});
        },
        "");
}

class IsolatedHetero : public ::testing::Test {
protected:
    void SetUp() override {
        use_build_plugin_host();
        registry_.add_raw(isolated_entry(registry_, "BROKEN", crashing_plugin()));
        registry_.add("REFERENCE", reference_plugin());
        registry_.add("HETERO", hetero_plugin());
        registry_.write();
    }
    TempRegistry registry_;
};

TEST_F(IsolatedHetero, ADeviceThatDiesAtCompileIsSkippedLikeOneWithoutTheOps) {
    Core core(registry_.path());
    const AnyMap properties = {{"DEVICE_PROPERTIES", AnyMap{{"BROKEN", AnyMap{{"FAULT", "SEGV@COMPILE"}}}}}};
    ::testing::internal::CaptureStderr();
    CompiledModel compiled = core.compile_model(relu_model(), "HETERO:BROKEN,REFERENCE", properties);
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_PRED_FORMAT2(contains, log, expected_for("SEGV", "COMPILE"));  // under sanitizers, any death
    EXPECT_PRED_FORMAT2(contains, log, "falling back: its ops go to the next devices of the list (REFERENCE)");
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), nlohmann::json::array({"REFERENCE"}));
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(Tensor::from_vector({2, 3}, ElementType::f32, sample_input()));
    request.infer();
    EXPECT_EQ(request.get_output_tensor().to_vector<float>(), relu_of_sample());
    // BROKEN itself comes back with a fresh process.
    EXPECT_EQ(run_once(core, relu_model(), "HETERO:BROKEN,REFERENCE", sample_input()), relu_of_sample());
}

TEST_F(IsolatedHetero, ADeviceThatDiesAnsweringTheQueryIsTakenAsRunningNoneOfTheOps) {
    Core core(registry_.path());
    const AnyMap properties = {{"DEVICE_PROPERTIES", AnyMap{{"BROKEN", AnyMap{{"FAULT", "ABORT@QUERY"}}}}}};
    ::testing::internal::CaptureStderr();
    const SupportedOpsMap supported = core.query_model(relu_model(), "HETERO:BROKEN,REFERENCE", properties);
    CompiledModel compiled = core.compile_model(relu_model(), "HETERO:BROKEN,REFERENCE", properties);
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_PRED_FORMAT2(contains, log, "BROKEN failed while answering which ops of model");
    EXPECT_PRED_FORMAT2(contains, log, expected_for("ABORT", "QUERY"));
    EXPECT_PRED_FORMAT2(contains, log, "HETERO goes on as if BROKEN supported none of them");
    ASSERT_FALSE(supported.empty());
    for (const auto& [op, device] : supported) EXPECT_EQ(device, "REFERENCE") << op;
    EXPECT_EQ(compiled.get_property("EXECUTION_DEVICES"), nlohmann::json::array({"REFERENCE"}));
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(Tensor::from_vector({2, 3}, ElementType::f32, sample_input()));
    request.infer();
    EXPECT_EQ(request.get_output_tensor().to_vector<float>(), relu_of_sample());
    // With BROKEN alone there is no device to go on with: the error names the death.
    const std::string error = error_of([&] { core.compile_model(relu_model(), "HETERO:BROKEN", properties); });
    EXPECT_PRED_FORMAT2(contains, error, expected_for("ABORT", "QUERY"));
}

TEST_F(IsolatedHetero, ADeviceThatDiesInInferFailsThatRequestAndARecompiledModelWorks) {
    Core core(registry_.path());
    const AnyMap properties = {{"DEVICE_PROPERTIES", AnyMap{{"BROKEN", AnyMap{{"FAULT", "ABORT@INFER"}}}}}};
    CompiledModel compiled = core.compile_model(relu_model(), "HETERO:BROKEN,REFERENCE", properties);
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(Tensor::from_vector({2, 3}, ElementType::f32, sample_input()));
    const std::string error = error_of([&] { request.infer(); });
    EXPECT_PRED_FORMAT2(contains, error, "the plugin process for device 'BROKEN'");
    EXPECT_PRED_FORMAT2(contains, error, "aborted");
    EXPECT_EQ(run_once(core, relu_model(), "HETERO:BROKEN,REFERENCE", sample_input()), relu_of_sample());
}

}  // namespace
}  // namespace mosaic::test::isolation
