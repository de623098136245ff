// A tensor: element type, static shape and a buffer. Copies of a Tensor share the buffer (handle
// semantics, like ov::Tensor); clone() copies the data. The buffer is host memory, or, for a tensor
// of RemoteContext::create_tensor (remote_context.hpp), a buffer in a device's own memory (as
// ov::RemoteTensor): its elements are not addressable from the host, so data() throws, and
// copy_to() moves them; an infer request on that device reads and writes it where it is.
#pragma once

#include <mosaic/export.hpp>

#include <mosaic/element_type.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mosaic {

struct TensorAccess;  // the runtime's side door: makes device tensors and reads their handles

class MOSAIC_API Tensor {
public:
    Tensor() = default;

    // Allocates a zero-filled buffer (64-byte aligned, which vectorised kernels expect).
    Tensor(ElementType type, const Shape& shape) : type_(type), shape_(shape) {
        check_shape();
        const size_t bytes = get_byte_size();
        // Never null, even for an empty tensor, so data() is always a valid pointer to pass on.
        const size_t padded = std::max<size_t>(64, (bytes + 63) / 64 * 64);
        void* p = std::aligned_alloc(64, padded);
        if (!p) throw std::bad_alloc();
        std::memset(p, 0, padded);
        storage_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
        data_ = p;
    }

    // Wraps memory the caller owns and keeps alive for the Tensor's lifetime.
    Tensor(ElementType type, const Shape& shape, void* external) : type_(type), shape_(shape), data_(external) {
        check_shape();
    }

    template <typename T>
    static Tensor from_vector(const Shape& shape, ElementType type, const std::vector<T>& values) {
        Tensor t(type, shape);
        if (values.size() * sizeof(T) != t.get_byte_size())
            throw std::invalid_argument("Tensor::from_vector: " + std::to_string(values.size()) +
                                        " values do not fill shape " + to_string(shape) + " of " + to_string(type));
        std::memcpy(t.data(), values.data(), t.get_byte_size());
        return t;
    }

    // Spelled as OpenVINO's ov::Tensor.
    explicit operator bool() const { return type_ != ElementType::undefined; }
    ElementType get_element_type() const { return type_; }
    const Shape& get_shape() const { return shape_; }
    size_t get_size() const { return static_cast<size_t>(shape_size(shape_)); }
    size_t get_byte_size() const { return get_size() * element_size(type_); }

    // Host memory only: throws std::logic_error for a device tensor.
    void* data() { return host_data(); }
    const void* data() const { return host_data(); }
    template <typename T> T* data() { return static_cast<T*>(host_data()); }
    template <typename T> const T* data() const { return static_cast<const T*>(host_data()); }

    // Where the elements are: a device's memory ("GPU", "GPU.1"), or host memory (empty, false).
    bool is_remote() const { return !memory_device_.empty(); }
    const std::string& get_device_name() const { return memory_device_; }
    // Copies the elements into `dst`, of the same element type and shape, each in host memory or
    // a device's; throws std::invalid_argument when they differ.
    void copy_to(Tensor& dst) const;

    template <typename T> std::vector<T> to_vector() const {
        if (sizeof(T) != element_size(type_))
            throw std::invalid_argument("Tensor::to_vector: element size mismatch for " + std::string(to_string(type_)));
        const T* p = data<T>();
        return std::vector<T>(p, p + get_size());
    }

    // A host tensor for a host tensor; a device tensor throws (copy_to a tensor of its context).
    Tensor clone() const {
        Tensor t(type_, shape_);
        if (get_byte_size()) std::memcpy(t.data(), data(), get_byte_size());
        return t;
    }

private:
    friend struct TensorAccess;

    void* host_data() const {
        if (!memory_device_.empty()) throw_device_memory();
        return data_;
    }
    [[noreturn]] void throw_device_memory() const;

    void check_shape() const {
        if (!is_static(shape_)) throw std::invalid_argument("Tensor shape " + to_string(shape_) + " is not static");
        // Refused before allocation: a size that wraps around would allocate a few bytes and be
        // written far past them.
        size_t bytes = element_size(type_);
        for (int64_t d : shape_)
            if (__builtin_mul_overflow(bytes, static_cast<size_t>(d), &bytes) || bytes > size_t(PTRDIFF_MAX))
                throw std::length_error("Tensor shape " + to_string(shape_) + " of " + to_string(type_) +
                                        " is larger than memory can address");
    }

    ElementType type_ = ElementType::undefined;
    Shape shape_;
    std::shared_ptr<void> storage_;
    void* data_ = nullptr;        // for a device tensor: the plugin's handle (an OpenCL cl_mem)
    std::string memory_device_;  // empty: host memory
};

}  // namespace mosaic
