// One OpenCL device as the plugin drives it: its context, and the program holding every kernel of
// the plugin, built once per device and set of build options and kept for the process. Compiled
// models of one device share the engine; each infer request makes its own command queue.
//
// The instances of one platform share one context, so that a buffer of GPU.0 is a buffer GPU.1's
// queue can copy from (clEnqueueCopyBuffer within a context: peer to peer where the driver can, its
// own staging where it cannot; either way, no trip through the plugin's host memory). The engine
// also counts the bytes the plugin holds on the device, for memory_info (OpenCL cannot ask the
// driver what is free).
#pragma once

#include "opencl/cl_discovery.hpp"

#include <mosaic/sdk/memory_ledger.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

namespace mosaic::gpu_plugin {

class ClEngine;

// A constant's copy in device memory, shared by every compiled model that reads the same host bytes
// the same way: each shape specialization of a dynamic model (an LLM's cache capacities) holds its
// weights once, not once per shape. Its bytes count against the device's budget from commit() until
// the last model holding it is released. The host's weights outlive every model compiled from them
// (plugin_abi.h), so their address names them for as long as a copy lives.
class DeviceConstant {
public:
    DeviceConstant(std::shared_ptr<ClEngine> engine, cl::Buffer buffer, uint64_t bytes)
        : engine_(std::move(engine)), buffer_(std::move(buffer)), bytes_(bytes) {}
    ~DeviceConstant();
    DeviceConstant(const DeviceConstant&) = delete;
    DeviceConstant& operator=(const DeviceConstant&) = delete;

    const cl::Buffer& buffer() const { return buffer_; }
    uint64_t bytes() const { return bytes_; }
    // Counts the bytes against `budget` unless a model did already; throws OUT_OF_MEMORY naming `what`.
    void commit(uint64_t budget, const std::string& what);

private:
    std::shared_ptr<ClEngine> engine_;
    cl::Buffer buffer_;
    uint64_t bytes_;
    std::once_flag committed_;
    bool reserved_ = false;
};

class ClEngine : public std::enable_shared_from_this<ClEngine> {
public:
    ClEngine(const ClDeviceInfo& info, cl::Context context);

    const ClDeviceInfo& info() const { return info_; }
    const cl::Context& context() const { return context_; }
    // Whether `buffer` (a cl_mem handed in by the host) belongs to this engine's context.
    bool owns(cl_mem buffer) const;
    const cl::Device& device() const { return info_.device; }
    // What the device's CLBlast GEMMs run with (clblast_tuning.hpp).
    const std::string& gemm_tuning() const { return gemm_tuning_; }

    // The plugin's program built with `options` ("-DMOSAIC_HALF" ...). With a non-empty cache_dir
    // its binary is read from and written to that folder (see program_cache.hpp). Thread-safe;
    // built once per options. Throws sdk::Error naming the device and the build log on failure.
    cl::Program program(const std::string& options, const std::string& cache_dir);

    // An in-order queue: kernels enqueued on it run one after the other with no host wait.
    cl::CommandQueue make_queue(bool profiling) const;
    // The queue of copies the host asks for (ABI 1.3), made once: creating a queue per copy cost
    // PoCL about 100 us. Enqueueing is thread-safe; each caller waits for its own command.
    cl::CommandQueue& copy_queue();

    // A read-only device buffer initialised with `bytes` as they are.
    cl::Buffer upload(const void* data, size_t bytes) const;
    // A read-only device buffer of `count` floats as kernels read a real tensor
    // (kernels/common/storage.cl): narrowed to f16 (round to nearest even) when `half`, a finite value
    // beyond f16's range saturating to +-65504 as OpenVINO's FP16 compression does: an attention
    // mask's float-min would otherwise become -inf, and a row masked whole NaN.
    cl::Buffer upload_floats(const float* data, size_t count, bool half) const;
    // The device copy of `count` floats at `data` (narrowed to f16 when `half`), or of `bytes` bytes
    // when `floats` is false: the one already made for them if a compiled model still holds it.
    // Thread-safe; its bytes count once committed (DeviceConstant::commit).
    std::shared_ptr<DeviceConstant> shared_constant(const void* data, size_t bytes, bool floats, bool half);

    // Device memory the plugin holds (weights, requests' buffers, allocate_buffer's), in bytes,
    // against a budget (DEVICE_MEMORY_LIMIT, or the device's memory): see sdk::MemoryLedger.
    void reserve(uint64_t bytes, uint64_t budget, const std::string& what) { held_.reserve(bytes, budget, what); }
    void release(uint64_t bytes) { held_.release(bytes); }
    uint64_t held() const { return held_.held(); }

private:
    ClDeviceInfo info_;
    cl::Context context_;
    std::string gemm_tuning_;
    std::mutex mutex_;
    std::map<std::string, cl::Program> programs_;  // by build options
    cl::CommandQueue copy_queue_;  // made on first use, under mutex_
    sdk::MemoryLedger held_;
    std::mutex constants_mutex_;
    std::map<std::tuple<const void*, size_t, bool>, std::weak_ptr<DeviceConstant>> constants_;  // (data, bytes, half)
};

// The engine of a device, made on first use and shared by every compiled model in the process.
std::shared_ptr<ClEngine> engine_for(const ClDeviceInfo& info);

}  // namespace mosaic::gpu_plugin
