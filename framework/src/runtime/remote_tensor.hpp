// Tensors in a device's memory (RemoteContext::create_tensor), from the runtime's side: how they
// are made, what keeps their buffer alive, and the descriptor a plugin receives for them.
#pragma once

#include <mosaic/remote_context.hpp>
#include <mosaic/tensor.hpp>

#include "runtime/host_memory.hpp"

#include <mosaic/plugin_abi.h>

#include <memory>
#include <string>

namespace mosaic {

// A buffer of allocate_buffer, released when the last Tensor sharing it goes; it keeps its device
// (and so the plugin library) alive until then.
struct DeviceBuffer {
    DeviceMemory memory;
    void* handle = nullptr;
    DeviceBuffer(DeviceMemory m, void* h) : memory(std::move(m)), handle(h) {}
    ~DeviceBuffer() { memory.device->release_buffer(memory.id, handle); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct TensorAccess {
    static Tensor device_tensor(ElementType type, const Shape& shape, std::shared_ptr<DeviceBuffer> buffer);
    // Where a tensor's elements are: host memory, or the device buffer it holds.
    static DeviceMemory memory_of(const Tensor& t);
    // The ABI's descriptor of `t` (host pointer or device handle); `t` must outlive it.
    static mosaic_tensor descriptor(const Tensor& t);
};

}  // namespace mosaic
