// Run-time control flow (control_flow.hpp) on models from tools/models/make_control_flow_models.py,
// equal to ONNX Runtime on every device. If: a streaming model with nested Ifs whose branches hold
// only for their own condition, 20 chunks at 16 kHz and 20 at 8 kHz feeding the LSTM state back;
// the profiling counters show that only the taken branches ran; a branch taken where it does not
// hold and a branch that does not compile are clear errors. Loop: a trip count given as an input and
// a while loop whose body computes its condition, with scan outputs growing with the count, at
// three counts (one of them zero); a loop that never ends stops at MAX_LOOP_ITERATIONS. Scan: a
// Scan-9 over a sequence of dynamic length (an input scanned from its end along axis 1, outputs
// stacked along axis 1 and from the end), read without shapes and run at lengths 3 and 7.
#include <mosaic/mosaic.hpp>
#include <mosaic/onnx.hpp>

#include <gtest/gtest.h>

#include "exported_data_sets.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

namespace mosaic::test {
namespace {

namespace fs = std::filesystem;

constexpr int kChunks = 20;

fs::path model_folder(const std::string& name = "nested_if") {
    return generated_model("onnx_models_control_flow", name, "make_control_flow_models.py");
}

Tensor load(const fs::path& file) { return onnx::read_tensor_file(file.string()); }

float max_difference(const Tensor& a, const Tensor& b) {
    EXPECT_EQ(to_string(a.get_shape()), to_string(b.get_shape()));
    float worst = 0;
    for (size_t i = 0; i < b.get_size() && i < a.get_size(); ++i)
        worst = std::max(worst, std::fabs(a.data<float>()[i] - b.data<float>()[i]));
    return worst;
}

Tensor rate_tensor(int64_t rate) { return Tensor::from_vector<int64_t>({}, ElementType::i64, {rate}); }

// What each profiled op that ran is, by name.
std::map<std::string, std::string> executed(const InferRequest& r) {
    std::map<std::string, std::string> out;
    for (const ProfilingInfo& p : r.get_profiling_info())
        if (p.status == ProfilingInfo::Status::executed) out[p.node_name] = p.exec_type;
    return out;
}

bool any_name_contains(const std::map<std::string, std::string>& ops, const std::string& part) {
    for (const auto& [name, exec] : ops)
        if (name.find(part) != std::string::npos) return true;
    return false;
}

class RunTimeIf : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        folder_ = model_folder();
        if (folder_.empty()) GTEST_SKIP() << "the exporters' Python (onnx, onnxruntime) is needed to build the model";
    }
    fs::path folder_;
};

TEST_P(RunTimeIf, NestedBranchesValidOnlyForTheirConditionRunTwentyChunksEqualToOnnxRuntime) {
    Core core;
    CompiledModel compiled = core.compile_model(core.read_model((folder_ / "model.onnx").string()), GetParam(),
                                                {{"PERF_COUNT", true}});
    InferRequest r = compiled.create_infer_request();
    for (const int64_t rate : {16000, 8000}) {
        const fs::path data = folder_ / std::to_string(rate);
        Tensor h(ElementType::f32, {1, 1, 16}), c(ElementType::f32, {1, 1, 16});
        float worst = 0;
        int loud = 0, quiet = 0;
        for (int k = 0; k < kChunks; ++k) {
            const std::string n = std::to_string(k);
            r.set_tensor("x", load(data / ("chunk_" + n + ".pb")));
            r.set_tensor("sr", rate_tensor(rate));
            r.set_tensor("h", h);
            r.set_tensor("c", c);
            r.infer();
            worst = std::max({worst, max_difference(r.get_tensor("prob"), load(data / ("prob_" + n + ".pb"))),
                              max_difference(r.get_tensor("hn"), load(data / ("h_" + n + ".pb"))),
                              max_difference(r.get_tensor("cn"), load(data / ("c_" + n + ".pb")))});
            h = r.get_tensor("hn").clone();
            c = r.get_tensor("cn").clone();

            // Only the taken branches ran.
            const auto ops = executed(r);
            ASSERT_TRUE(ops.count("rate_if")) << "no profiling entry for the If";
            if (rate == 8000) {
                EXPECT_EQ(ops.at("rate_if"), "host: else_branch");
                EXPECT_FALSE(any_name_contains(ops, "rate_if/then_branch")) << "chunk " << k;
                EXPECT_TRUE(any_name_contains(ops, "rate_if/else_branch/slow_lstm")) << "chunk " << k;
                continue;
            }
            EXPECT_EQ(ops.at("rate_if"), "host: then_branch");
            EXPECT_FALSE(any_name_contains(ops, "rate_if/else_branch")) << "chunk " << k;
            const std::string inner = "rate_if/then_branch/level_if";
            ASSERT_TRUE(ops.count(inner)) << "chunk " << k;
            if (fs::exists(data / ("loud_" + n))) {
                ++loud;
                EXPECT_EQ(ops.at(inner), "host: then_branch") << "chunk " << k;
                EXPECT_TRUE(any_name_contains(ops, inner + "/then_branch/loud_lstm")) << "chunk " << k;
            } else {
                ++quiet;
                EXPECT_EQ(ops.at(inner), "host: else_branch") << "chunk " << k;
                EXPECT_FALSE(any_name_contains(ops, "loud_lstm")) << "chunk " << k;
            }
        }
        if (rate == 16000) {
            EXPECT_TRUE(loud > 0 && quiet > 0) << "the chunks should take both inner branches";
        }
        EXPECT_LT(worst, 1e-5f) << GetParam() << " at " << rate << " Hz";
        std::printf("%s at %lld Hz: largest |output - ONNX Runtime| over %d chunks: %.3g\n", GetParam().c_str(),
                    static_cast<long long>(rate), kChunks, static_cast<double>(worst));
    }
}

