// HETERO's crossings in device memory (ABI 1.3): a model split over two GPU instances (two PoCL
// devices in one OpenCL context, two_pocl_devices.cpp asks PoCL for them) keeps its intermediate
// tensors on the devices, copies GPU.0 -> GPU.1 without host staging, equals REFERENCE, and names
// each crossing's path in its profiling record; HETERO_CROSSING_MEMORY HOST and a crossing to the
// CPU go through host memory. PoCL's memory is the host's, where HETERO_CROSSING_MEMORY AUTO leaves
// crossings (a discrete GPU's stay on the devices); DEVICE keeps them on the devices all the same.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>

namespace mosaic::test::gpu {
namespace {

// x -> a = Relu (GPU.0) -> b = a * 3 (GPU.1) -> c = a + b (GPU.0) -> y. Three subgraphs: a crosses
// GPU.0 -> GPU.1 and is read again on GPU.0 (device-resident there); b crosses GPU.1 -> GPU.0.
std::shared_ptr<Model> two_instance_model(const std::string& first, const std::string& second) {
    ModelBuilder b("two_instances");
    Output x = b.parameter("x", ElementType::f32, {2, 4, 8});
    Output a = b.op("Relu", {x}, {}, "a");
    Output m = b.op("Multiply", {a, b.constant<float>({1}, {3.0f}, "three")}, {}, "b");
    b.result(b.op("Add", {a, m}, {}, "c"), "y");
    auto model = b.build();
    for (Node* n : model->get_ops()) n->get_rt_info()["affinity"] = n->get_friendly_name() == "b" ? second : first;
    return model;
}

bool gpu_is_discrete() { return shared_core().get_property("GPU", "DEVICE_TYPE").get<std::string>() == "discrete"; }

const Inputs& inputs() {
    static const Inputs in{{"x", random_tensor({2, 4, 8}, 31)}};
    return in;
}

// Crossing records of a run: "tensor from -> to" (the record's name without its byte count) -> path.
std::map<std::string, std::string> crossings_of(const RunResult& run) {
    std::map<std::string, std::string> found;
    for (const ProfilingInfo& p : run.profile)
        if (p.node_type == "Transfer" && p.node_name.rfind("transfer: ", 0) == 0)
            found[p.node_name.substr(10, p.node_name.rfind(',') - 10)] = p.exec_type;
    return found;
}

TEST(HeteroCrossings, TwoGpuInstancesAreVisible) {
    const auto ids = shared_core().get_property("GPU", "AVAILABLE_DEVICES");
    ASSERT_GE(ids.size(), 2u) << "this suite needs two OpenCL devices: POCL_DEVICES=\"pthread pthread\" (PoCL 3), "
                                 "\"cpu cpu\" (PoCL 4 and later); got " << ids.dump();
}

const AnyMap on_devices = {{"HETERO_CROSSING_MEMORY", "DEVICE"}};

TEST(HeteroCrossings, ASplitOverGpu0AndGpu1EqualsReferenceAndCopiesDeviceToDevice) {
    const RunResult run = expect_device_matches_reference(two_instance_model("GPU.0", "GPU.1"), "HETERO:GPU.0,GPU.1",
                                                          inputs(), kModelAtol, kModelRtol, on_devices);
    const std::map<std::string, std::string> expected = {
        {"a:0 subgraph0 (GPU.0) -> subgraph1 (GPU.1)", "device-to-device"},
        {"b:0 subgraph1 (GPU.1) -> subgraph2 (GPU.0)", "device-to-device"}};
    EXPECT_EQ(crossings_of(run), expected);
    // The compiled model says so before anything runs.
    const nlohmann::json split = shared_core()
                                     .compile_model(two_instance_model("GPU.0", "GPU.1"), "HETERO:GPU.0,GPU.1", on_devices)
                                     .get_property("HETERO_SPLIT");
    ASSERT_EQ(split["transfers"].size(), 2u) << split.dump();
    for (const auto& t : split["transfers"]) EXPECT_EQ(t["memory"], "device-to-device") << t.dump();
}

TEST(HeteroCrossings, ByDefaultADeviceSharingHostMemoryLeavesCrossingsThere) {
    const bool shares = shared_core().get_property("GPU.0", "DEVICE_MEMORY").at("shares_host_memory").get<bool>();
    EXPECT_EQ(shares, !gpu_is_discrete());
    const RunResult run = expect_device_matches_reference(two_instance_model("GPU.0", "GPU.1"), "HETERO:GPU.0,GPU.1",
                                                          inputs());
    // PoCL reads the host tensor in place (GPU_ZERO_COPY); a discrete GPU copies device to device.
    for (const auto& [crossing, path] : crossings_of(run)) EXPECT_EQ(path, shares ? "zero-copy" : "device-to-device") << crossing;
    EXPECT_EQ(crossings_of(run).size(), 2u);
}

TEST(HeteroCrossings, HostMemoryStagesEveryCrossingWithTheSameBits) {
    const auto model = two_instance_model("GPU.0", "GPU.1");
    const RunResult device = run_on(model, "HETERO:GPU.0,GPU.1", inputs(), {{"PERF_COUNT", true}, {"HETERO_CROSSING_MEMORY", "DEVICE"}});
    const AnyMap discrete = {{"GPU", AnyMap{{"GPU_ZERO_COPY", false}}}};
    const RunResult staged = run_on(model, "HETERO:GPU.0,GPU.1", inputs(),
                                    {{"PERF_COUNT", true}, {"HETERO_CROSSING_MEMORY", "HOST"}, {"DEVICE_PROPERTIES", discrete}});
    EXPECT_EQ(staged.outputs, device.outputs);
    for (const auto& [crossing, path] : crossings_of(staged)) EXPECT_EQ(path, "host-staged") << crossing;
    EXPECT_EQ(crossings_of(staged).size(), 2u);
    const nlohmann::json split = shared_core()
                                     .compile_model(model, "HETERO:GPU.0,GPU.1", {{"HETERO_CROSSING_MEMORY", "HOST"}})
                                     .get_property("HETERO_SPLIT");
    for (const auto& t : split["transfers"]) EXPECT_EQ(t["memory"], "host") << t.dump();
}

TEST(HeteroCrossings, ACrossingToTheCpuGoesThroughHostMemory) {
    // The CPU has no buffers of its own: its tensors are host memory, which the GPU writes.
    const RunResult run = expect_device_matches_reference(
        two_instance_model("GPU.0", "CPU"), "HETERO:GPU.0,CPU", inputs(), kModelAtol, kModelRtol,
        {{"HETERO_CROSSING_MEMORY", "DEVICE"}, {"DEVICE_PROPERTIES", AnyMap{{"GPU", AnyMap{{"GPU_ZERO_COPY", false}}}}}});
    const std::map<std::string, std::string> expected = {{"a:0 subgraph0 (GPU.0) -> subgraph1 (CPU)", "host-staged"},
                                                         {"b:0 subgraph1 (CPU) -> subgraph2 (GPU.0)", "host-staged"}};
    EXPECT_EQ(crossings_of(run), expected);
}

TEST(HeteroCrossings, ExportedAndImportedSplitKeepsItsDevicePaths) {
    CompiledModel compiled =
        shared_core().compile_model(two_instance_model("GPU.0", "GPU.1"), "HETERO:GPU.0,GPU.1", on_devices);
    std::stringstream blob;
    compiled.export_model(blob);
    CompiledModel imported = shared_core().import_model(blob, "HETERO:GPU.0,GPU.1", {{"PERF_COUNT", true}});
    InferRequest r = imported.create_infer_request();
    r.set_tensor("x", inputs().at("x"));
    r.infer();
    RunResult run{{r.get_output_tensor(0).to_vector<float>()}, r.get_profiling_info()};
    EXPECT_EQ(run.outputs, run_on(two_instance_model("GPU.0", "GPU.1"), "HETERO:GPU.0,GPU.1", inputs()).outputs);
    for (const auto& [crossing, path] : crossings_of(run)) EXPECT_EQ(path, "device-to-device") << crossing;
}

TEST(HeteroCrossings, ConcurrentAsyncRequestsAreBitIdenticalToSerial) {
    CompiledModel compiled =
        shared_core().compile_model(two_instance_model("GPU.0", "GPU.1"), "HETERO:GPU.0,GPU.1", on_devices);
    std::vector<Tensor> xs;
    std::vector<std::vector<float>> serial;
    for (size_t i = 0; i < 4; ++i) {
        xs.push_back(random_tensor({2, 4, 8}, 40 + i));
        InferRequest r = compiled.create_infer_request();
        r.set_tensor("x", xs.back());
        r.infer();
        serial.push_back(r.get_output_tensor(0).to_vector<float>());
    }
    std::vector<std::thread> threads;
    std::vector<std::string> problems(xs.size());
    for (size_t t = 0; t < xs.size(); ++t)
        threads.emplace_back([&, t] {
            InferRequest r = compiled.create_infer_request();
            for (int round = 0; round < 10 && problems[t].empty(); ++round) {
                r.set_tensor("x", xs[t]);
                r.start_async();
                r.wait();
                if (r.get_output_tensor(0).to_vector<float>() != serial[t]) problems[t] = "round " + std::to_string(round);
            }
        });
    for (auto& th : threads) th.join();
    for (size_t t = 0; t < problems.size(); ++t) EXPECT_EQ(problems[t], "") << "thread " << t << " differs from serial";
}

}  // namespace
}  // namespace mosaic::test::gpu
