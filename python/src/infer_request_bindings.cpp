// mosaic.InferRequest and mosaic.ProfilingInfo.
#include "bindings.hpp"
#include "py_infer_request.hpp"
#include "tensor_convert.hpp"

#include <nanobind/stl/chrono.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace mosaic::python {

namespace {

int traverse(PyObject* self, visitproc visit, void* arg) {
    Py_VISIT(Py_TYPE(self));
    if (!nb::inst_ready(self)) return 0;
    return nb::inst_ptr<PyInferRequest>(self)->traverse(visit, arg);
}

int clear(PyObject* self) {
    if (nb::inst_ready(self)) nb::inst_ptr<PyInferRequest>(self)->clear();
    return 0;
}

PyType_Slot gc_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(traverse)},
                          {Py_tp_clear, reinterpret_cast<void*>(clear)},
                          {0, nullptr}};

}  // namespace

void bind_infer_request(nb::module_& m) {
    nb::class_<ProfilingInfo> info(m, "ProfilingInfo");
    nb::enum_<ProfilingInfo::Status>(info, "Status")
        .value("EXECUTED", ProfilingInfo::Status::executed)
        .value("NOT_RUN", ProfilingInfo::Status::not_run)
        .value("OPTIMIZED_OUT", ProfilingInfo::Status::optimized_out);
    info.def_ro("node_name", &ProfilingInfo::node_name)
        .def_ro("node_type", &ProfilingInfo::node_type)
        .def_ro("exec_type", &ProfilingInfo::exec_type)
        .def_ro("status", &ProfilingInfo::status)
        .def_ro("real_time", &ProfilingInfo::real_time)
        .def_ro("cpu_time", &ProfilingInfo::cpu_time)
        .def("__repr__", [](const ProfilingInfo& p) {
            return "<ProfilingInfo: " + p.node_name + " " + p.node_type + " " + p.exec_type + " " +
                   std::to_string(p.real_time.count()) + " us>";
        });

    nb::class_<VariableState>(m, "VariableState")
        .def("get_name", &VariableState::get_name)
        .def_prop_ro("name", &VariableState::get_name)
        .def("get_state", [](const VariableState& v) { return PyTensor{v.get_state(), nb::none()}; })
        .def("set_state", [](VariableState& v, nb::handle state) { v.set_state(tensor_from_value(state, "the state").tensor); },
             nb::arg("state"), "Copies a Tensor or numpy array in as the variable's value.")
        .def_prop_rw(
            "state", [](const VariableState& v) { return PyTensor{v.get_state(), nb::none()}; },
            [](VariableState& v, nb::handle state) { v.set_state(tensor_from_value(state, "the state").tensor); })
        .def("reset", &VariableState::reset)
        .def("__repr__", [](const VariableState& v) { return "<VariableState: '" + v.get_name() + "'>"; });

    nb::class_<PyInferRequest>(m, "InferRequest", nb::type_slots(gc_slots))
        .def("infer", &PyInferRequest::infer, nb::arg("inputs") = nb::none(),
             "Runs one inference (without the GIL) and returns copies of the outputs.")
        .def("start_async", &PyInferRequest::start_async, nb::arg("inputs") = nb::none(),
             nb::arg("userdata") = nb::none())
        .def("wait", &PyInferRequest::wait)
        .def("wait_for", &PyInferRequest::wait_for, nb::arg("timeout"),
             "Waits up to `timeout` milliseconds; False when the inference is still running.")
        .def("set_callback", &PyInferRequest::set_callback, nb::arg("callback"), nb::arg("userdata") = nb::none())
        .def_prop_ro("userdata", &PyInferRequest::userdata)
        .def("get_tensor", &PyInferRequest::get_tensor, nb::arg("key"))
        .def("set_tensor", &PyInferRequest::set_tensor, nb::arg("key"), nb::arg("tensor"))
        .def("get_input_tensor", &PyInferRequest::get_input_tensor, nb::arg("index") = 0)
        .def("get_output_tensor", &PyInferRequest::get_output_tensor, nb::arg("index") = 0)
        .def("set_input_tensor", &PyInferRequest::set_input_tensor, nb::arg("index"), nb::arg("tensor"))
        .def("set_output_tensor", &PyInferRequest::set_output_tensor, nb::arg("index"), nb::arg("tensor"))
        .def("set_input_tensors", &PyInferRequest::set_inputs, nb::arg("inputs"))
        .def("get_profiling_info", &PyInferRequest::profiling_info)
        .def_prop_ro("profiling_info", &PyInferRequest::profiling_info)
        .def_prop_ro("results", &PyInferRequest::results)
        .def_prop_ro("inputs", &PyInferRequest::inputs)
        .def_prop_ro("outputs", &PyInferRequest::outputs)
        .def("query_state", &PyInferRequest::query_state)
        .def("reset_state", &PyInferRequest::reset_state);
}

}  // namespace mosaic::python
