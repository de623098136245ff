// The GPU device's memory through the ABI (1.3): figures, buffers the host holds between requests
// (HETERO's intermediate tensors), and copies between host memory, an instance's buffers and those
// of another instance of the same OpenCL context (GPU.0 -> GPU.1 without host staging).
#include "runtime/gpu_device.hpp"

#include "opencl/cl_engine.hpp"
#include "runtime/gpu_config.hpp"

namespace mosaic::gpu_plugin {

namespace {

size_t buffer_size(cl_mem buffer) {
    size_t size = 0;
    clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof(size), &size, nullptr);
    return size;
}

// A tensor's buffer, checked: of `engine`'s context and large enough for the tensor.
cl::Buffer device_buffer(const ClEngine& engine, const mosaic_tensor& t, const std::string& device) {
    cl_mem handle = static_cast<cl_mem>(t.data);
    if (!engine.owns(handle))
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "a buffer of '" + std::string(t.memory_device ? t.memory_device : "?") +
                                                            "' is not one " + device + " allocated in this OpenCL context");
    if (buffer_size(handle) < t.byte_size)
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "a buffer of " + std::to_string(buffer_size(handle)) +
                                                            " bytes cannot hold a tensor of " + std::to_string(t.byte_size));
    return cl::Buffer(handle, /*retainObject=*/true);
}

}  // namespace

const ClDeviceInfo& GpuDevice::instance(const std::string& id) const {
    GpuConfig config = GpuConfig::from(properties().merged(nlohmann::json::object()));
    if (!id.empty()) config.device_id = id;
    return select_instance(config, name());
}

bool GpuDevice::memory_info(const std::string& id, sdk::MemoryInfo& out) {
    const ClDeviceInfo& device = instance(id);
    const std::shared_ptr<ClEngine> engine = engine_for(device);
    out.total_bytes = GpuConfig::from(properties().merged(nlohmann::json::object())).memory_budget(device);
    out.used_bytes = engine->held();
    out.available_bytes = out.total_bytes > out.used_bytes ? out.total_bytes - out.used_bytes : 0;
    out.shares_host_memory = device.integrated;
    return true;
}

void* GpuDevice::allocate_buffer(const std::string& id, size_t bytes) {
    const ClDeviceInfo& device = instance(id);
    const std::shared_ptr<ClEngine> engine = engine_for(device);
    const uint64_t max_alloc = device.device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    if (bytes > max_alloc)
        throw sdk::Error(MOSAIC_ERROR_OUT_OF_MEMORY, name() + "." + (id.empty() ? "0" : id) + " ('" + device.name +
                                                         "') cannot hold a buffer of " + std::to_string(bytes) +
                                                         " bytes: at most " + std::to_string(max_alloc) + " per buffer");
    engine->reserve(bytes, GpuConfig::from(properties().merged(nlohmann::json::object())).memory_budget(device),
                    name() + "." + (id.empty() ? "0" : id) + ": a buffer the host asked for");
    cl_int status = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(engine->context()(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status != CL_SUCCESS) engine->release(bytes);
    if (status != CL_SUCCESS)
        throw sdk::Error(status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES ? MOSAIC_ERROR_OUT_OF_MEMORY
                                                                                                   : MOSAIC_ERROR_DEVICE,
                         name() + " ('" + device.name + "'): clCreateBuffer of " + std::to_string(bytes) +
                             " bytes failed: " + cl_status_name(status));
    return buffer;
}

void GpuDevice::release_buffer(const std::string& id, void* buffer) {
    cl_mem handle = static_cast<cl_mem>(buffer);
    engine_for(instance(id))->release(buffer_size(handle));
    clReleaseMemObject(handle);
}

bool GpuDevice::can_copy(const std::string& id, const char* other) {
    if (!other) return true;  // host memory
    const std::optional<std::string> other_id =
        instance_id(other, name(), properties().get("DEVICE_ID").get<std::string>());
    if (!other_id) return false;  // another plugin's memory
    return engine_for(instance(id))->context()() == engine_for(instance(*other_id))->context()();
}

void GpuDevice::copy(const std::string& id, const mosaic_tensor& src, const mosaic_tensor& dst) {
    const std::shared_ptr<ClEngine> engine = engine_for(instance(id));
    const bool from_device = src.memory_kind == MOSAIC_MEMORY_DEVICE, to_device = dst.memory_kind == MOSAIC_MEMORY_DEVICE;
    if (!from_device && !to_device)
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "copy on " + name() + ": neither side is a buffer of the device");
    if (!src.byte_size) return;
    try {
        // The engine's copy queue, not the requests' queues: a copy is ordered after what the
        // host waited for before asking (the producer's inference), not after other requests.
        cl::CommandQueue& queue = engine->copy_queue();
        cl::Event done;
        if (from_device && to_device)
            queue.enqueueCopyBuffer(device_buffer(*engine, src, name()), device_buffer(*engine, dst, name()), 0, 0,
                                    src.byte_size, nullptr, &done);
        else if (to_device)
            queue.enqueueWriteBuffer(device_buffer(*engine, dst, name()), CL_FALSE, 0, src.byte_size, src.data, nullptr, &done);
        else
            queue.enqueueReadBuffer(device_buffer(*engine, src, name()), CL_FALSE, 0, src.byte_size, dst.data, nullptr, &done);
        queue.flush();
        done.wait();
    } catch (const cl::Error& e) {
        throw sdk::Error(MOSAIC_ERROR_DEVICE, name() + " ('" + engine->info().name + "'): copying " +
                                                  std::to_string(src.byte_size) + " bytes failed in " + e.what() + ": " +
                                                  cl_status_name(e.err()));
    }
}

}  // namespace mosaic::gpu_plugin
