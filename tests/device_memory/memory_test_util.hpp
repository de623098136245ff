// What the device-memory tests share: descriptors of f32 tensors in host or device memory, and a
// status as text.
#pragma once

#include <mosaic/plugin_abi.h>

#include <string>

namespace mosaic::test {

// `device` null: host memory; else a buffer of that device ("GPU.1").
inline mosaic_tensor f32_tensor(void* data, size_t bytes, const char* device) {
    mosaic_tensor t{};
    t.struct_size = sizeof(t);
    t.element_type = MOSAIC_ELEMENT_F32;
    t.data = data;
    t.byte_size = bytes;
    t.memory_kind = device ? MOSAIC_MEMORY_DEVICE : MOSAIC_MEMORY_HOST;
    t.memory_device = device;
    return t;
}

// "" for success, else "<code>: <message>" (the status released).
inline std::string status_text(mosaic_status* s) {
    if (!s) return "";
    std::string text = std::to_string(s->code) + ": " + (s->message ? s->message : "");
    s->release(s);
    return text;
}

}  // namespace mosaic::test
