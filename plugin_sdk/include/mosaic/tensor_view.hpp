// Non-owning views of dense row-major tensors, used by plugins and the reference kernels.
#pragma once

#include <mosaic/element_type.hpp>

namespace mosaic {

struct ConstTensorView {
    ElementType type = ElementType::undefined;
    Shape shape;
    const void* data = nullptr;
    // Null: `data` is host memory. Else the device whose buffer (a handle, such as a cl_mem) `data`
    // is: only a plugin that handed out the buffer (ABI 1.3 allocate_buffer) receives such a view.
    const char* memory_device = nullptr;

    template <typename T> const T* as() const { return static_cast<const T*>(data); }
    int64_t size() const { return shape_size(shape); }
    size_t byte_size() const { return static_cast<size_t>(size()) * element_size(type); }
};

struct TensorView {
    ElementType type = ElementType::undefined;
    Shape shape;
    void* data = nullptr;
    const char* memory_device = nullptr;  // as in ConstTensorView

    template <typename T> T* as() const { return static_cast<T*>(data); }
    int64_t size() const { return shape_size(shape); }
    size_t byte_size() const { return static_cast<size_t>(size()) * element_size(type); }
    operator ConstTensorView() const { return {type, shape, data, memory_device}; }
};

}  // namespace mosaic
