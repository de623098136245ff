// A model compiled for one device. Thread-safe: requests may be created from several threads.
#pragma once

#include <mosaic/export.hpp>

#include <mosaic/element_type.hpp>
#include <mosaic/infer_request.hpp>
#include <mosaic/partial_shape.hpp>
#include <mosaic/properties.hpp>
#include <mosaic/remote_context.hpp>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace mosaic {

// A model input or output as compiled; get_* spell it as OpenVINO's ov::Output<const ov::Node>.
struct PortDesc {
    std::string name;                // first tensor name, else the Parameter's/Result's friendly name
    std::vector<std::string> names;  // every name it answers to
    ElementType type = ElementType::undefined;
    Shape shape;           // -1 for a dimension that is not static
    PartialShape bounds;   // the shape with its ranges ([1..8,3,?,?]); inputs are checked against it

    const std::string& get_any_name() const { return name; }
    const std::vector<std::string>& get_names() const { return names; }
    ElementType get_element_type() const { return type; }
    const Shape& get_shape() const { return shape; }
    const Shape& get_partial_shape() const { return shape; }
};

class MOSAIC_API CompiledModel {
public:
    CompiledModel() = default;

    const std::vector<PortDesc>& inputs() const;
    const std::vector<PortDesc>& outputs() const;
    // By position or name; throws std::out_of_range listing the ports when there is no such one.
    // input() / output() need the model to have exactly one.
    const PortDesc& input() const;
    const PortDesc& input(size_t index) const;
    const PortDesc& input(const std::string& name) const;
    const PortDesc& output() const;
    const PortDesc& output(size_t index) const;
    const PortDesc& output(const std::string& name) const;
    const std::string& device() const;

    InferRequest create_infer_request();
    // The memory of the device the model was compiled on (remote_context.hpp): tensors its
    // requests read and write in place.
    RemoteContext get_context() const;

    // The device's compiled-model properties plus OPTIMAL_NUMBER_OF_INFER_REQUESTS,
    // EXECUTION_DEVICES, NETWORK_NAME and SUPPORTED_PROPERTIES.
    PropertyValue get_property(const std::string& key) const;

    // Writes a blob that Core::import_model reads back; throws when the device cannot export.
    void export_model(std::ostream& out) const;

    explicit operator bool() const { return impl_ != nullptr; }

    class MOSAIC_INTERNAL Impl;
    explicit CompiledModel(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

private:
    std::shared_ptr<Impl> impl_;
};

}  // namespace mosaic
