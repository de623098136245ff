// A device's memory, as OpenVINO's ov::RemoteContext: tensors that live in it, which an infer
// request compiled on that device reads and writes without a trip through host memory. The
// pattern it serves is a value carried from one inference to the next on the device (an LLM's KV
// cache): bound as an input and an output of successive inferences, it never crosses to the host.
//
//   mosaic::RemoteContext context = compiled.get_context();
//   mosaic::Tensor cache = context.create_tensor(mosaic::ElementType::f32, {1, 8, 128, 64});
//   request.set_tensor("past", cache);
//
// A device whose tensors are host memory (CPU, REFERENCE, an orchestrator such as HETERO) has a
// context too: its create_tensor makes host tensors, so code written for a GPU runs unchanged.
#pragma once

#include <mosaic/export.hpp>

#include <mosaic/tensor.hpp>

#include <memory>
#include <string>

namespace mosaic {

class MOSAIC_API RemoteContext {
public:
    RemoteContext() = default;

    // The device whose memory this is ("GPU", "GPU.1", "CPU", "HETERO:GPU,CPU").
    const std::string& get_device_name() const;
    // Whether create_tensor allocates in the device's own memory (false: host memory).
    bool has_device_memory() const;
    // A zero-filled tensor in the device's memory (host memory where the device has none). Throws
    // naming the device when the memory is full (or beyond its DEVICE_MEMORY_LIMIT).
    Tensor create_tensor(ElementType type, const Shape& shape) const;
    // A host tensor (ov::RemoteContext::create_host_tensor).
    Tensor create_host_tensor(ElementType type, const Shape& shape) const { return Tensor(type, shape); }

    explicit operator bool() const { return impl_ != nullptr; }

    class MOSAIC_INTERNAL Impl;
    explicit RemoteContext(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

private:
    std::shared_ptr<Impl> impl_;
};

}  // namespace mosaic
