// mosaic.RemoteContext (OpenVINO's ov.RemoteContext): tensors in a device's own memory, which a
// request on that device reads and writes in place (remote_context.hpp). From
// CompiledModel.get_context() or Core.get_default_context(device).
#include "bindings.hpp"
#include "property_convert.hpp"
#include "tensor_convert.hpp"

#include <mosaic/remote_context.hpp>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace mosaic::python {

void bind_remote_context(nb::module_& m) {
    nb::class_<RemoteContext>(m, "RemoteContext")
        .def("get_device_name", &RemoteContext::get_device_name)
        .def("has_device_memory", &RemoteContext::has_device_memory,
             "Whether create_tensor allocates in the device's own memory (False: host memory, as a CPU's).")
        .def(
            "create_tensor",
            [](const RemoteContext& context, ElementType type, const Shape& shape, nb::handle properties) {
                if (!properties.is_none() && nb::len(properties) != 0)
                    throw nb::value_error("RemoteContext.create_tensor: Mosaic's devices take no tensor properties; "
                                          "pass {} or nothing");
                Tensor t;
                {
                    nb::gil_scoped_release nogil;  // the zeros' upload to the device
                    t = context.create_tensor(type, shape);
                }
                return PyTensor{t};
            },
            nb::arg("type"), nb::arg("shape"), nb::arg("properties") = nb::none(),
            "A zero-filled tensor in the device's memory; Tensor.copy_from / copy_to move its elements.")
        .def(
            "create_host_tensor",
            [](const RemoteContext& context, ElementType type, const Shape& shape) {
                return PyTensor{context.create_host_tensor(type, shape)};
            },
            nb::arg("type"), nb::arg("shape"));
}

}  // namespace mosaic::python
