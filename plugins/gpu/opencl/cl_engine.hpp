// One OpenCL device as the plugin drives it: its context, and the program holding every kernel of
// the plugin, built once per device and set of build options and kept for the process. Compiled
// models of one device share the engine; each infer request makes its own command queue.
#pragma once

#include "opencl/cl_discovery.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace mosaic::gpu_plugin {

class ClEngine {
public:
    explicit ClEngine(const ClDeviceInfo& info);

    const ClDeviceInfo& info() const { return info_; }
    const cl::Context& context() const { return context_; }
    const cl::Device& device() const { return info_.device; }
    // What the device's CLBlast GEMMs run with (clblast_tuning.hpp).
    const std::string& gemm_tuning() const { return gemm_tuning_; }

    // The plugin's program built with `options` ("-DMOSAIC_HALF" ...). With a non-empty cache_dir
    // its binary is read from and written to that folder (see program_cache.hpp). Thread-safe;
    // built once per options. Throws sdk::Error naming the device and the build log on failure.
    cl::Program program(const std::string& options, const std::string& cache_dir);

    // An in-order queue: kernels enqueued on it run one after the other with no host wait.
    cl::CommandQueue make_queue(bool profiling) const;

    // A read-only device buffer initialised with `bytes` as they are.
    cl::Buffer upload(const void* data, size_t bytes) const;
    // A read-only device buffer of `count` floats as kernels read a real tensor
    // (kernels/common/storage.cl): narrowed to f16 (round to nearest even) when `half`.
    cl::Buffer upload_floats(const float* data, size_t count, bool half) const;

private:
    ClDeviceInfo info_;
    cl::Context context_;
    std::string gemm_tuning_;
    std::mutex mutex_;
    std::map<std::string, cl::Program> programs_;  // by build options
};

// The engine of a device, made on first use and shared by every compiled model in the process.
std::shared_ptr<ClEngine> engine_for(const ClDeviceInfo& info);

}  // namespace mosaic::gpu_plugin
