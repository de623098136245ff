// The GPU plugin's device memory through its ABI table (1.3), as the host calls it: memory figures,
// buffers, copies between host memory, one instance and another (GPU.0 -> GPU.1 in one OpenCL
// context), requests reading and writing buffers in place, and what bad calls get. The suite runs
// on two PoCL devices, GPU.0 and GPU.1 (two_pocl_devices.cpp).
#include "device_memory/memory_test_util.hpp"
#include "plugins/test_plugins.hpp"

#include "graph/graph_view.hpp"
#include "registry/plugin_library.hpp"

#include <mosaic/plugin_abi.h>
#include <mosaic/sdk/status.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

namespace mosaic::test {
namespace {

// The GPU plugin's device "GPU", created through its table with the process's host services.
class GpuBuffers : public ::testing::Test {
protected:
    void SetUp() override {
        library_ = PluginLibrary::load((build_dir() / "lib" / "mosaic" / "plugins" / "libmosaic_gpu_plugin.so").string());
        ASSERT_TRUE(library_->has_buffers()) << "the GPU plugin offers no allocate_buffer / copy";
        ASSERT_EQ("", status(library_->create_device(process_host_api(), "GPU", "{}", &device_)));
        std::string ids;
        ASSERT_EQ("", status(api().device_ids(device_, sdk::string_sink(ids))));
        ASSERT_GE(nlohmann::json::parse(ids).size(), 2u)
            << "two GPU instances expected (POCL_DEVICES=\"pthread pthread\"), got " << ids;
    }
    void TearDown() override {
        for (auto& [id, buffer] : buffers_) api().release_buffer(device_, id.c_str(), buffer);
        if (device_) api().release_device(device_);
    }

    const mosaic_plugin_api& api() const { return library_->api(); }

    static std::string status(mosaic_status* s) { return status_text(s); }
    static std::string code_of(const std::string& status_text) { return status_text.substr(0, status_text.find(':')); }

    void* allocate(const std::string& id, size_t bytes) {
        void* buffer = nullptr;
        EXPECT_EQ("", status(api().allocate_buffer(device_, id.c_str(), bytes, &buffer)));
        buffers_.emplace_back(id, buffer);
        return buffer;
    }

    static mosaic_tensor host_tensor(std::vector<float>& data) {
        return f32_tensor(data.data(), data.size() * sizeof(float), nullptr);
    }
    static mosaic_tensor device_tensor(void* buffer, size_t bytes, const char* device) {
        return f32_tensor(buffer, bytes, device);
    }
    std::string copy(const std::string& id, const mosaic_tensor& src, const mosaic_tensor& dst) {
        return status(api().copy(device_, id.c_str(), &src, &dst, nullptr, nullptr));
    }

    std::shared_ptr<PluginLibrary> library_;
    mosaic_device* device_ = nullptr;
    std::vector<std::pair<std::string, void*>> buffers_;
};

std::vector<float> ramp(size_t n, float start) {
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), start);
    return v;
}

TEST_F(GpuBuffers, MemoryInfoCountsWhatTheBuffersHold) {
    mosaic_memory_info before{};
    before.struct_size = sizeof(before);
    ASSERT_EQ("", status(api().memory_info(device_, "1", &before)));
    EXPECT_GT(before.total_bytes, 0u);
    EXPECT_EQ(before.available_bytes, before.total_bytes - before.used_bytes);
    allocate("1", 1 << 20);
    mosaic_memory_info after = before;
    ASSERT_EQ("", status(api().memory_info(device_, "1", &after)));
    EXPECT_EQ(after.used_bytes, before.used_bytes + (1u << 20));
    EXPECT_EQ(after.available_bytes, before.available_bytes - (1u << 20));
}

TEST_F(GpuBuffers, HostToDeviceToHostGivesTheBytesBack) {
    std::vector<float> in = ramp(1000, -3.5f), out(1000, 0.f);
    const size_t bytes = in.size() * sizeof(float);
    void* buffer = allocate("0", bytes);
    ASSERT_EQ("", copy("0", host_tensor(in), device_tensor(buffer, bytes, "GPU.0")));
    ASSERT_EQ("", copy("0", device_tensor(buffer, bytes, "GPU.0"), host_tensor(out)));
    EXPECT_EQ(out, in);
}

TEST_F(GpuBuffers, OneInstanceCopiesIntoAnothersBufferWithoutTheHost) {
    EXPECT_EQ(1, api().can_copy(device_, "0", "GPU.1"));
    EXPECT_EQ(1, api().can_copy(device_, "1", "GPU"));  // "GPU" is the default instance, GPU.0
    EXPECT_EQ(1, api().can_copy(device_, "0", nullptr));  // host memory
    EXPECT_EQ(0, api().can_copy(device_, "0", "CPU"));    // another plugin's memory
    std::vector<float> in = ramp(4096, 7.f), out(4096, 0.f);
    const size_t bytes = in.size() * sizeof(float);
    void* on0 = allocate("0", bytes);
    void* on1 = allocate("1", bytes);
    ASSERT_EQ("", copy("0", host_tensor(in), device_tensor(on0, bytes, "GPU.0")));
    ASSERT_EQ("", copy("0", device_tensor(on0, bytes, "GPU.0"), device_tensor(on1, bytes, "GPU.1")));
    ASSERT_EQ("", copy("1", device_tensor(on1, bytes, "GPU.1"), host_tensor(out)));
    EXPECT_EQ(out, in);
}

