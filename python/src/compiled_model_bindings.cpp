// mosaic.CompiledModel: ports, properties, infer requests, and calling it like a function.
#include "bindings.hpp"
#include "ports.hpp"
#include "property_convert.hpp"
#include "py_compiled_model.hpp"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <mosaic/remote_context.hpp>

namespace mosaic::python {

void bind_compiled_model(nb::module_& m) {
    nb::class_<PyCompiledModel>(m, "CompiledModel")
        .def("create_infer_request",
             [](const PyCompiledModel& c) { return std::make_shared<PyInferRequest>(c.compiled); })
        .def(
            "__call__",
            [](PyCompiledModel& c, nb::handle inputs) {
                if (!c.request) c.request = std::make_shared<PyInferRequest>(c.compiled);
                return c.request->infer(inputs);
            },
            nb::arg("inputs") = nb::none(), "Runs one inference on the model's own request.")
        .def_prop_ro("inputs", [](const PyCompiledModel& c) { return c.compiled.inputs(); })
        .def_prop_ro("outputs", [](const PyCompiledModel& c) { return c.compiled.outputs(); })
        .def("input", [](const PyCompiledModel& c, nb::handle key) {
            return c.compiled.inputs()[port_index(c.compiled.inputs(), key, "input")];
        }, nb::arg("key") = 0)
        .def("output", [](const PyCompiledModel& c, nb::handle key) {
            return c.compiled.outputs()[port_index(c.compiled.outputs(), key, "output")];
        }, nb::arg("key") = 0)
        .def("get_property",
             [](const PyCompiledModel& c, const std::string& key) { return from_property_value(c.compiled.get_property(key)); },
             nb::arg("key"))
        .def_prop_ro("device", [](const PyCompiledModel& c) { return c.compiled.device(); })
        .def("get_context", [](const PyCompiledModel& c) { return c.compiled.get_context(); },
             "The memory of the device the model was compiled on: tensors its requests read in place.");
}

}  // namespace mosaic::python
