// The host's device-memory services (ABI 1.3) as an orchestrator calls them through a Core's host
// table: paths between memories, buffers, copies (peer, host-staged, host), and the check that keeps
// a device buffer away from a request of another plugin. Runs with two GPU instances (see
// gpu_buffers_test.cpp).
#include "device_memory/memory_test_util.hpp"
#include "plugins/test_plugins.hpp"

#include "runtime/core_impl.hpp"
#include "runtime/host_memory.hpp"

#include <mosaic/plugin_abi.h>

#include <gtest/gtest.h>

#include <numeric>

namespace mosaic::test {
namespace {

class HostMemory : public ::testing::Test {
protected:
    void SetUp() override {
        core_ = std::make_shared<Core::Impl>(build_registry().string());
        core_->bind_host(core_);
        context_.table = make_core_host_api(&context_);
        context_.core = core_;
    }
    void TearDown() override {
        for (auto& [device, buffer] : buffers_) h().release_buffer(h().host_context, device.c_str(), buffer);
    }
    const mosaic_host_api& h() const { return context_.table; }

    static std::string status(mosaic_status* s) { return status_text(s); }
    void* allocate(const std::string& device, size_t bytes) {
        void* buffer = nullptr;
        EXPECT_EQ("", status(h().allocate_buffer(h().host_context, device.c_str(), bytes, &buffer)));
        buffers_.emplace_back(device, buffer);
        return buffer;
    }
    static mosaic_tensor tensor(void* data, size_t bytes, const char* device) { return f32_tensor(data, bytes, device); }
    std::string copy(const mosaic_tensor& src, const mosaic_tensor& dst) {
        return status(h().copy(h().host_context, &src, &dst, nullptr, nullptr));
    }

    std::shared_ptr<Core::Impl> core_;
    HostContext context_;
    std::vector<std::pair<std::string, void*>> buffers_;
};

TEST_F(HostMemory, PathsBetweenMemories) {
    auto path = [&](const char* from, const char* to) { return h().copy_path(h().host_context, from, to); };
    EXPECT_EQ(path("GPU.0", "GPU.1"), MOSAIC_COPY_DEVICE);  // one OpenCL context: peer to peer
    EXPECT_EQ(path("GPU.1", "GPU.1"), MOSAIC_COPY_DEVICE);
    EXPECT_EQ(path("GPU.0", nullptr), MOSAIC_COPY_DEVICE_TO_HOST);
    EXPECT_EQ(path(nullptr, "GPU.1"), MOSAIC_COPY_HOST_TO_DEVICE);
    EXPECT_EQ(path("CPU", "GPU.0"), MOSAIC_COPY_HOST_TO_DEVICE);  // the CPU's tensors are host memory
    EXPECT_EQ(path("CPU", "REFERENCE"), MOSAIC_COPY_SAME_MEMORY);
    EXPECT_EQ(path(nullptr, nullptr), MOSAIC_COPY_SAME_MEMORY);
}

TEST_F(HostMemory, CopiesGoPeerToPeerAndBackToTheHost) {
    std::vector<float> in(2048), out(2048, 0.f);
    std::iota(in.begin(), in.end(), -100.f);
    const size_t bytes = in.size() * sizeof(float);
    void* on0 = allocate("GPU.0", bytes);
    void* on1 = allocate("GPU.1", bytes);
    ASSERT_EQ("", copy(tensor(in.data(), bytes, nullptr), tensor(on0, bytes, "GPU.0")));
    ASSERT_EQ("", copy(tensor(on0, bytes, "GPU.0"), tensor(on1, bytes, "GPU.1")));
    // With a completion callback: it runs once, with success.
    struct Done {
        int calls = 0;
        std::string status;
    } done;
    const mosaic_tensor src = tensor(on1, bytes, "GPU.1"), dst = tensor(out.data(), bytes, nullptr);
    ASSERT_EQ(nullptr, h().copy(h().host_context, &src, &dst,
                                [](void* user, mosaic_status* s) {
                                    auto* d = static_cast<Done*>(user);
                                    ++d->calls;
                                    d->status = status(s);
                                },
                                &done));
    EXPECT_EQ(done.calls, 1);
    EXPECT_EQ(done.status, "");
    EXPECT_EQ(out, in);
}

TEST_F(HostMemory, MemoryFiguresComeFromThePlugin) {
    mosaic_memory_info info{};
    info.struct_size = sizeof(info);
    ASSERT_EQ("", status(h().memory_info(h().host_context, "GPU.1", &info)));
    EXPECT_GT(info.total_bytes, 0u);
    const std::string cpu = status(h().memory_info(h().host_context, "REFERENCE", &info));
    EXPECT_EQ(cpu.substr(0, 1), std::to_string(MOSAIC_ERROR_NOT_SUPPORTED)) << cpu;
    EXPECT_CONTAINS(status(h().memory_info(h().host_context, "HETERO:GPU,CPU", &info)), "is not one device");
    EXPECT_CONTAINS(status(h().memory_info(h().host_context, "NOPE", &info)), "'NOPE' is not registered");
}

TEST_F(HostMemory, BadBuffersAndCopiesAreRefusedNamingWhy) {
    void* buffer = nullptr;
    const std::string cpu = status(h().allocate_buffer(h().host_context, "CPU", 64, &buffer));
    EXPECT_EQ(cpu.substr(0, 1), std::to_string(MOSAIC_ERROR_NOT_SUPPORTED)) << cpu;
    EXPECT_CONTAINS(cpu, "device 'CPU' has no memory of its own");
    std::vector<float> small(4), big(8);
    EXPECT_CONTAINS(copy(tensor(small.data(), 16, nullptr), tensor(big.data(), 32, nullptr)),
                    "the source holds 16 bytes, the destination 32");
    EXPECT_CONTAINS(copy(tensor(small.data(), 16, nullptr), tensor(small.data(), 16, "CPU")),
                    "device 'CPU' has no buffers: its tensors are host memory");
    mosaic_tensor unnamed = tensor(small.data(), 16, nullptr);
    unnamed.memory_kind = MOSAIC_MEMORY_DEVICE;
    EXPECT_CONTAINS(copy(tensor(small.data(), 16, nullptr), unnamed), "names no device");
}

TEST_F(HostMemory, ARequestGetsOnlyBuffersOfItsOwnDevicesPlugin) {
    std::vector<float> data(6);
    const mosaic_tensor host = tensor(data.data(), 24, nullptr), on_gpu = tensor(data.data(), 24, "GPU.1");
    EXPECT_EQ("", status(check_request_memory(*core_->device("GPU"), &on_gpu, 1, &host, 1)));
    const std::string refused = status(check_request_memory(*core_->device("CPU"), &host, 1, &on_gpu, 1));
    EXPECT_EQ(refused.substr(0, 1), std::to_string(MOSAIC_ERROR_INVALID_ARGUMENT)) << refused;
    EXPECT_CONTAINS(refused, "output 0 is a buffer of device 'GPU.1'; a request compiled on 'CPU' reads host memory");
}

}  // namespace
}  // namespace mosaic::test
