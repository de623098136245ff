// mosaic.Tensor and mosaic.Type. A Tensor made from a numpy array uses the array's memory;
// Tensor.data is a numpy view of the tensor's memory. Neither copies.
#include "bindings.hpp"
#include "tensor_convert.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace mosaic::python {

void bind_tensor(nb::module_& m) {
    nb::enum_<ElementType>(m, "Type")
        .value("undefined", ElementType::undefined)
        .value("f32", ElementType::f32)
        .value("f16", ElementType::f16)
        .value("bf16", ElementType::bf16)
        .value("f64", ElementType::f64)
        .value("i8", ElementType::i8)
        .value("u8", ElementType::u8)
        .value("i16", ElementType::i16)
        .value("u16", ElementType::u16)
        .value("i32", ElementType::i32)
        .value("u32", ElementType::u32)
        .value("i64", ElementType::i64)
        .value("u64", ElementType::u64)
        .value("boolean", ElementType::boolean)
        .def("get_type_name", [](ElementType t) { return std::string(to_string(t)); })
        .def("get_size", [](ElementType t) { return element_size(t); })
        // OpenVINO's Type.to_dtype(): the numpy dtype a Tensor of this type shares memory with.
        .def("to_dtype", &numpy_dtype);

    nb::class_<PyTensor>(m, "Tensor")
        .def(
            "__init__",
            [](PyTensor* self, ElementType type, const Shape& shape) { new (self) PyTensor{Tensor(type, shape)}; },
            nb::arg("type"), nb::arg("shape"), "A zero-filled tensor of that element type and shape (tried first).")
        .def(
            "__init__",
            [](PyTensor* self, nb::handle array) { new (self) PyTensor(tensor_from_array(array, "Tensor")); },
            nb::arg("array"), "Wraps the array's memory (C-contiguous arrays are not copied).")
        .def_prop_ro("data", [](nb::handle self) { return numpy_view(nb::cast<PyTensor&>(self).tensor, self); },
                     "A numpy view of the tensor's memory (no copy).")
        .def_prop_ro("shape", [](const PyTensor& t) { return t.tensor.get_shape(); })
        .def("get_shape", [](const PyTensor& t) { return t.tensor.get_shape(); })
        .def_prop_ro("element_type", [](const PyTensor& t) { return t.tensor.get_element_type(); })
        .def("get_element_type", [](const PyTensor& t) { return t.tensor.get_element_type(); })
        .def_prop_ro("size", [](const PyTensor& t) { return t.tensor.get_size(); })
        .def("get_size", [](const PyTensor& t) { return t.tensor.get_size(); })
        .def_prop_ro("byte_size", [](const PyTensor& t) { return t.tensor.get_byte_size(); })
        .def("get_byte_size", [](const PyTensor& t) { return t.tensor.get_byte_size(); })
        // A tensor in a device's memory (RemoteContext.create_tensor) has no numpy view: data
        // raises, and copy_to / copy_from move its elements.
        .def("is_remote", [](const PyTensor& t) { return t.tensor.is_remote(); })
        .def("get_device_name", [](const PyTensor& t) { return t.tensor.get_device_name(); },
             "The device whose memory holds the elements ('' for host memory).")
        .def(
            "copy_to",
            [](const PyTensor& t, PyTensor& target) {
                nb::gil_scoped_release nogil;
                t.tensor.copy_to(target.tensor);
            },
            nb::arg("target"), "Copies the elements into a tensor of the same type and shape, host or device memory.")
        .def(
            "copy_from",
            [](PyTensor& t, nb::handle source) {
                const PyTensor from = tensor_from_value(source, "Tensor.copy_from");
                nb::gil_scoped_release nogil;
                from.tensor.copy_to(t.tensor);
            },
            nb::arg("source"), "Copies a tensor's or numpy array's elements (same type and shape) into this one.")
        .def("__repr__", [](const PyTensor& t) {
            return std::string("<Tensor ") + to_string(t.tensor.get_element_type()) + " " + to_string(t.tensor.get_shape()) +
                   (t.tensor.is_remote() ? " in " + t.tensor.get_device_name() : std::string()) + ">";
        });
}

}  // namespace mosaic::python
