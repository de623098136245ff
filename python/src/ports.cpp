#include "ports.hpp"
#include "bindings.hpp"
#include "py_text.hpp"

#include <nanobind/operators.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/set.h>

#include <set>
#include <string>

namespace mosaic::python {

namespace {

size_t index_of_name(const std::vector<PortDesc>& ports, const std::string& name, const char* kind) {
    if (auto i = find_port(ports, name)) return *i;
    std::string known;
    for (const auto& p : ports) known += (known.empty() ? "'" : ", '") + p.name + "'";
    throw nb::key_error(("the model has no " + std::string(kind) + " named '" + name + "' (its " + kind +
                         "s: " + known + ")")
                            .c_str());
}

}  // namespace

std::optional<size_t> find_port(const std::vector<PortDesc>& ports, const std::string& name) {
    for (size_t i = 0; i < ports.size(); ++i) {
        if (ports[i].name == name) return i;
        for (const auto& n : ports[i].names)
            if (n == name) return i;
    }
    return std::nullopt;
}

std::optional<std::string> key_name(nb::handle key) {
    if (nb::isinstance<nb::str>(key)) return nb::cast<std::string>(key);
    if (nb::isinstance<PortDesc>(key)) return nb::cast<const PortDesc&>(key).name;
    return std::nullopt;
}

size_t port_index(const std::vector<PortDesc>& ports, nb::handle key, const char* kind) {
    if (nb::isinstance<nb::bool_>(key))
        throw nb::type_error((std::string(kind) + " keys are indices, names or ports, not bool").c_str());
    if (nb::isinstance<nb::int_>(key)) {
        const auto i = nb::cast<int64_t>(key);
        if (i < 0 || static_cast<size_t>(i) >= ports.size())
            throw nb::index_error((std::string(kind) + " index " + std::to_string(i) + " is out of range; the model has " +
                                   std::to_string(ports.size()) + " " + kind + "s")
                                      .c_str());
        return static_cast<size_t>(i);
    }
    if (auto name = key_name(key)) return index_of_name(ports, *name, kind);
    throw nb::type_error((std::string(kind) + " keys are indices, names or ports, not " +
                          type_name_of(key))
                             .c_str());
}

void bind_ports(nb::module_& m) {
    nb::class_<PartialShape>(m, "PartialShape")
        .def(nb::init_implicit<Shape>(), nb::arg("dims"))
        .def_prop_ro("is_static", [](const PartialShape& s) { return is_static(s.dims); })
        .def_prop_ro("is_dynamic", [](const PartialShape& s) { return !is_static(s.dims); })
        .def_prop_ro("rank", [](const PartialShape& s) { return s.dims.size(); })
        .def("to_shape",
             [](const PartialShape& s) {
                 if (!is_static(s.dims))
                     throw std::invalid_argument("shape " + to_string(s.dims) + " has dynamic dimensions");
                 return s.dims;
             })
        .def("__len__", [](const PartialShape& s) { return s.dims.size(); })
        .def("__getitem__",
             [](const PartialShape& s, int64_t i) {
                 const int64_t n = static_cast<int64_t>(s.dims.size());
                 if (i < -n || i >= n) throw nb::index_error("dimension index out of range");
                 return s.dims[i < 0 ? i + n : i];
             })
        .def("__eq__", [](const PartialShape& a, const PartialShape& b) { return a.dims == b.dims; }, nb::is_operator())
        .def("__str__", [](const PartialShape& s) { return to_string(s.dims); })
        .def("__repr__", [](const PartialShape& s) { return "<PartialShape: " + to_string(s.dims) + ">"; });

    nb::class_<PortDesc>(m, "ConstOutput")
        .def("get_any_name", &PortDesc::get_any_name)
        .def_prop_ro("any_name", [](const PortDesc& p) { return p.name; })
        .def("get_names", [](const PortDesc& p) { return std::set<std::string>(p.names.begin(), p.names.end()); })
        .def_prop_ro("names", [](const PortDesc& p) { return std::set<std::string>(p.names.begin(), p.names.end()); })
        .def("get_element_type", &PortDesc::get_element_type)
        .def_prop_ro("element_type", [](const PortDesc& p) { return p.type; })
        .def("get_partial_shape", [](const PortDesc& p) { return PartialShape{p.shape}; })
        .def_prop_ro("partial_shape", [](const PortDesc& p) { return PartialShape{p.shape}; })
        .def("get_shape",
             [](const PortDesc& p) {
                 if (!is_static(p.shape))
                     throw std::invalid_argument("'" + p.name + "' has the dynamic shape " + to_string(p.shape) +
                                                 "; use get_partial_shape()");
                 return p.shape;
             })
        .def_prop_ro("shape", [](const PortDesc& p) { return p.shape; })
        .def("__hash__", [](const PortDesc& p) { return nb::hash(nb::str(p.name.c_str())); })
        .def("__eq__", [](const PortDesc& a, const PortDesc& b) {
            return a.name == b.name && a.type == b.type && a.shape == b.shape;
        }, nb::is_operator())
        .def("__repr__", [](const PortDesc& p) {
            return "<ConstOutput: names[" + p.name + "] shape" + to_string(p.shape) + " type: " + to_string(p.type) + ">";
        });
}

}  // namespace mosaic::python
