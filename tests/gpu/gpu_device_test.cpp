// The GPU device as a device: how it is listed and described (an OpenCL CPU device standing in for a
// GPU on a machine without one), its properties and their errors (CPU fallback refused, f16 with
// CLBlast, unknown keys, instance ids), ops it lacks (compiled directly, or forced onto it by
// affinity under HETERO), and a machine with no OpenCL platform at all, through the mosaic CLI.
#include "cli/cli_runner.hpp"
#include "gpu/gpu_test_util.hpp"

#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

#include <algorithm>

namespace mosaic::test::gpu {
namespace {

using nlohmann::json;

std::string text_of(const PropertyValue& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string gpu_property(Core& core, const std::string& key) { return text_of(core.get_property("GPU", key)); }

bool has_capability(Core& core, const std::string& capability) {
    const PropertyValue caps = core.get_property("GPU", "OPTIMIZATION_CAPABILITIES");
    if (caps.is_array()) return std::find(caps.begin(), caps.end(), json(capability)) != caps.end();
    return contains(text_of(caps), capability);
}

bool only_a_cpu_fallback(Core& core) { return contains(gpu_property(core, "GPU_DEVICE_STATUS"), "standing in"); }

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

// relu -> `type` -> relu on a [1, 8] input.
std::shared_ptr<Model> model_with(const std::string& type) {
    ModelBuilder b("with_" + type);
    Output x = b.parameter("x", ElementType::f32, {1, 8});
    Output y = b.op("Relu", {x}, {}, "before");
    y = b.op(type, {y}, {}, "the_op");
    b.result(b.op("Relu", {y}, {}, "after"), "y");
    return b.build();
}

TEST(GpuDevice, IsListedAmongTheAvailableDevices) {
    Core core;
    const std::vector<std::string> devices = core.get_available_devices();
    std::vector<std::string> gpus;
    for (const auto& d : devices)
        if (d == "GPU" || d.rfind("GPU.", 0) == 0) gpus.push_back(d);
    ASSERT_FALSE(gpus.empty()) << "devices: " << join(devices);
    const PropertyValue ids = core.get_property("GPU", "AVAILABLE_DEVICES");
    ASSERT_TRUE(ids.is_array()) << ids.dump();
    if (ids.size() == 1) {
        EXPECT_EQ(gpus, std::vector<std::string>{"GPU"}) << "one instance is listed as plain GPU; devices: " << join(devices);
    } else {
        EXPECT_EQ(gpus.size(), ids.size()) << "devices: " << join(devices) << "; AVAILABLE_DEVICES " << ids.dump();
    }
}

TEST(GpuDevice, FullNameSaysWhenAnOpenClCpuDeviceStandsIn) {
    Core core;
    const std::string status = gpu_property(core, "GPU_DEVICE_STATUS");
    const std::string name = gpu_property(core, "FULL_DEVICE_NAME");
    EXPECT_FALSE(name.empty());
    RecordProperty("full_device_name", name);
    if (contains(status, "standing in")) {
        EXPECT_TRUE(contains(name, "standing in for a GPU")) << name;
        EXPECT_TRUE(contains(name, "OpenCL CPU device")) << name;
    } else {
        EXPECT_FALSE(contains(name, "standing in")) << "status '" << status << "', name " << name;
    }
}

TEST(GpuDevice, OptimizationCapabilitiesIncludeFp32AndFp16) {
    Core core;
    EXPECT_TRUE(has_capability(core, "FP32")) << core.get_property("GPU", "OPTIMIZATION_CAPABILITIES").dump();
    EXPECT_TRUE(has_capability(core, "FP16")) << core.get_property("GPU", "OPTIMIZATION_CAPABILITIES").dump();
}

// OpenCL's compute units: what the tiled GEMM sizes its work to (conv_ops.cpp fuses im2col where
// there are at least 8 panels for each); PoCL has one per core it runs on.
TEST(GpuDevice, ExecutionUnitsCountIsTheDevicesComputeUnits) {
    Core core;
    const int64_t units = core.get_property("GPU", "GPU_EXECUTION_UNITS_COUNT").get<int64_t>();
    EXPECT_GT(units, 0);
    if (only_a_cpu_fallback(core) && std::getenv("POCL_MAX_PTHREAD_COUNT") == nullptr) {
        EXPECT_LE(units, static_cast<int64_t>(std::thread::hardware_concurrency()));
    }
}

// Which CLBlast parameters the GEMMs run with: the plugin's table entry for the device's name (PoCL's
// AVX-512 CPU device has one), else CLBlast's own.
TEST(GpuDevice, ACompiledModelSaysWhichGemmParametersItRunsWith) {
    CompiledModel compiled = shared_core().compile_model(small_cnn(), "GPU");
    const std::string tuning = compiled.get_property("GPU_GEMM_TUNING").get<std::string>();
    const std::string device = shared_core().get_property("GPU", "FULL_DEVICE_NAME").get<std::string>();
    if (contains(device, "pthread-skylake-avx512"))
        EXPECT_EQ(tuning.rfind("tuned for pthread-skylake-avx512", 0), 0u) << tuning;
    else
        EXPECT_TRUE(tuning == "CLBlast's own parameters" || tuning.rfind("tuned for ", 0) == 0) << tuning;
}

TEST(GpuDevice, RefusingTheCpuFallbackLeavesNoInstanceButOtherDevicesWork) {
    Core core;  // not the shared one: its GPU keeps the fallback
    if (!only_a_cpu_fallback(core)) GTEST_SKIP() << "this machine has a real OpenCL GPU: " << gpu_property(core, "GPU_DEVICE_STATUS");
    core.set_property("GPU", {{"GPU_ALLOW_CPU_FALLBACK", false}});
    const auto model = small_cnn();
    const std::string msg = error_of([&] { core.compile_model(model, "GPU"); });
    EXPECT_TRUE(contains(msg, "GPU_ALLOW_CPU_FALLBACK")) << msg;
    EXPECT_NO_THROW(core.compile_model(model, "CPU"));
    EXPECT_NO_THROW(core.compile_model(model, "REFERENCE"));
    // The shared core's GPU is untouched.
    EXPECT_NO_THROW(shared_core().compile_model(model, "GPU"));
}

// f16 is storage through core OpenCL's vload_half/vstore_half, so every device offers it; what
// cannot take part is CLBlast (f32 matrices), and a precision the device has no kernels for.
TEST(GpuDevice, HalfPrecisionRefusesClblastAndOtherPrecisionsAreRefused) {
    Core core;
    const std::string clblast = error_of([&] {
        core.compile_model(small_cnn(), "GPU", {properties::hint::inference_precision("f16"), {"GPU_GEMM_KERNEL", "CLBLAST"}});
    });
    EXPECT_TRUE(contains(clblast, "GPU_GEMM_KERNEL CLBLAST")) << clblast;
    EXPECT_TRUE(contains(clblast, "AUTO or TILED")) << clblast;
    const std::string bf16 = error_of([&] {
        core.compile_model(small_cnn(), "GPU", {properties::hint::inference_precision("bf16")});
    });
    EXPECT_TRUE(contains(bf16, "INFERENCE_PRECISION_HINT")) << bf16;
    EXPECT_TRUE(contains(bf16, "f16")) << bf16;
    EXPECT_NO_THROW(core.compile_model(small_cnn(), "GPU", {properties::hint::inference_precision("f16")}));
}

TEST(GpuDevice, UnknownPropertyKeysAreRefused) {
    Core core;
    const std::string set_msg = error_of([&] { core.set_property("GPU", {{"GPU_NO_SUCH_PROPERTY", 1}}); });
    EXPECT_NE(set_msg, "(no error)");
    EXPECT_TRUE(contains(set_msg, "GPU_NO_SUCH_PROPERTY")) << set_msg;
    const std::string compile_msg =
        error_of([&] { core.compile_model(small_cnn(), "GPU", {{"GPU_NO_SUCH_PROPERTY", 1}}); });
    EXPECT_NE(compile_msg, "(no error)");
    EXPECT_TRUE(contains(compile_msg, "GPU_NO_SUCH_PROPERTY")) << compile_msg;
    const std::string get_msg = error_of([&] { core.get_property("GPU", "GPU_NO_SUCH_PROPERTY"); });
    EXPECT_NE(get_msg, "(no error)");
}

TEST(GpuDevice, InstanceIdsSelectAnInstanceOrNameTheAvailableOnes) {
    const auto model = small_cnn();
    const Inputs in{{"x", random_tensor(kCnnInput, 3)}};
    const RunResult plain = run_on(model, "GPU", in);
    const RunResult first = run_on(model, "GPU.0", in);
    ASSERT_EQ(first.outputs.size(), 1u);
    EXPECT_EQ(first.outputs[0], plain.outputs[0]);
    const std::string msg = error_of([&] { shared_core().compile_model(model, "GPU.7"); });
    EXPECT_NE(msg, "(no error)");
    EXPECT_TRUE(contains(msg, "7")) << msg;
    EXPECT_TRUE(contains(msg, "GPU.0")) << "the available instances are named: " << msg;
}

TEST(GpuDevice, CompilingAnOpItLacksNamesTheNode) {
    const auto lacking = op_the_gpu_lacks();
    if (!lacking) GTEST_SKIP() << "the GPU takes every candidate op";
    const auto model = model_with(lacking->type);
    const QueryResult q = shared_core().query_model_details(model, "GPU");
    ASSERT_FALSE(q.affinity.count("the_op") && q.affinity.at("the_op") == "GPU");
    ASSERT_TRUE(q.unsupported.count("the_op")) << lacking->type << " is neither placed nor reported unsupported";
    EXPECT_FALSE(q.unsupported.at("the_op").empty());
    EXPECT_EQ(q.affinity.count("before") ? q.affinity.at("before") : "", "GPU");
    const std::string msg = error_of([&] { shared_core().compile_model(model, "GPU"); });
    EXPECT_NE(msg, "(no error)");
    EXPECT_TRUE(contains(msg, "the_op")) << msg;
    EXPECT_FALSE(contains(msg, "before")) << "only the op the GPU lacks is named: " << msg;
}

TEST(GpuDevice, AnOpItLacksForcedOntoItUnderHeteroIsAClearError) {
    const auto lacking = op_the_gpu_lacks();
    if (!lacking) GTEST_SKIP() << "the GPU takes every candidate op";
    auto model = model_with(lacking->type);
    Node* n = model->find_node("the_op");
    ASSERT_NE(n, nullptr);
    n->get_rt_info()["affinity"] = "GPU";
    const std::string msg = error_of([&] { shared_core().compile_model(model, "HETERO:GPU,CPU"); });
    EXPECT_NE(msg, "(no error)");
    EXPECT_TRUE(contains(msg, "the_op")) << msg;
    EXPECT_TRUE(contains(msg, "GPU")) << msg;
}

// ---- no OpenCL platform at all: the ICD loader pointed at an empty vendors folder ----

class GpuWithoutOpenCl : public ::testing::Test {
protected:
    cli_test::TempDir vendors_;  // empty: the ICD loader finds no driver
    std::map<std::string, std::string> env() const { return {{"OCL_ICD_VENDORS", vendors_.path()}}; }
};

TEST_F(GpuWithoutOpenCl, DevicesStillListsGpuAndCpu) {
    const cli_test::CliResult r = cli_test::run_mosaic({"devices", "--json"}, env());
    ASSERT_EQ(r.exit_code, 0) << r;
    const json doc = json::parse(r.out);
    std::map<std::string, json> by_name;
    for (const auto& d : doc.at("devices")) by_name[d.at("name").get<std::string>()] = d;
    ASSERT_TRUE(by_name.count("GPU")) << r;
    EXPECT_TRUE(by_name.count("CPU")) << r;
    const std::string name = by_name["GPU"].at("properties").at("FULL_DEVICE_NAME").get<std::string>();
    EXPECT_EQ(name.rfind("no OpenCL device", 0), 0u) << name;

    // The plain listing too.
    const cli_test::CliResult plain = cli_test::run_mosaic({"devices"}, env());
    ASSERT_EQ(plain.exit_code, 0) << plain;
    EXPECT_TRUE(contains(plain.out, "FULL_DEVICE_NAME: no OpenCL device")) << plain;
    bool gpu_line = false, cpu_line = false;
    for (const auto& line : cli_test::lines_of(plain.out)) {
        gpu_line = gpu_line || line == "GPU";
        cpu_line = cpu_line || line == "CPU";
    }
    EXPECT_TRUE(gpu_line && cpu_line) << plain;
}

TEST_F(GpuWithoutOpenCl, RunningOnGpuFailsSayingWhatToInstall) {
    const cli_test::CliResult r = cli_test::run_mosaic({"run", "-m", cli_test::default_model(), "-d", "GPU"}, env());
    EXPECT_NE(r.exit_code, 0) << r;
    EXPECT_EQ(r.signal, 0) << r;
    EXPECT_TRUE(contains(r.err, "OpenCL")) << r;
    EXPECT_TRUE(contains(r.err, "install")) << r;
}

TEST_F(GpuWithoutOpenCl, RunningOnCpuStillWorks) {
    const cli_test::CliResult r = cli_test::run_mosaic({"run", "-m", cli_test::default_model(), "-d", "CPU"}, env());
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(r.signal, 0) << r;
}

}  // namespace
}  // namespace mosaic::test::gpu