TEST_F(GpuBuffers, MemoryInfoSaysWhetherTheMemoryIsTheHosts) {
    std::string type;
    ASSERT_EQ("", status(api().get_property(device_, "DEVICE_TYPE", sdk::string_sink(type))));
    mosaic_memory_info info{};
    info.struct_size = sizeof(info);
    ASSERT_EQ("", status(api().memory_info(device_, "0", &info)));
    EXPECT_EQ(info.shares_host_memory, type == "\"integrated\"" ? 1u : 0u) << type;  // PoCL: integrated
}

TEST_F(GpuBuffers, BadAllocationsAndCopiesAreRefusedNamingWhy) {
    void* buffer = nullptr;
    EXPECT_EQ(code_of(status(api().allocate_buffer(device_, "0", 0, &buffer))), std::to_string(MOSAIC_ERROR_INVALID_ARGUMENT));
    const std::string huge = status(api().allocate_buffer(device_, "0", size_t{1} << 50, &buffer));
    EXPECT_EQ(code_of(huge), std::to_string(MOSAIC_ERROR_OUT_OF_MEMORY)) << huge;
    EXPECT_CONTAINS(huge, "GPU.0");
    EXPECT_CONTAINS(status(api().allocate_buffer(device_, "7", 64, &buffer)), "no instance '7'");

    std::vector<float> small(4), big(8);
    void* on0 = allocate("0", big.size() * sizeof(float));
    const std::string sizes = copy("0", host_tensor(small), device_tensor(on0, big.size() * sizeof(float), "GPU.0"));
    EXPECT_EQ(code_of(sizes), std::to_string(MOSAIC_ERROR_INVALID_ARGUMENT)) << sizes;
    // A tensor larger than the buffer it names: refused before any byte moves.
    std::vector<float> larger(64);
    const std::string overflow = copy("0", host_tensor(larger), device_tensor(on0, larger.size() * sizeof(float), "GPU.0"));
    EXPECT_CONTAINS(overflow, "cannot hold");
    const std::string hosts = copy("0", host_tensor(small), host_tensor(small));
    EXPECT_CONTAINS(hosts, "neither side is a buffer");
}

// x[2,3] -> Relu -> y, compiled on one instance through the table.
class GpuBufferRequests : public GpuBuffers {
protected:
    void compile(const std::string& id) {
        HostGraph graph(*relu_model());
        const std::string props = nlohmann::json{{"DEVICE_ID", id}}.dump();
        ASSERT_EQ("", status(api().compile(device_, graph.view(), props.c_str(), &model_)));
        ASSERT_EQ("", status(api().create_request(model_, &request_)));
    }
    void TearDown() override {
        if (request_) api().release_request(request_);
        if (model_) api().release_compiled_model(model_);
        GpuBuffers::TearDown();
    }
    std::string infer(const mosaic_tensor& in, const mosaic_tensor& out) {
        return status(api().infer(request_, &in, 1, &out, 1));
    }
    mosaic_tensor shaped(mosaic_tensor t) const {
        t.rank = 2;
        t.dims = dims_;
        return t;
    }

    const int64_t dims_[2] = {2, 3};
    const size_t bytes_ = 6 * sizeof(float);
    mosaic_compiled_model* model_ = nullptr;
    mosaic_infer_request* request_ = nullptr;
};

TEST_F(GpuBufferRequests, ARequestReadsAndWritesItsInstancesBuffersInPlace) {
    compile("1");
    std::vector<float> x = sample_input(), y(6, -1.f);
    void* in = allocate("1", bytes_);
    void* out = allocate("1", bytes_);
    ASSERT_EQ("", copy("1", host_tensor(x), device_tensor(in, bytes_, "GPU.1")));
    ASSERT_EQ("", infer(shaped(device_tensor(in, bytes_, "GPU.1")), shaped(device_tensor(out, bytes_, "GPU.1"))));
    ASSERT_EQ("", copy("1", device_tensor(out, bytes_, "GPU.1"), host_tensor(y)));
    EXPECT_EQ(y, relu_of_sample());
    // Host memory still works on the same request, mixed with a buffer.
    std::fill(y.begin(), y.end(), -1.f);
    ASSERT_EQ("", infer(shaped(device_tensor(in, bytes_, "GPU.1")), shaped(host_tensor(y))));
    EXPECT_EQ(y, relu_of_sample());
}

TEST_F(GpuBufferRequests, AnotherInstancesBufferIsRefusedNamingIt) {
    compile("0");
    std::vector<float> y(6);
    void* other = allocate("1", bytes_);
    const std::string refused = infer(shaped(device_tensor(other, bytes_, "GPU.1")), shaped(host_tensor(y)));
    EXPECT_EQ(code_of(refused), std::to_string(MOSAIC_ERROR_INVALID_ARGUMENT)) << refused;
    EXPECT_CONTAINS(refused, "input 0 is in the memory of device 'GPU.1'");
    const std::string foreign = infer(shaped(host_tensor(y)), shaped(device_tensor(other, bytes_, "CPU")));
    EXPECT_CONTAINS(foreign, "output 0 is in the memory of device 'CPU'");
}

TEST_F(GpuBufferRequests, TheCompiledModelReportsWhatItAndEachRequestHold) {
    mosaic_memory_info before{};
    before.struct_size = sizeof(before);
    ASSERT_EQ("", status(api().memory_info(device_, "0", &before)));
    compile("0");
    mosaic_compiled_memory memory{};
    memory.struct_size = sizeof(memory);
    ASSERT_EQ("", status(api().compiled_memory(model_, &memory)));
    EXPECT_EQ(memory.model_bytes, 0u);  // Relu has no weights
    mosaic_memory_info after = before;
    ASSERT_EQ("", status(api().memory_info(device_, "0", &after)));
    EXPECT_EQ(after.used_bytes, before.used_bytes + memory.model_bytes + memory.request_bytes);
}

}  // namespace
}  // namespace mosaic::test
