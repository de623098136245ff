// MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL on HETERO (plugins/hetero/pipeline.hpp): a model larger
// than the GPU's DEVICE_MEMORY_LIMIT is cut into consecutive stages, the GPU taking the first layers
// that fit and the CPU the rest, equal to REFERENCE; the plan's bytes per device are in HETERO_SPLIT,
// and the GPU holds no more than its limit. What cannot be honoured is an error, never a quiet
// one-device run: a model too large for every device, a device that reports no memory, a policy
// HETERO does not have.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace mosaic::test::gpu {
namespace {

constexpr int64_t kWidth = 256, kLayers = 6;
constexpr int64_t kLayerBytes = kWidth * kWidth * 4;  // 256 KiB of weights a layer

// x [1, 256] -> six (MatMul [256, 256] -> Relu) layers: 1.5 MiB of weights.
std::shared_ptr<Model> layers() {
    ModelBuilder b("six_layers");
    Output x = b.parameter("x", ElementType::f32, {1, kWidth});
    for (int64_t i = 0; i < kLayers; ++i) {
        const std::string name = "layer" + std::to_string(i);
        x = b.op("Relu",
                 {b.op("MatMul", {x, random_constant(b, {kWidth, kWidth}, 40 + static_cast<int>(i), name + "/w")},
                       {{"transpose_a", "false"}, {"transpose_b", "false"}}, name + "/matmul")},
                 {}, name + "/relu");
    }
    b.result(x, "y");
    return b.build();
}

// x [1, 64] -> eight residual layers (x + MatMul(Relu(MatMul(x, w1)), w2)): 32 KiB of weights each.
// A cut inside a layer crosses two tensors (the residual and the hidden one), between layers one.
constexpr int64_t kNarrow = 64, kNarrowBytes = kNarrow * kNarrow * 4;
std::shared_ptr<Model> residual_layers() {
    ModelBuilder b("residual_layers");
    Output x = b.parameter("x", ElementType::f32, {1, kNarrow});
    const Attributes plain{{"transpose_a", "false"}, {"transpose_b", "false"}};
    for (int i = 0; i < 8; ++i) {
        const std::string name = "layer" + std::to_string(i);
        Output h = b.op("MatMul", {x, random_constant(b, {kNarrow, kNarrow}, 60 + 2 * i, name + "/w1")}, plain, name + "/up");
        h = b.op("Relu", {h}, {}, name + "/relu");
        h = b.op("MatMul", {h, random_constant(b, {kNarrow, kNarrow}, 61 + 2 * i, name + "/w2")}, plain, name + "/down");
        x = b.op("Add", {x, h}, {}, name + "/residual");
    }
    b.result(x, "y");
    return b.build();
}

// The GPU copies its weights into device memory (on PoCL, sharing host memory, they would stay in place).
AnyMap pipeline(int64_t gpu_bytes, int64_t cpu_bytes = 0) {
    AnyMap per_device{{"GPU", AnyMap{{"DEVICE_MEMORY_LIMIT", gpu_bytes}, {"GPU_ZERO_COPY", false}}}};
    if (cpu_bytes) per_device["CPU"] = AnyMap{{"DEVICE_MEMORY_LIMIT", cpu_bytes}};
    return {{"MODEL_DISTRIBUTION_POLICY", "PIPELINE_PARALLEL"}, {"DEVICE_PROPERTIES", per_device}};
}

TEST(PipelineParallel, TheGpuTakesTheLayersThatFitAndTheCpuTheRest) {
    Core core;
    const auto model = layers();
    // Room for two and a half layers' weights on the GPU.
    const int64_t limit = kLayerBytes * 5 / 2;
    const uint64_t held_before = core.get_property("GPU", "DEVICE_MEMORY").at("used_bytes").get<uint64_t>();
    CompiledModel compiled = core.compile_model(model, "HETERO:GPU,CPU", pipeline(limit));
    const nlohmann::json split = compiled.get_property("HETERO_SPLIT");
    EXPECT_EQ(split["placement"], "PIPELINE_PARALLEL");
    ASSERT_EQ(split["subgraphs"].size(), 2u) << split.dump();
    EXPECT_EQ(split["subgraphs"][0]["device"], "GPU");
    EXPECT_EQ(split["subgraphs"][1]["device"], "CPU");
    EXPECT_EQ(split["affinity"]["layer0/matmul"], "GPU");
    EXPECT_EQ(split["affinity"]["layer1/matmul"], "GPU");
    EXPECT_EQ(split["affinity"]["layer2/matmul"], "CPU") << "a third layer's weights pass the limit";
    EXPECT_EQ(split["affinity"]["layer5/matmul"], "CPU");
    // The plan, per device: its budget and the estimated weights and activations.
    ASSERT_EQ(split["memory"].size(), 2u) << split.dump();
    EXPECT_EQ(split["memory"][0]["device"], "GPU");
    EXPECT_EQ(split["memory"][0]["budget_bytes"], limit);
    EXPECT_EQ(split["memory"][0]["weights_bytes"], 2 * kLayerBytes);
    EXPECT_EQ(split["memory"][1]["weights_bytes"], 4 * kLayerBytes);
    // What the GPU holds: within its limit, and the weights the plan gave it.
    InferRequest r = compiled.create_infer_request();
    const uint64_t held = core.get_property("GPU", "DEVICE_MEMORY").at("used_bytes").get<uint64_t>() - held_before;
    const uint64_t planned = split["memory"][0]["weights_bytes"].get<uint64_t>() + split["memory"][0]["activations_bytes"].get<uint64_t>();
    std::printf("GPU: planned %llu bytes (weights and activations), held %llu with one request, limit %lld\n",
                static_cast<unsigned long long>(planned), static_cast<unsigned long long>(held), static_cast<long long>(limit));
    EXPECT_LE(held, static_cast<uint64_t>(limit));
    EXPECT_NEAR(static_cast<double>(held), static_cast<double>(planned), 0.1 * static_cast<double>(planned)) << "the plan";
    EXPECT_GE(held, static_cast<uint64_t>(2 * kLayerBytes));
    const Tensor x = random_tensor({1, kWidth}, 49);
    r.set_tensor("x", x);
    r.infer();
    const RunResult want = run_on(model, "REFERENCE", {{"x", x}});
    expect_near(want.outputs.at(0), r.get_tensor("y").to_vector<float>(), 1e-4, 1e-4, "HETERO:GPU,CPU", "y");
}

// The plan (ABI 1.4 query_plan, `mosaic plan`) is the split compile builds, told before compiling:
// the same ops per device, the same bytes; a plain device has none.
TEST(PipelineParallel, ThePlanIsTheSplitCompileBuildsToldBeforeCompiling) {
    Core core;
    const auto model = layers();
    const int64_t limit = kLayerBytes * 5 / 2;
    const QueryResult q = core.query_model_details(model, "HETERO:GPU,CPU", pipeline(limit));
    ASSERT_TRUE(q.plan.is_object());
    const nlohmann::json& plan = q.plan;
    CompiledModel compiled = core.compile_model(model, "HETERO:GPU,CPU", pipeline(limit));
    const nlohmann::json split = compiled.get_property("HETERO_SPLIT");
    EXPECT_EQ(plan["affinity"], split["affinity"]);
    // The free memory a device reports moves with everything else the machine runs, and so does
    // the budget of a device given no limit (the CPU's: its free memory).
    auto estimates = [](nlohmann::json memory) {
        for (auto& entry : memory) {
            entry.erase("memory_available_bytes");
            if (entry["device"] != "GPU") entry.erase("budget_bytes");
        }
        return memory;
    };
    EXPECT_EQ(estimates(plan["memory"]), estimates(split["memory"]));
    EXPECT_EQ(plan["transfer_bytes"], split["transfer_bytes"]);
    ASSERT_EQ(plan["memory"].size(), 2u) << plan.dump();
    const nlohmann::json& gpu = plan["memory"][0];
    EXPECT_EQ(gpu["weights_bytes"], 2 * kLayerBytes);
    EXPECT_EQ(gpu["state_bytes"], 0);
    EXPECT_EQ(gpu["total_bytes"].get<uint64_t>(),
              gpu["weights_bytes"].get<uint64_t>() + gpu["activations_bytes"].get<uint64_t>());
    EXPECT_LE(gpu["total_bytes"].get<uint64_t>(), static_cast<uint64_t>(limit));
    EXPECT_EQ(gpu["crossing_bytes"], kWidth * 4) << "one [1, 256] f32 tensor leaves the GPU";
    EXPECT_GT(gpu["predicted_us"].get<double>(), 0.0);
    EXPECT_TRUE(plan["memory"][1].contains("memory_available_bytes")) << "the CPU reports the host's memory";
    ASSERT_EQ(plan["transfers"].size(), 1u);
    EXPECT_EQ(plan["transfers"][0]["bytes"], kWidth * 4);
    EXPECT_GT(plan["transfers"][0]["predicted_us"].get<double>(), 0.0);
    EXPECT_TRUE(core.query_model_details(model, "GPU").plan.is_null()) << "a single device has no plan";
    // A plan that cannot be honoured is compile's error, before anything is compiled.
    const std::string small = error_of([&] { core.query_model_details(model, "HETERO:GPU,CPU", pipeline(kLayerBytes, kLayerBytes * 2)); });
    EXPECT_NE(small.find("does not fit HETERO:GPU,CPU"), std::string::npos) << small;
    // One that compile would refuse for another reason is said in the plan; the per-op answers stand.
    const QueryResult limited = core.query_model_details(model, "HETERO:GPU,CPU", {{"HETERO_MAX_SUBGRAPHS", 1}, {"DEVICE_PROPERTIES", pipeline(limit).at("DEVICE_PROPERTIES")}, {"MODEL_DISTRIBUTION_POLICY", "PIPELINE_PARALLEL"}});
    EXPECT_EQ(limited.affinity.at("layer0/matmul"), "GPU");
    ASSERT_TRUE(limited.plan.contains("error")) << limited.plan.dump();
    EXPECT_NE(limited.plan["error"].get<std::string>().find("HETERO_MAX_SUBGRAPHS 1"), std::string::npos) << limited.plan.dump();
}

// HETERO_AFFINITY_PATTERNS come before the memory split: the ops a pattern sends to the GPU count
// against its budget, and the stages are cut around them.
TEST(PipelineParallel, PatternsPlaceOpsBeforeTheMemorySplit) {
    Core core;
    const auto model = layers();
    AnyMap props = pipeline(kLayerBytes * 5 / 2);
    props["HETERO_AFFINITY_PATTERNS"] = AnyMap{{"^layer5/", "GPU"}};
    CompiledModel compiled = core.compile_model(model, "HETERO:GPU,CPU", props);
    const nlohmann::json split = compiled.get_property("HETERO_SPLIT");
    EXPECT_EQ(split["affinity"]["layer5/matmul"], "GPU") << "by the pattern";
    EXPECT_EQ(split["affinity"]["layer0/matmul"], "GPU") << "the first stage";
    EXPECT_EQ(split["affinity"]["layer1/matmul"], "CPU") << "the GPU's room went to layer 5";
    EXPECT_EQ(split["memory"][0]["weights_bytes"], 2 * kLayerBytes);
    InferRequest r = compiled.create_infer_request();
    const Tensor x = random_tensor({1, kWidth}, 50);
    r.set_tensor("x", x);
    r.infer();
    const RunResult want = run_on(model, "REFERENCE", {{"x", x}});
    expect_near(want.outputs.at(0), r.get_tensor("y").to_vector<float>(), 1e-4, 1e-4, "HETERO:GPU,CPU", "y");
    const std::string unknown = error_of([&] {
        AnyMap bad = pipeline(kLayerBytes * 5 / 2);
        bad["HETERO_AFFINITY_PATTERNS"] = AnyMap{{"^layer5/", "NPU"}};
        core.compile_model(model, "HETERO:GPU,CPU", bad);
    });
    EXPECT_NE(unknown.find("which is not a device of the HETERO list GPU,CPU"), std::string::npos) << unknown;
}

// Two GPU instances (two PoCL devices here, two_pocl_devices.cpp): GPU.0 takes the layers that fit
// its limit and GPU.1 the rest, the crossing copied device to device, the outputs REFERENCE's.
TEST(PipelineParallel, TwoGpuInstancesSplitByMemoryAndCrossDeviceToDevice) {
    Core core;
    const auto model = layers();
    const int64_t limit = kLayerBytes * 5 / 2;
    const AnyMap props{{"MODEL_DISTRIBUTION_POLICY", "PIPELINE_PARALLEL"},
                       {"HETERO_CROSSING_MEMORY", "DEVICE"},  // PoCL shares host memory: AUTO would stage through it
                       {"DEVICE_PROPERTIES", AnyMap{{"GPU.0", AnyMap{{"DEVICE_MEMORY_LIMIT", limit}, {"GPU_ZERO_COPY", false}}},
                                                    {"GPU.1", AnyMap{{"GPU_ZERO_COPY", false}}}}}};
    const uint64_t before = core.get_property("GPU.0", "DEVICE_MEMORY").at("used_bytes").get<uint64_t>();
    CompiledModel compiled = core.compile_model(model, "HETERO:GPU.0,GPU.1", props);
    const nlohmann::json split = compiled.get_property("HETERO_SPLIT");
    EXPECT_EQ(split["affinity"]["layer1/matmul"], "GPU.0");
    EXPECT_EQ(split["affinity"]["layer2/matmul"], "GPU.1") << split.dump();
    ASSERT_EQ(split["transfers"].size(), 1u) << split.dump();
    EXPECT_EQ(split["transfers"][0]["memory"], "device-to-device");
    EXPECT_EQ(split["memory"][0]["budget_bytes"], limit);
    EXPECT_EQ(split["memory"][1]["weights_bytes"], 4 * kLayerBytes);
    InferRequest r = compiled.create_infer_request();
    const uint64_t held = core.get_property("GPU.0", "DEVICE_MEMORY").at("used_bytes").get<uint64_t>() - before;
    const uint64_t planned = split["memory"][0]["total_bytes"].get<uint64_t>();
    std::printf("GPU.0: planned %llu bytes, held %llu with one request, limit %lld\n",
                static_cast<unsigned long long>(planned), static_cast<unsigned long long>(held), static_cast<long long>(limit));
    EXPECT_LE(held, static_cast<uint64_t>(limit));
    EXPECT_NEAR(static_cast<double>(held), static_cast<double>(planned), 0.1 * static_cast<double>(planned));
    const Tensor x = random_tensor({1, kWidth}, 51);
    r.set_tensor("x", x);
    r.infer();
    const RunResult want = run_on(model, "REFERENCE", {{"x", x}});
    expect_near(want.outputs.at(0), r.get_tensor("y").to_vector<float>(), 1e-4, 1e-4, "HETERO:GPU.0,GPU.1", "y");
}

// The split model's y on one input against REFERENCE's. Eight residual layers add up to values
// near 200, summed in another order on each device.
void expect_residual_layers_match_reference(const std::shared_ptr<Model>& model, CompiledModel& compiled, int seed) {
    const Tensor x = random_tensor({1, kNarrow}, seed);
    InferRequest r = compiled.create_infer_request();
    r.set_tensor("x", x);
    r.infer();
    expect_near(run_on(model, "REFERENCE", {{"x", x}}).outputs.at(0), r.get_tensor("y").to_vector<float>(), 1e-3, 1e-3,
                "HETERO:GPU,CPU", "y");
}

// One request: the GPU takes what fits (five layers and the first half of the sixth), and the cut
// moves back to the sixth layer's start, where one tensor crosses rather than two.
TEST(PipelineParallel, TheCutMovesBackToWhereTheFewestBytesCross) {
    Core core;
    const auto model = residual_layers();
    const int64_t limit = 11 * kNarrowBytes + 8192;  // eleven weight matrices and the activations
    CompiledModel compiled = core.compile_model(model, "HETERO:GPU,CPU", pipeline(limit));
    const nlohmann::json split = compiled.get_property("HETERO_SPLIT");
    EXPECT_EQ(split["affinity"]["layer4/residual"], "GPU");
    EXPECT_EQ(split["affinity"]["layer5/up"], "CPU") << "the sixth layer whole on the CPU: " << split["affinity"].dump();
    EXPECT_EQ(split["transfer_bytes"], kNarrow * 4) << "one [1, 64] tensor crosses";
    const QueryResult q = core.query_model_details(model, "HETERO:GPU,CPU", pipeline(limit));
    EXPECT_NE(q.explanation.at("layer2/up").find("cut where the fewest bytes cross"), std::string::npos)
        << q.explanation.at("layer2/up");
    expect_residual_layers_match_reference(model, compiled, 52);
}

// Several requests in flight: the stages are cut so that the slower one is as fast as the
// estimates allow, though the GPU could hold the whole model; one request fills the GPU instead.
TEST(PipelineParallel, RequestsInFlightBalanceTheStages) {
    Core core;
    const auto model = residual_layers();
    auto slowest = [](const nlohmann::json& split) {
        double worst = 0;
        for (const auto& d : split["memory"]) worst = std::max(worst, d["predicted_us"].get<double>());
        return worst;
    };
    AnyMap props = pipeline(1 << 20);
    const nlohmann::json filled = core.compile_model(model, "HETERO:GPU,CPU", props).get_property("HETERO_SPLIT");
    EXPECT_EQ(filled["subgraphs"].size(), 1u) << "one request: the GPU holds it all";
    props["PERFORMANCE_HINT_NUM_REQUESTS"] = 2;
    CompiledModel compiled = core.compile_model(model, "HETERO:GPU,CPU", props);
    const nlohmann::json split = compiled.get_property("HETERO_SPLIT");
    ASSERT_EQ(split["subgraphs"].size(), 2u) << split.dump();
    EXPECT_LT(slowest(split), slowest(filled)) << split["memory"].dump() << " against " << filled["memory"].dump();
    EXPECT_EQ(split["memory"][0]["requests"], 2);
    std::printf("slowest stage predicted: %.1f us balanced for 2 requests, %.1f us on the GPU alone\n", slowest(split),
                slowest(filled));
    const QueryResult q = core.query_model_details(model, "HETERO:GPU,CPU", props);
    EXPECT_NE(q.explanation.at("layer0/up").find("slowest is fastest for 2 requests in flight"), std::string::npos)
        << q.explanation.at("layer0/up");
    expect_residual_layers_match_reference(model, compiled, 53);
}

TEST(PipelineParallel, WhatCannotBeHonouredIsAnErrorNeverAOneDeviceRun) {
    Core core;
    const auto model = layers();
    // Every device too small: says so, with the devices' sizes.
    const std::string small = error_of([&] { core.compile_model(model, "HETERO:GPU,CPU", pipeline(kLayerBytes, kLayerBytes * 2)); });
    EXPECT_NE(small.find("does not fit HETERO:GPU,CPU with MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL"), std::string::npos)
        << small;
    EXPECT_NE(small.find("raise DEVICE_MEMORY_LIMIT"), std::string::npos) << small;
    // A device that reports no memory (REFERENCE has no memory_info) and was given no limit.
    const std::string none = error_of([&] {
        core.compile_model(model, "HETERO:GPU,REFERENCE", pipeline(kLayerBytes * 3));
    });
    EXPECT_NE(none.find("REFERENCE reports none"), std::string::npos) << none;
    EXPECT_NE(none.find("DEVICE_MEMORY_LIMIT"), std::string::npos) << none;
    const std::string policy = error_of([&] {
        core.compile_model(model, "HETERO:GPU,CPU", {{"MODEL_DISTRIBUTION_POLICY", "TENSOR_PARALLEL"}});
    });
    EXPECT_NE(policy.find("MODEL_DISTRIBUTION_POLICY 'TENSOR_PARALLEL' is not one HETERO has"), std::string::npos) << policy;
}

}  // namespace
}  // namespace mosaic::test::gpu
