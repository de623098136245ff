// Moving tensors between numpy and Mosaic without copying: the element-type mapping, wrapping a
// numpy array's memory in a mosaic::Tensor, and numpy views on a tensor's memory.
#pragma once

#include <mosaic/tensor.hpp>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <string>

namespace mosaic::python {

namespace nb = nanobind;

// A tensor as Python holds it: the Mosaic tensor and what keeps its memory alive when that memory
// belongs to Python (the wrapped numpy array; None when the tensor owns its buffer).
struct PyTensor {
    Tensor tensor;
    nb::object owner = nb::none();
};

// Wraps a numpy array (C-contiguous ones in place; others are first copied to a contiguous array).
// `what` names the value in errors ("input 'data'"). Throws TypeError for a non-array or a dtype
// Mosaic has no element type for.
PyTensor tensor_from_array(nb::handle array, const std::string& what);

// A PyTensor, or a numpy array wrapped as one.
PyTensor tensor_from_value(nb::handle value, const std::string& what);

// A numpy array over the tensor's memory; `owner` keeps that memory alive.
nb::object numpy_view(const Tensor& tensor, nb::handle owner);

// A numpy array with a copy of the tensor's data.
nb::object numpy_copy(const Tensor& tensor);

// The numpy dtype of an element type (OpenVINO's Type.to_dtype()); TypeError for one numpy lacks.
nb::object numpy_dtype(ElementType type);

}  // namespace mosaic::python
