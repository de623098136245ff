// ONNX TensorProto -> Mosaic element type, shape and bytes: raw or typed data, external-data files.
#pragma once

#include <mosaic/model.hpp>

#include <onnx/onnx_pb.h>

#include <memory>
#include <string>

namespace mosaic::onnx_import {

// The Mosaic element type of an ONNX TensorProto.DataType; throws onnx::UnsupportedError for
// strings and complex numbers (`where` names what holds the type).
ElementType element_type_of(int32_t onnx_type, const std::string& where);
const char* onnx_type_name(int32_t onnx_type);
// The TensorProto.DataType of a Mosaic element type (UNDEFINED for one ONNX has no type for).
int32_t onnx_type_of(ElementType type);

struct TensorData {
    ElementType type = ElementType::undefined;
    Shape shape;
    std::shared_ptr<const Buffer> data;
};

// The tensor's values laid out as Mosaic keeps them. External data is read from `base_dir`.
// Throws ModelError naming `where` when the data contradicts the shape or a file is missing.
TensorData tensor_data(const ::onnx::TensorProto& tensor, const std::string& base_dir, const std::string& where);

}  // namespace mosaic::onnx_import
