#include "opencl/cl_engine.hpp"

#include "gemm/clblast_tuning.hpp"

#include "kernels/kernel_sources.hpp"
#include "opencl/program_cache.hpp"

#include <mosaic/element_type.hpp>
#include <mosaic/sdk/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace mosaic::gpu_plugin {

namespace {

std::string build_log(const cl::Program& program, const cl::Device& device) {
    try {
        return program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
    } catch (const cl::Error&) {
        return "(no build log)";
    }
}

// Builds `program`; on failure throws with the compiler's log, which is what a vendor needs.
void build(cl::Program& program, const ClDeviceInfo& info, const std::string& options, const std::string& what) {
    try {
        program.build({info.device}, options.c_str());
    } catch (const cl::Error& e) {
        throw sdk::Error(MOSAIC_ERROR_DEVICE, "GPU device '" + info.name + "': building the OpenCL program " + what +
                                                  " with options '" + options + "' failed (" + cl_status_name(e.err()) +
                                                  "):\n" + build_log(program, info.device));
    }
}

}  // namespace

ClEngine::ClEngine(const ClDeviceInfo& info, cl::Context context)
    : info_(info), context_(std::move(context)), gemm_tuning_(apply_gemm_tuning(info.device(), info.name)),
      held_("'" + info.name + "'") {}

bool ClEngine::owns(cl_mem buffer) const {
    cl_context context = nullptr;
    if (!buffer || clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof(context), &context, nullptr) != CL_SUCCESS) return false;
    return context == context_();
}

cl::Program ClEngine::program(const std::string& options, const std::string& cache_dir) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = programs_.find(options);
    if (found != programs_.end()) return found->second;

    const CacheKey key{info_.cache_identity(), options, kernel_sources()};
    cl::Program program;
    bool from_cache = false;
    if (!cache_dir.empty()) {
        std::string problem;
        if (auto binary = read_cached_binary(key, cache_dir, problem)) {
            try {
                cl::Program cached(context_, {info_.device}, cl::Program::Binaries{*binary});
                cached.build({info_.device}, options.c_str());
                program = cached;
                from_cache = true;
            } catch (const cl::Error& e) {
                problem = "the driver refused the cached binary '" + key.file_in(cache_dir) + "' (" + cl_status_name(e.err()) + ")";
            }
        }
        if (!problem.empty())
            sdk::Host::log(MOSAIC_LOG_WARNING, "GPU", "program cache: " + problem + "; rebuilding it from source");
    }
    if (!from_cache) {
        program = cl::Program(context_, std::string(kernel_sources()));
        build(program, info_, options, "of the plugin's kernels");
        if (!cache_dir.empty()) {
            const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
            if (!binaries.empty() && !binaries.front().empty()) {
                const std::string why = write_cached_binary(key, cache_dir, binaries.front());
                if (!why.empty()) sdk::Host::log(MOSAIC_LOG_WARNING, "GPU", "program cache: " + why);
            }
        }
    }
    programs_.emplace(options, program);
    return program;
}

cl::CommandQueue ClEngine::make_queue(bool profiling) const {
    return cl::CommandQueue(context_, info_.device, profiling ? CL_QUEUE_PROFILING_ENABLE : 0);
}

cl::CommandQueue& ClEngine::copy_queue() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!copy_queue_()) copy_queue_ = make_queue(false);
    return copy_queue_;
}

cl::Buffer ClEngine::upload(const void* data, size_t bytes) const {
    return cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, const_cast<void*>(data));
}

cl::Buffer ClEngine::upload_floats(const float* data, size_t count, bool half) const {
    if (!half) return upload(data, count * sizeof(float));
    std::vector<uint16_t> halves(count);
    constexpr float kHalfMax = 65504.0f;
    for (size_t i = 0; i < count; ++i)
        halves[i] = f32_to_f16(std::isfinite(data[i]) ? std::clamp(data[i], -kHalfMax, kHalfMax) : data[i]);
    return upload(halves.data(), count * sizeof(uint16_t));
}

std::shared_ptr<DeviceConstant> ClEngine::shared_constant(const void* data, size_t bytes, bool floats, bool half) {
    std::lock_guard<std::mutex> lock(constants_mutex_);
    const auto key = std::make_tuple(data, bytes, floats && half);
    if (std::shared_ptr<DeviceConstant> found = constants_[key].lock()) return found;
    // Entries of copies no model holds any more are dropped as new ones come.
    for (auto it = constants_.begin(); it != constants_.end();) it = it->second.expired() ? constants_.erase(it) : std::next(it);
    cl::Buffer buffer = floats ? upload_floats(static_cast<const float*>(data), bytes / sizeof(float), half) : upload(data, bytes);
    auto made = std::make_shared<DeviceConstant>(shared_from_this(), std::move(buffer), floats && half ? bytes / 2 : bytes);
    constants_[key] = made;
    return made;
}

DeviceConstant::~DeviceConstant() {
    if (reserved_) engine_->release(bytes_);
}

void DeviceConstant::commit(uint64_t budget, const std::string& what) {
    std::call_once(committed_, [&] {
        engine_->reserve(bytes_, budget, what);
        reserved_ = true;
    });
}

namespace {

// One context over every instance of `info`'s platform (the GPUs, or the CPU devices standing in for
// them); a driver that refuses a context of several devices gives each its own.
cl::Context platform_context(const ClDeviceInfo& info) {
    const ClDiscovery& found = discover_devices();
    std::vector<cl::Device> devices;
    for (const auto* list : {&found.gpus, &found.cpu_fallbacks}) {
        bool ours = false;
        for (const ClDeviceInfo& d : *list) ours |= d.device() == info.device();
        if (!ours) continue;
        for (const ClDeviceInfo& d : *list)
            if (d.platform() == info.platform()) devices.push_back(d.device);
    }
    if (devices.size() > 1) {
        try {
            return cl::Context(devices);
        } catch (const cl::Error& e) {
            sdk::Host::log(MOSAIC_LOG_INFO, "GPU", "the OpenCL platform '" + info.platform_name + "' refused one context for " +
                                                       std::to_string(devices.size()) + " devices (" + cl_status_name(e.err()) +
                                                       "): its instances copy through host memory");
        }
    }
    return cl::Context(std::vector<cl::Device>{info.device});
}

}  // namespace

std::shared_ptr<ClEngine> engine_for(const ClDeviceInfo& info) {
    static std::mutex mutex;
    static std::map<cl_device_id, std::shared_ptr<ClEngine>> engines;
    static std::map<cl_platform_id, cl::Context> contexts;
    std::lock_guard<std::mutex> lock(mutex);
    auto& engine = engines[info.device()];
    if (engine) return engine;
    cl::Context& context = contexts[info.platform()];
    bool shared = false;
    if (context()) {
        for (const cl::Device& d : context.getInfo<CL_CONTEXT_DEVICES>()) shared |= d() == info.device();
    } else {
        context = platform_context(info);
        shared = true;
    }
    engine = std::make_shared<ClEngine>(info, shared ? context : cl::Context(std::vector<cl::Device>{info.device}));
    return engine;
}

}  // namespace mosaic::gpu_plugin