TEST_P(RunTimeIf, ABranchTakenWhereItDoesNotHoldIsAnErrorNamingTheIfAndTheBranch) {
    Core core;
    CompiledModel compiled = core.compile_model(core.read_model((folder_ / "model.onnx").string()), GetParam());
    InferRequest r = compiled.create_infer_request();
    // 256 samples (an 8 kHz chunk) said to be 16 kHz: the 16 kHz branch reshapes to 512.
    r.set_tensor("x", load(folder_ / "8000" / "chunk_0.pb"));
    r.set_tensor("sr", rate_tensor(16000));
    r.set_tensor("h", Tensor(ElementType::f32, {1, 1, 16}));
    r.set_tensor("c", Tensor(ElementType::f32, {1, 1, 16}));
    try {
        r.infer();
        FAIL() << "a branch that does not hold ran";
    } catch (const std::exception& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("If 'rate_if'"), std::string::npos) << what;
        EXPECT_NE(what.find("then_branch"), std::string::npos) << what;
        EXPECT_NE(what.find("frames16"), std::string::npos) << what;  // the Reshape that does not hold
    }
    // The request still serves the inputs the branch is for.
    r.set_tensor("sr", rate_tensor(8000));
    r.infer();
    EXPECT_LT(max_difference(r.get_tensor("prob"), load(folder_ / "8000" / "prob_0.pb")), 1e-5f);
}

// The GPU has no LSTM kernel: compiling a branch that holds one names the If, the branch and the op,
// and HETERO places the op on the next device (above).
TEST(RunTimeIfErrors, ABranchThatDoesNotCompileOnTheDeviceIsNamed) {
    const fs::path folder = model_folder();
    if (folder.empty()) GTEST_SKIP() << "the exporters' Python (onnx, onnxruntime) is needed to build the model";
    Core core;
    InferRequest r = core.compile_model(core.read_model((folder / "model.onnx").string()), "GPU").create_infer_request();
    r.set_tensor("x", load(folder / "8000" / "chunk_0.pb"));
    r.set_tensor("sr", rate_tensor(8000));
    r.set_tensor("h", Tensor(ElementType::f32, {1, 1, 16}));
    r.set_tensor("c", Tensor(ElementType::f32, {1, 1, 16}));
    try {
        r.infer();
        FAIL() << "an LSTM compiled on the GPU";
    } catch (const std::exception& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("If 'rate_if': its else_branch does not compile on 'GPU'"), std::string::npos) << what;
        EXPECT_NE(what.find("slow_lstm"), std::string::npos) << what;
        EXPECT_NE(what.find("HETERO:GPU,CPU"), std::string::npos) << what;
    }
}

// The query answers a run-time If by its branches: the ops of each branch that holds at the shapes
// given, placed as HETERO would, and the If supported where they all are.
TEST(RunTimeIfQuery, AnswersTheBranchesThatHoldAtTheShapesGiven) {
    const fs::path folder = model_folder();
    if (folder.empty()) GTEST_SKIP() << "the exporters' Python (onnx, onnxruntime) is needed to build the model";
    Core core;
    std::shared_ptr<Model> model = core.read_model((folder / "model.onnx").string());
    model->reshape({{"x", PartialShape{1, 512}}});
    const QueryResult hetero = core.query_model_details(model, "HETERO:GPU,CPU");
    EXPECT_TRUE(hetero.unsupported.empty());
    ASSERT_TRUE(hetero.affinity.count("rate_if"));
    EXPECT_NE(hetero.explanation.at("rate_if").find("runs only the body it takes"), std::string::npos);
    EXPECT_NE(hetero.explanation.at("rate_if").find("else_branch does not hold at these shapes"), std::string::npos)
        << hetero.explanation.at("rate_if");
    EXPECT_EQ(hetero.affinity.at("rate_if/then_branch/level_if/then_branch/loud_lstm/LSTMSequence"), "CPU");
    EXPECT_EQ(hetero.affinity.at("rate_if/then_branch/level_if"), "HETERO:GPU,CPU");

    const QueryResult gpu = core.query_model_details(model, "GPU");
    ASSERT_TRUE(gpu.unsupported.count("rate_if"));
    EXPECT_NE(gpu.unsupported.at("rate_if").at("GPU").find("loud_lstm/LSTMSequence"), std::string::npos);
}

