// Tensors in a device's memory (remote_context.hpp): a request on that device reads and writes them
// where they are, so a value carried from one inference to the next (an LLM's KV cache) never
// crosses to the host; the host reaches them only through copy_to. A device without memory of its
// own hands out host tensors, and a tensor of another device's memory is refused by name.
#include "gpu/gpu_test_util.hpp"

#include <gtest/gtest.h>

namespace mosaic::test::gpu {
namespace {

// x [1, 256] -> MatMul [256, 256] -> Relu -> y [1, 256]: y can be the next inference's x.
std::shared_ptr<Model> square_layer() {
    ModelBuilder b("square_layer");
    Output x = b.parameter("x", ElementType::f32, {1, 256});
    const Attributes plain{{"transpose_a", "false"}, {"transpose_b", "false"}};
    b.result(b.op("Relu", {b.op("MatMul", {x, random_constant(b, {256, 256}, 31, "w")}, plain, "mm")}, {}, "relu"), "y");
    return b.build();
}

uint64_t held(Core& core) { return core.get_property("GPU", "DEVICE_MEMORY").at("used_bytes").get<uint64_t>(); }

std::vector<std::string> transfers(const InferRequest& request) {
    std::vector<std::string> names;
    for (const ProfilingInfo& p : request.get_profiling_info())
        if (p.node_type == "Transfer") names.push_back(p.node_name + " " + p.exec_type);
    return names;
}

TEST(RemoteTensor, ARequestChainsDeviceTensorsWithoutCrossingToTheHost) {
    Core core;
    // GPU_ZERO_COPY off: PoCL then copies host tensors in and out as a discrete GPU does, and says so.
    CompiledModel compiled = core.compile_model(square_layer(), "GPU", {{"GPU_ZERO_COPY", false}, {"PERF_COUNT", true}});
    const RemoteContext context = compiled.get_context();
    ASSERT_TRUE(context.has_device_memory());
    EXPECT_EQ(context.get_device_name(), "GPU");

    // The host's answer: two inferences, the first's y the second's x.
    const Tensor x = random_tensor({1, 256}, 32);
    InferRequest host = compiled.create_infer_request();
    host.set_tensor("x", x);
    host.infer();
    EXPECT_FALSE(transfers(host).empty()) << "host tensors are copied to the device and back";
    const Tensor once = host.get_tensor("y").clone();
    host.set_tensor("x", once);
    host.infer();
    const Tensor twice = host.get_tensor("y").clone();

    const uint64_t before = held(core);
    Tensor a = context.create_tensor(ElementType::f32, {1, 256});
    Tensor b = context.create_tensor(ElementType::f32, {1, 256});
    EXPECT_EQ(held(core) - before, 2u * 256 * sizeof(float)) << "two device tensors";
    EXPECT_TRUE(a.is_remote());
    EXPECT_EQ(a.get_device_name(), "GPU");
    x.copy_to(a);
    InferRequest device = compiled.create_infer_request();
    device.set_tensor("x", a);
    device.set_tensor("y", b);
    device.infer();
    EXPECT_EQ(transfers(device), std::vector<std::string>{}) << "nothing crossed";
    device.set_tensor("x", b);
    device.set_tensor("y", a);
    device.infer();
    EXPECT_EQ(transfers(device), std::vector<std::string>{});

    Tensor out(ElementType::f32, {1, 256});
    b.copy_to(out);
    EXPECT_EQ(out.to_vector<float>(), once.to_vector<float>());
    a.copy_to(out);
    EXPECT_EQ(out.to_vector<float>(), twice.to_vector<float>());

    // The host cannot address device memory: data() and clone() say what to do instead.
    try {
        (void)a.data();
        ADD_FAILURE() << "data() of a device tensor";
    } catch (const std::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("memory of device 'GPU'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("copy_to"), std::string::npos) << e.what();
    }
    EXPECT_THROW(a.clone(), std::logic_error);
    Tensor wrong(ElementType::f32, {1, 255});
    EXPECT_THROW(a.copy_to(wrong), std::invalid_argument);

    // The buffers go with the last tensor that shares them (the request holds them until then).
    device = InferRequest();
    a = Tensor();
    b = Tensor();
    EXPECT_EQ(held(core), before);
}

// A model compiled on an instance by DEVICE_ID hands out that instance's memory, as GPU.1 does.
TEST(RemoteTensor, TheContextIsTheInstanceCompiledOn) {
    Core core;
    const std::vector<std::string> devices = core.get_available_devices();
    if (std::find(devices.begin(), devices.end(), "GPU.1") == devices.end()) GTEST_SKIP() << "one GPU instance";
    for (const AnyMap& where : {AnyMap{{"DEVICE_ID", "1"}}, AnyMap{}}) {
        const std::string device = where.empty() ? "GPU.1" : "GPU";
        CompiledModel compiled = core.compile_model(square_layer(), device, where);
        const RemoteContext context = compiled.get_context();
        EXPECT_EQ(context.get_device_name(), "GPU.1");
        Tensor x = context.create_tensor(ElementType::f32, {1, 256});
        random_tensor({1, 256}, 34).copy_to(x);
        InferRequest request = compiled.create_infer_request();
        request.set_tensor("x", x);
        request.infer();
    }
    EXPECT_THROW(core.get_default_context("GPU.7"), std::runtime_error);
}

TEST(RemoteTensor, ADeviceWithoutMemoryOfItsOwnHandsOutHostTensorsAndOthersAreRefused) {
    Core core;
    CompiledModel on_cpu = core.compile_model(square_layer(), "CPU");
    const RemoteContext cpu = on_cpu.get_context();
    EXPECT_FALSE(cpu.has_device_memory());
    const Tensor host = cpu.create_tensor(ElementType::f32, {1, 256});
    EXPECT_FALSE(host.is_remote());
    EXPECT_EQ(host.to_vector<float>(), std::vector<float>(256, 0.0f)) << "zero-filled";
    EXPECT_FALSE(core.get_default_context("HETERO:GPU,CPU").has_device_memory());

    // A GPU tensor handed to the CPU's request: refused by name, never read as a host pointer.
    const Tensor on_gpu = core.get_default_context("GPU").create_tensor(ElementType::f32, {1, 256});
    Tensor back(ElementType::f32, {1, 256});
    std::fill_n(back.data<float>(), 256, 1.0f);
    on_gpu.copy_to(back);
    EXPECT_EQ(back.to_vector<float>(), std::vector<float>(256, 0.0f)) << "zero-filled on the device too";
    InferRequest request = on_cpu.create_infer_request();
    request.set_tensor("x", on_gpu);
    try {
        request.infer();
        ADD_FAILURE() << "the CPU ran on a GPU buffer";
    } catch (const std::exception& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("input 0 is a buffer of device 'GPU'"), std::string::npos) << what;
        EXPECT_NE(what.find("copy it first"), std::string::npos) << what;
    }
    // The request still runs on host tensors.
    request.set_tensor("x", random_tensor({1, 256}, 33));
    request.infer();
}

}  // namespace
}  // namespace mosaic::test::gpu
