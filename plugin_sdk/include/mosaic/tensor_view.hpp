// Non-owning views of dense row-major tensors, used by plugins and the reference kernels.
#pragma once

#include <mosaic/element_type.hpp>

namespace mosaic {

struct ConstTensorView {
    ElementType type = ElementType::undefined;
    Shape shape;
    const void* data = nullptr;

    template <typename T> const T* as() const { return static_cast<const T*>(data); }
    int64_t size() const { return shape_size(shape); }
    size_t byte_size() const { return static_cast<size_t>(size()) * element_size(type); }
};

struct TensorView {
    ElementType type = ElementType::undefined;
    Shape shape;
    void* data = nullptr;

    template <typename T> T* as() const { return static_cast<T*>(data); }
    int64_t size() const { return shape_size(shape); }
    size_t byte_size() const { return static_cast<size_t>(size()) * element_size(type); }
    operator ConstTensorView() const { return {type, shape, data}; }
};

}  // namespace mosaic
