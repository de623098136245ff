#include "runtime/host_memory.hpp"

#include "runtime/core_impl.hpp"

#include <mosaic/sdk/status.hpp>

#include <cstring>
#include <vector>

namespace mosaic {

namespace {

using Memory = DeviceMemory;

Memory device_memory(void* ctx, const char* name) {
    const DeviceSpec spec = parse_device_spec(name ? name : "");
    if (spec.name.empty() || !spec.list.empty())
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                         "'" + std::string(name ? name : "") + "' is not one device (give a name such as GPU.1)");
    return {core_of(ctx)->device(spec.name), spec.id, name};
}

Memory memory_of(void* ctx, const char* name) {
    if (!name) return {};
    Memory m = device_memory(ctx, name);
    if (!m.device->has_buffers(m.id)) m.device.reset();
    return m;
}

Memory memory_of(void* ctx, const mosaic_tensor& t) {
    if (t.memory_kind == MOSAIC_MEMORY_HOST) return {};
    if (t.memory_kind != MOSAIC_MEMORY_DEVICE || !t.memory_device)
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "a tensor of device memory names no device (memory_device)");
    Memory m = memory_of(ctx, t.memory_device);
    if (m.host())
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, std::string("device '") + t.memory_device +
                                                            "' has no buffers: its tensors are host memory");
    return m;
}

bool same(const Memory& a, const Memory& b) { return a.device == b.device && a.name == b.name; }

// Whether `from` copies into `to` itself, or `to` copies out of `from` (peer to peer).
const Memory* copier(const Memory& from, const Memory& to) {
    if (same(from, to) || from.device->can_copy(from.id, to.name.c_str())) return &from;
    if (to.device->can_copy(to.id, from.name.c_str())) return &to;
    return nullptr;
}

mosaic_copy_path path(const Memory& from, const Memory& to) {
    if (from.host() && to.host()) return MOSAIC_COPY_SAME_MEMORY;
    if (from.host()) return MOSAIC_COPY_HOST_TO_DEVICE;
    if (to.host()) return MOSAIC_COPY_DEVICE_TO_HOST;
    return copier(from, to) ? MOSAIC_COPY_DEVICE : MOSAIC_COPY_HOST_STAGED;
}

void copy(void* ctx, const mosaic_tensor& src, const mosaic_tensor& dst) {
    copy_memory(memory_of(ctx, src), memory_of(ctx, dst), src, dst);
}

}  // namespace

void copy_memory(const DeviceMemory& from, const DeviceMemory& to, const mosaic_tensor& src, const mosaic_tensor& dst) {
    if (src.byte_size != dst.byte_size)
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "copy: the source holds " + std::to_string(src.byte_size) +
                                                            " bytes, the destination " + std::to_string(dst.byte_size));
    if (from.host() && to.host()) {
        if (src.byte_size) std::memmove(dst.data, src.data, src.byte_size);
        return;
    }
    if (from.host() || to.host()) {
        const Memory& device = from.host() ? to : from;
        device.device->copy(device.id, src, dst);
        return;
    }
    if (const Memory* by = copier(from, to)) {
        by->device->copy(by->id, src, dst);
        return;
    }
    // Neither reaches the other: through host memory.
    std::vector<unsigned char> staging(src.byte_size);
    mosaic_tensor host = src;
    host.data = staging.data();
    host.memory_kind = MOSAIC_MEMORY_HOST;
    host.memory_device = nullptr;
    from.device->copy(from.id, src, host);
    to.device->copy(to.id, host, dst);
}

mosaic_status* check_request_memory(const DeviceHandle& device, const mosaic_tensor* inputs, size_t input_count,
                                    const mosaic_tensor* outputs, size_t output_count) {
    for (const mosaic_tensor* list : {inputs, outputs}) {
        const size_t count = list == inputs ? input_count : output_count;
        for (size_t i = 0; i < count; ++i) {
            const mosaic_tensor& t = list[i];
            if (t.memory_kind == MOSAIC_MEMORY_HOST) continue;
            const DeviceSpec owner = parse_device_spec(t.memory_device ? t.memory_device : "");
            if (t.memory_kind == MOSAIC_MEMORY_DEVICE && owner.name == device.name() && device.has_buffers(owner.id))
                continue;
            return sdk::make_status(MOSAIC_ERROR_INVALID_ARGUMENT,
                                    std::string(list == inputs ? "input " : "output ") + std::to_string(i) +
                                        " is a buffer of device '" + (t.memory_device ? t.memory_device : "?") +
                                        "'; a request compiled on '" + device.name() +
                                        "' reads host memory and its own device's buffers only: copy it first");
        }
    }
    return nullptr;
}

void add_memory_services(mosaic_host_api& h) {
    h.memory_info = [](void* ctx, const char* device, mosaic_memory_info* out) {
        return sdk::guard([&] {
            if (!out) throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "memory_info: no output given");
            const Memory m = device_memory(ctx, device);
            if (!m.device->memory_info(m.id, *out))
                throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "device '" + m.name + "' does not report its memory");
        });
    };
    h.allocate_buffer = [](void* ctx, const char* device, size_t bytes, void** out) {
        return sdk::guard([&] {
            if (!out) throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "allocate_buffer: no output given");
            const Memory m = device_memory(ctx, device);
            *out = m.device->allocate_buffer(m.id, bytes);
        });
    };
    h.release_buffer = [](void* ctx, const char* device, void* buffer) {
        mosaic_status* ignored = sdk::guard([&] {
            const Memory m = device_memory(ctx, device);
            m.device->release_buffer(m.id, buffer);
        });
        if (ignored) ignored->release(ignored);  // a Core already gone: its devices freed their buffers
    };
    h.copy_path = [](void* ctx, const char* from, const char* to) {
        mosaic_copy_path result = MOSAIC_COPY_HOST_STAGED;
        mosaic_status* failed = sdk::guard([&] { result = path(memory_of(ctx, from), memory_of(ctx, to)); });
        if (failed) failed->release(failed);  // an unknown device: copy() will say what is wrong
        return result;
    };
    h.copy = [](void* ctx, const mosaic_tensor* src, const mosaic_tensor* dst, mosaic_completion_fn done,
                void* user_data) -> mosaic_status* {
        mosaic_status* status = sdk::guard([&] {
            if (!src || !dst) throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "copy: no source or destination given");
            copy(ctx, *src, *dst);
        });
        if (!done) return status;
        done(user_data, status);  // the copy has ended: its completion runs here, as the ABI allows
        return nullptr;
    };
}

}  // namespace mosaic
