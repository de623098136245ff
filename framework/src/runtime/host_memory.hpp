// The host's device-memory services (ABI 1.3) for orchestrators: a device name ("GPU.1") resolved
// to its plugin and instance for memory figures, buffers and copies; and the check that keeps a
// device buffer away from a request that would take its handle for a host pointer.
#pragma once

#include "runtime/device_handle.hpp"

#include <mosaic/plugin_abi.h>

#include <memory>
#include <string>

namespace mosaic {

// One device's memory: the plugin device behind a name and the instance it names. A name of a
// device without buffers (CPU) stands for host memory, which is where its tensors are.
struct DeviceMemory {
    std::shared_ptr<DeviceHandle> device;  // null: host memory
    std::string id, name;
    bool host() const { return device == nullptr; }
};

// Copies src (in `from`) into dst (in `to`), of equal byte_size: by the device holding either
// buffer, peer to peer where one reaches the other, else staged through host memory.
void copy_memory(const DeviceMemory& from, const DeviceMemory& to, const mosaic_tensor& src, const mosaic_tensor& dst);

// Fills memory_info, allocate_buffer, release_buffer, copy_path and copy of a Core's host table
// (compiled_memory, which needs the host's compiled models, is host_services.cpp's).
void add_memory_services(mosaic_host_api& table);

// Null when every tensor is host memory or a buffer of `device` whose plugin takes buffers (the
// plugin then checks the instance); else an INVALID_ARGUMENT status naming the tensor.
mosaic_status* check_request_memory(const DeviceHandle& device, const mosaic_tensor* inputs, size_t input_count,
                                    const mosaic_tensor* outputs, size_t output_count);

}  // namespace mosaic
