// RemoteContext and the tensors it makes in a device's memory; Tensor's members that need the
// runtime (copy_to, the error of data() on a device tensor).
#include "runtime/remote_tensor.hpp"

#include "runtime/compiled_model_impl.hpp"
#include "runtime/core_impl.hpp"

#include <mosaic/compiled_model.hpp>
#include <mosaic/core.hpp>

#include <stdexcept>

namespace mosaic {

class RemoteContext::Impl {
public:
    Impl(std::shared_ptr<DeviceHandle> device, std::string id, std::string name)
        : memory_{std::move(device), std::move(id), std::move(name)} {
        // An orchestrator ("HETERO:GPU,CPU") and a device without buffers hand out host tensors.
        if (!memory_.name.empty() && memory_.name.find(':') == std::string::npos && memory_.device->has_buffers(memory_.id))
            device_memory_ = true;
    }

    const std::string& name() const { return memory_.name; }
    bool device_memory() const { return device_memory_; }

    Tensor create(ElementType type, const Shape& shape) const {
        Tensor host(type, shape);  // checks the shape; the zeros the device buffer starts from
        if (!device_memory_) return host;
        const size_t bytes = std::max<size_t>(host.get_byte_size(), 1);
        auto buffer = std::make_shared<DeviceBuffer>(memory_, memory_.device->allocate_buffer(memory_.id, bytes));
        Tensor t = TensorAccess::device_tensor(type, shape, std::move(buffer));
        if (host.get_byte_size()) host.copy_to(t);
        return t;
    }

private:
    DeviceMemory memory_;
    bool device_memory_ = false;
};

const std::string& RemoteContext::get_device_name() const {
    if (!impl_) throw std::logic_error("RemoteContext is empty; get one from CompiledModel::get_context or Core::get_default_context");
    return impl_->name();
}
bool RemoteContext::has_device_memory() const { return impl_ && impl_->device_memory(); }
Tensor RemoteContext::create_tensor(ElementType type, const Shape& shape) const {
    get_device_name();
    return impl_->create(type, shape);
}

RemoteContext Core::get_default_context(const std::string& device) {
    const DeviceSpec spec = parse_device_spec(device);
    impl_->call_properties(spec, {});  // an instance that does not exist is refused, naming those that do
    return RemoteContext(std::make_shared<RemoteContext::Impl>(impl_->device(spec.name), spec.id, device));
}

RemoteContext CompiledModel::get_context() const {
    if (!impl_) throw std::logic_error("CompiledModel is empty; get one from Core::compile_model");
    const DeviceSpec spec = parse_device_spec(impl_->device_string());
    // The memory's name as requests check it: the registry name and the instance compiled on.
    const std::string name = spec.list.empty() && !impl_->instance().empty() ? spec.name + "." + impl_->instance()
                                                                               : impl_->device_string();
    return RemoteContext(std::make_shared<RemoteContext::Impl>(impl_->device_ptr(), impl_->instance(), name));
}

Tensor TensorAccess::device_tensor(ElementType type, const Shape& shape, std::shared_ptr<DeviceBuffer> buffer) {
    Tensor t(type, shape, buffer->handle);
    t.memory_device_ = buffer->memory.name;
    t.storage_ = std::move(buffer);
    return t;
}

DeviceMemory TensorAccess::memory_of(const Tensor& t) {
    if (!t.is_remote()) return {};
    return std::static_pointer_cast<DeviceBuffer>(t.storage_)->memory;
}

mosaic_tensor TensorAccess::descriptor(const Tensor& t) {
    mosaic_tensor d{};
    d.struct_size = sizeof(mosaic_tensor);
    d.element_type = static_cast<mosaic_element_type>(t.get_element_type());
    d.rank = static_cast<uint32_t>(t.get_shape().size());
    d.dims = t.get_shape().data();
    d.data = t.data_;
    d.byte_size = t.get_byte_size();
    d.memory_kind = t.is_remote() ? MOSAIC_MEMORY_DEVICE : MOSAIC_MEMORY_HOST;
    d.memory_device = t.is_remote() ? t.get_device_name().c_str() : nullptr;
    return d;
}

void Tensor::copy_to(Tensor& dst) const {
    if (type_ != dst.type_ || shape_ != dst.shape_)
        throw std::invalid_argument("Tensor::copy_to: the source is " + std::string(to_string(type_)) + " " +
                                    to_string(shape_) + ", the destination " + to_string(dst.type_) + " " +
                                    to_string(dst.shape_) + "; copy_to needs the same element type and shape");
    if (!get_byte_size()) return;
    copy_memory(TensorAccess::memory_of(*this), TensorAccess::memory_of(dst), TensorAccess::descriptor(*this),
                TensorAccess::descriptor(dst));
}

void Tensor::throw_device_memory() const {
    throw std::logic_error("the tensor is in the memory of device '" + memory_device_ +
                           "', which the host cannot address: copy_to a host tensor to read it");
}

}  // namespace mosaic
