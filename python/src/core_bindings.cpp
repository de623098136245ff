// mosaic.Core: devices, properties, reading and compiling models.
#include "bindings.hpp"
#include "property_convert.hpp"
#include "py_compiled_model.hpp"

#include <mosaic/core.hpp>

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace mosaic::python {

namespace {

// A str or an os.PathLike.
std::string path_text(nb::handle path) {
    return nb::cast<std::string>(nb::module_::import_("os").attr("fspath")(path));
}

PyCompiledModel compile(Core& core, nb::handle model, const std::string& device, nb::handle config) {
    const AnyMap properties = to_any_map(config);
    if (nb::isinstance<Model>(model)) {
        auto m = nb::cast<std::shared_ptr<Model>>(model);
        nb::gil_scoped_release nogil;
        return {core.compile_model(m, device, properties), nullptr};
    }
    const std::string path = path_text(model);
    nb::gil_scoped_release nogil;
    return {core.compile_model(path, device, properties), nullptr};
}

}  // namespace

void bind_core(nb::module_& m) {
    nb::class_<Core> core(m, "Core");
    core.def(nb::init<>(), "Reads the registry installed with the package (or $MOSAIC_PLUGINS).")
        .def(nb::init<const std::string&>(), nb::arg("registry_path"))
        .def_prop_ro("registry_path", &Core::registry_path)
        .def_prop_ro("available_devices", &Core::get_available_devices)
        .def("get_available_devices", &Core::get_available_devices)
        .def(
            "read_model",
            [](const Core& core, nb::handle path, nb::handle weights) {
                const std::string model_path = path_text(path);
                const std::string weights_path = weights.is_none() ? std::string() : path_text(weights);
                nb::gil_scoped_release nogil;
                return core.read_model(model_path, weights_path);
            },
            nb::arg("model"), nb::arg("weights") = nb::none())
        .def("compile_model", &compile, nb::arg("model"), nb::arg("device_name"), nb::arg("config") = nb::none(),
             "Compiles a Model or a model file for a device string such as 'HETERO:GPU,CPU'.")
        .def(
            "set_property",
            [](Core& core, const std::string& device, nb::handle properties) {
                const AnyMap map = to_any_map(properties);  // const: the AnyMap overload, not the variadic one
                core.set_property(device, map);
            },
            nb::arg("device_name"), nb::arg("properties"))
        .def(
            "get_property",
            [](Core& core, const std::string& device, const std::string& key) {
                return from_property_value(core.get_property(device, key));
            },
            nb::arg("device_name"), nb::arg("name"))
        .def("get_default_context", &Core::get_default_context, nb::arg("device_name"),
             "The memory of a device ('GPU', 'GPU.1'): RemoteContext.create_tensor makes tensors in it.");
    bind_model_queries(core);
}

}  // namespace mosaic::python
