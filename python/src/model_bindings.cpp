// Model, Node, a node's runtime info and Core.query_model: everything that reads the model API.
#include "bindings.hpp"
#include "ports.hpp"
#include "property_convert.hpp"
#include "py_text.hpp"

#include <mosaic/core.hpp>
#include <mosaic/model.hpp>

#include <nanobind/stl/map.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>

namespace mosaic::python {

namespace {

// A node of a model; holding the model keeps the node alive.
struct NodeRef {
    std::shared_ptr<Model> model;
    Node* node;
};

// The live runtime info of one node: writing to it changes the C++ node.
struct RtInfoRef {
    std::shared_ptr<Model> model;
    Node* node;
    RTMap& map() const { return node->get_rt_info(); }
};

// A copy of runtime info as a dict, for iterating and printing.
nb::dict rt_dict(const RTMap& map) {
    nb::dict out;
    for (const auto& [key, value] : map) out[key.c_str()] = from_property_value(value.value());
    return out;
}

std::vector<NodeRef> refs(const std::shared_ptr<Model>& model, const std::vector<Node*>& nodes) {
    std::vector<NodeRef> out;
    for (Node* n : nodes) out.push_back({model, n});
    return out;
}

// The model's inputs and outputs as ConstOutput snapshots, so that one port type serves the model,
// the compiled model, inputs and results.
std::vector<PortDesc> ports(const Model& model, bool is_input) {
    std::vector<PortDesc> out;
    for (const Output& o : is_input ? model.inputs() : model.outputs())
        out.push_back({o.get_any_name(), o.get_names(), o.get_element_type(), o.get_partial_shape()});
    return out;
}

Shape shape_of(nb::handle value) {
    PartialShape shape;
    if (!nb::try_cast(value, shape))
        throw nb::type_error(("a shape is a list of ints (-1: dynamic), not " + type_name_of(value)).c_str());
    return shape.dims;
}

// {"data": [1, 3, 64, 64]} or, for a model with one input, just the shape.
std::map<std::string, mosaic::PartialShape> reshape_request(const Model& model, nb::handle shapes) {
    std::map<std::string, mosaic::PartialShape> out;
    if (nb::isinstance<nb::dict>(shapes)) {
        const auto inputs = ports(model, true);
        for (auto [key, shape] : nb::cast<nb::dict>(shapes))
            out[inputs[port_index(inputs, key, "input")].name] = shape_of(shape);
        return out;
    }
    const auto params = model.get_parameters();
    if (params.size() != 1)
        throw std::invalid_argument("reshape: the model has " + std::to_string(params.size()) +
                                    " inputs; pass a dict of input name -> shape");
    out[Model::input_name(*params[0])] = shape_of(shapes);
    return out;
}

}  // namespace

void bind_model(nb::module_& m) {
    nb::class_<RtInfoRef>(m, "RTMap")
        .def("__getitem__",
             [](const RtInfoRef& r, const std::string& key) {
                 auto it = r.map().find(key);
                 if (it == r.map().end()) throw nb::key_error(key.c_str());
                 return from_property_value(it->second.value());
             })
        .def("__setitem__",
             [](RtInfoRef& r, const std::string& key, nb::handle value) { r.map()[key] = Any(to_property_value(value, key)); })
        .def("__delitem__",
             [](RtInfoRef& r, const std::string& key) {
                 if (!r.map().erase(key)) throw nb::key_error(key.c_str());
             })
        .def("__contains__", [](const RtInfoRef& r, const std::string& key) { return r.map().count(key) > 0; })
        .def("__len__", [](const RtInfoRef& r) { return r.map().size(); })
        .def("__iter__", [](const RtInfoRef& r) { return nb::iter(rt_dict(r.map())); })
        .def("keys", [](const RtInfoRef& r) { return rt_dict(r.map()).attr("keys")(); })
        .def("items", [](const RtInfoRef& r) { return rt_dict(r.map()).attr("items")(); })
        .def(
            "get",
            [](const RtInfoRef& r, const std::string& key, nb::object fallback) -> nb::object {
                auto it = r.map().find(key);
                return it == r.map().end() ? fallback : from_property_value(it->second.value());
            },
            nb::arg("key"), nb::arg("default") = nb::none())
        .def("__repr__", [](const RtInfoRef& r) { return "RTMap(" + text_of(nb::repr(rt_dict(r.map()))) + ")"; });

    nb::class_<NodeRef>(m, "Node")
        .def("get_friendly_name", [](const NodeRef& n) { return n.node->get_friendly_name(); })
        .def_prop_rw("friendly_name", [](const NodeRef& n) { return n.node->get_friendly_name(); },
                     [](NodeRef& n, std::string name) { n.node->set_friendly_name(std::move(name)); })
        .def("set_friendly_name", [](NodeRef& n, std::string name) { n.node->set_friendly_name(std::move(name)); })
        .def("get_type_name", [](const NodeRef& n) { return n.node->get_type_name(); })
        .def("get_rt_info", [](const NodeRef& n) { return RtInfoRef{n.model, n.node}; })
        .def_prop_ro("rt_info", [](const NodeRef& n) { return RtInfoRef{n.model, n.node}; })
        .def("get_output_size", [](const NodeRef& n) { return n.node->output_count(); })
        .def("get_input_size", [](const NodeRef& n) { return n.node->input_count(); })
        .def("get_output_element_type", [](const NodeRef& n, size_t i) { return n.node->output_type(i); })
        .def("get_output_partial_shape", [](const NodeRef& n, size_t i) { return PartialShape{n.node->output_shape(i)}; })
        .def("__eq__", [](const NodeRef& a, const NodeRef& b) { return a.node == b.node; }, nb::is_operator())
        .def("__hash__", [](const NodeRef& n) { return std::hash<const void*>()(n.node); })
        .def("__repr__", [](const NodeRef& n) { return "<Node: '" + n.node->get_friendly_name() + "' " + n.node->type_and_version() + ">"; });

    nb::class_<Model>(m, "Model")
        .def("get_friendly_name", &Model::get_friendly_name)
        .def_prop_rw("friendly_name", &Model::get_friendly_name, &Model::set_friendly_name)
        .def("get_name", &Model::get_friendly_name)
        .def("get_ops", [](const std::shared_ptr<Model>& model) {
            return refs(model, model->get_ops());
        })
        .def("get_ordered_ops", [](const std::shared_ptr<Model>& model) { return refs(model, model->get_ordered_ops()); })
        .def("get_parameters", [](const std::shared_ptr<Model>& model) { return refs(model, model->get_parameters()); })
        .def("get_results", [](const std::shared_ptr<Model>& model) { return refs(model, model->get_results()); })
        .def_prop_ro("inputs", [](const Model& model) { return ports(model, true); })
        .def_prop_ro("outputs", [](const Model& model) { return ports(model, false); })
        .def("input", [](const Model& model, nb::handle key) {
            const auto all = ports(model, true);
            return all[port_index(all, key, "input")];
        }, nb::arg("key") = 0)
        .def("output", [](const Model& model, nb::handle key) {
            const auto all = ports(model, false);
            return all[port_index(all, key, "output")];
        }, nb::arg("key") = 0)
        .def("make_stateful", [](Model& model, const std::map<std::string, std::string>& pairs) { model.make_stateful(pairs); },
             nb::arg("pairs"), "ov.pass.MakeStateful: {input name: output name} pairs become variables the request keeps.")
        .def("reshape", [](Model& model, nb::handle shapes) { model.reshape(reshape_request(model, shapes)); },
             nb::arg("shapes"), "Sets input shapes: a shape for a one-input model, else {input: shape}.")
        .def("is_dynamic", [](const Model& model) {
            for (Node* p : model.get_parameters())
                if (!is_static(p->output_shape(0))) return true;
            return false;
        })
        .def("clone", &Model::clone)
        .def("__repr__", [](const Model& model) { return "<Model: '" + model.get_friendly_name() + "'>"; });
}

void bind_model_queries(nb::class_<Core>& core) {
    core.def(
        "query_model",
        [](Core& core, const std::shared_ptr<const Model>& model, const std::string& device, nb::handle config) {
            const AnyMap properties = to_any_map(config);  // const: the AnyMap overload, not the variadic one
            nb::gil_scoped_release nogil;
            return core.query_model(model, device, properties);
        },
        nb::arg("model"), nb::arg("device_name"), nb::arg("config") = nb::none(),
        "The device that runs each op: {op friendly name: device}.");
}

}  // namespace mosaic::python