std::string device_test_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string name = info.param;
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

class RunTimeLoop : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        folder_ = model_folder("loop");
        if (folder_.empty()) GTEST_SKIP() << "the exporters' Python (onnx, onnxruntime) is needed to build the model";
    }
    fs::path folder_;
};

TEST_P(RunTimeLoop, TripCountsAndConditionsKnownOnlyWhenRunningEqualOnnxRuntime) {
    Core core;
    CompiledModel compiled = core.compile_model(core.read_model((folder_ / "model.onnx").string()), GetParam(),
                                                {{"PERF_COUNT", true}});
    InferRequest r = compiled.create_infer_request();
    for (int k = 0; k < 3; ++k) {
        const fs::path data = folder_ / ("case_" + std::to_string(k));
        for (const char* in : {"x", "n", "limit"}) r.set_tensor(in, load(data / (std::string(in) + ".pb")));
        r.infer();
        for (const char* out : {"acc", "rows", "v", "history"})
            EXPECT_LT(max_difference(r.get_tensor(out), load(data / (std::string(out) + ".pb"))), 1e-5f)
                << GetParam() << " case " << k << " output " << out;
        const int64_t n = load(data / "n.pb").data<int64_t>()[0];
        const auto ops = executed(r);
        ASSERT_TRUE(ops.count("counted_loop"));
        EXPECT_EQ(ops.at("counted_loop"), "host: " + std::to_string(n) + " iterations of the body");
        EXPECT_EQ(ops.at("while_loop"),
                  "host: " + std::to_string(r.get_tensor("history").get_shape()[0]) + " iterations of the body");
    }
}

TEST_P(RunTimeLoop, ALoopThatNeverEndsStopsAtMaxLoopIterations) {
    Core core;
    InferRequest r = core.compile_model(core.read_model((folder_ / "model.onnx").string()), GetParam(),
                                        {{"MAX_LOOP_ITERATIONS", 50}})
                         .create_infer_request();
    const fs::path data = folder_ / "case_0";
    r.set_tensor("x", load(data / "x.pb"));
    r.set_tensor("n", Tensor::from_vector<int64_t>({}, ElementType::i64, {3}));
    // The while loop's values grow by half each iteration: an infinite limit is never reached.
    r.set_tensor("limit", Tensor::from_vector<float>({}, ElementType::f32, {INFINITY}));
    try {
        r.infer();
        FAIL() << "the loop ended";
    } catch (const std::exception& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("Loop 'while_loop': still running after 50 iterations"), std::string::npos) << what;
        EXPECT_NE(what.find("MAX_LOOP_ITERATIONS"), std::string::npos) << what;
    }
    // The request runs on when the loop ends.
    r.set_tensor("limit", load(data / "limit.pb"));
    r.infer();
    EXPECT_LT(max_difference(r.get_tensor("history"), load(data / "history.pb")), 1e-5f);
}

class RunTimeScan : public ::testing::TestWithParam<std::string> {};

TEST_P(RunTimeScan, ALengthKnownOnlyWhenTheModelRunsEqualsOnnxRuntime) {
    const fs::path folder = model_folder("scan");
    if (folder.empty()) GTEST_SKIP() << "onnx and onnxruntime are needed to write the model (bash scripts/install_model_exporters.sh)";
    Core core;
    auto model = core.read_model((folder / "model.onnx").string());
    EXPECT_LT(model->input("x").get_partial_shape()[1], 0) << "the length is dynamic";
    CompiledModel compiled = core.compile_model(model, GetParam());
    expect_data_sets(compiled, "scan on " + GetParam(), 2, backend_test_reader(folder), 1e-5);
    // Scan inputs of different lengths are refused when the model runs, naming the Scan (a Loop
    // over the first input's length would read the other past its end, or stop short of it).
    InferRequest r = compiled.create_infer_request();
    r.set_tensor("s0", Tensor::from_vector<float>({2}, ElementType::f32, {0, 0}));
    r.set_tensor("x", Tensor::from_vector<float>({2, 3}, ElementType::f32, std::vector<float>(6, 1.0f)));
    r.set_tensor("y", Tensor::from_vector<float>({5, 2}, ElementType::f32, std::vector<float>(10, 1.0f)));
    try {
        r.infer();
        ADD_FAILURE() << "ran with scan inputs of lengths 3 and 5";
    } catch (const std::exception& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("s_final"), std::string::npos) << what;
        EXPECT_NE(what.find("cannot reshape [5,2] (10 elements) to [3,2]"), std::string::npos) << what;
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, RunTimeScan, ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU"),
                         device_test_name);

INSTANTIATE_TEST_SUITE_P(Devices, RunTimeLoop, ::testing::Values("REFERENCE", "CPU", "GPU", "HETERO:GPU,CPU"),
                         device_test_name);

INSTANTIATE_TEST_SUITE_P(Devices, RunTimeIf,
                         ::testing::Values("REFERENCE", "CPU", "HETERO:GPU,CPU", "HETERO:CPU,REFERENCE"),
                         device_test_name);

}  // namespace
}  // namespace mosaic::test
