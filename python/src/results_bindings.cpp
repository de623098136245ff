#include "bindings.hpp"
#include "ports.hpp"
#include "results.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace mosaic::python {

void bind_results(nb::module_& m) {
    nb::class_<Results>(m, "InferResults", "The outputs of one inference, by index, name or port (a dict of port -> array).")
        .def("__getitem__", [](const Results& r, nb::handle key) { return r.arrays[port_index(r.ports, key, "output")]; })
        .def("__len__", [](const Results& r) { return r.ports.size(); })
        .def("__iter__", [](const Results& r) { return nb::iter(nb::cast(r.ports)); })
        .def("__contains__", [](const Results& r, nb::handle key) {
            try {
                port_index(r.ports, key, "output");
                return true;
            } catch (const nb::builtin_exception&) {
                return false;
            }
        })
        .def("keys", [](const Results& r) { return r.ports; })
        .def("values", [](const Results& r) { return r.arrays; })
        .def("items", [](const Results& r) {
            nb::list out;
            for (size_t i = 0; i < r.ports.size(); ++i) out.append(nb::make_tuple(r.ports[i], r.arrays[i]));
            return out;
        })
        .def("names", [](const Results& r) {
            std::vector<std::string> out;
            for (const auto& p : r.ports) out.push_back(p.name);
            return out;
        })
        .def("to_dict", [](const Results& r) {
            nb::dict out;
            for (size_t i = 0; i < r.ports.size(); ++i) out[nb::cast(r.ports[i])] = r.arrays[i];
            return out;
        })
        .def("to_tuple", [](const Results& r) {
            nb::list out;
            for (const auto& a : r.arrays) out.append(a);
            return nb::tuple(out);
        })
        .def("__repr__", [](const Results& r) {
            std::string out = "<InferResults:";
            for (const auto& p : r.ports) out += " '" + p.name + "'";
            return out + ">";
        });
}

}  // namespace mosaic::python
