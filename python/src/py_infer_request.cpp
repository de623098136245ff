#include "py_infer_request.hpp"
#include "ports.hpp"

#include <nanobind/stl/string.h>

#include <chrono>

namespace mosaic::python {

namespace {

// Whether Python objects may still be touched: not once the interpreter is shutting down.
bool python_alive() {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsInitialized() && !Py_IsFinalizing();
#else
    return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

}  // namespace

// The Python side of a completion callback. Deleted from whichever thread drops the last reference
// (possibly a device thread), so the deleter takes the GIL to release the Python objects.
struct PyInferRequest::Callback {
    nb::object function = nb::none();
    nb::object userdata = nb::none();

    static std::shared_ptr<Callback> make() {
        return std::shared_ptr<Callback>(new Callback, [](Callback* c) {
            if (!python_alive()) return;  // too late to release Python objects (leaked at exit)
            nb::gil_scoped_acquire gil;
            delete c;
        });
    }
};

PyInferRequest::PyInferRequest(CompiledModel compiled)
    : compiled_(std::move(compiled)),
      input_owners_(compiled_.inputs().size()),
      output_owners_(compiled_.outputs().size()),
      callback_(Callback::make()) {
    nb::gil_scoped_release nogil;
    request_ = compiled_.create_infer_request();
}

PyInferRequest::~PyInferRequest() {
    // Destroying the request waits for a running inference, whose callback needs the GIL.
    nb::gil_scoped_release nogil;
    request_ = InferRequest();
}

void PyInferRequest::set_slot(size_t index, bool is_input, const PyTensor& tensor) {
    if (is_input)
        request_.set_input_tensor(index, tensor.tensor);
    else
        request_.set_tensor(outputs().at(index).name, tensor.tensor);
    (is_input ? input_owners_ : output_owners_)[index] = tensor.owner;
}

PyTensor PyInferRequest::slot(size_t index, bool is_input) const {
    const auto& owners = is_input ? input_owners_ : output_owners_;
    Tensor t = is_input ? request_.get_input_tensor(index) : request_.get_output_tensor(index);
    return {t, owners.at(index) ? owners.at(index) : nb::none()};
}

void PyInferRequest::set_inputs(nb::handle inputs) {
    const auto& ports = this->inputs();
    auto set = [&](size_t i, nb::handle value) {
        set_slot(i, true, tensor_from_value(value, "input '" + ports[i].name + "'"));
    };
    if (inputs.is_none()) return;
    if (nb::isinstance<nb::dict>(inputs)) {
        for (auto [key, value] : nb::cast<nb::dict>(inputs)) set(port_index(ports, key, "input"), value);
    } else if (nb::isinstance<nb::list>(inputs) || nb::isinstance<nb::tuple>(inputs)) {
        if (nb::len(inputs) > ports.size())
            throw std::invalid_argument(std::to_string(nb::len(inputs)) + " inputs given; the model has " +
                                        std::to_string(ports.size()));
        size_t i = 0;
        for (nb::handle value : inputs) set(i++, value);
    } else if (ports.size() == 1) {
        set(0, inputs);
    } else {
        throw nb::type_error(("the model has " + std::to_string(ports.size()) +
                              " inputs; pass a dict {name: array} or a list of arrays")
                                 .c_str());
    }
}

std::pair<size_t, bool> PyInferRequest::locate(nb::handle key) const {
    if (auto name = key_name(key))
        if (!find_port(inputs(), *name))
            if (auto i = find_port(outputs(), *name)) return {*i, false};
    return {port_index(inputs(), key, "input"), true};
}

void PyInferRequest::set_tensor(nb::handle key, nb::handle tensor) {
    const auto [index, is_input] = locate(key);
    const auto& port = (is_input ? inputs() : outputs())[index];
    set_slot(index, is_input, tensor_from_value(tensor, (is_input ? "input '" : "output '") + port.name + "'"));
}

void PyInferRequest::set_input_tensor(size_t index, const PyTensor& tensor) {
    set_slot(port_index(inputs(), nb::int_(index), "input"), true, tensor);
}

void PyInferRequest::set_output_tensor(size_t index, const PyTensor& tensor) {
    set_slot(port_index(outputs(), nb::int_(index), "output"), false, tensor);
}

PyTensor PyInferRequest::get_tensor(nb::handle key) const {
    const auto [index, is_input] = locate(key);
    return slot(index, is_input);
}

PyTensor PyInferRequest::get_input_tensor(size_t index) const {
    return slot(port_index(inputs(), nb::int_(index), "input"), true);
}

PyTensor PyInferRequest::get_output_tensor(size_t index) const {
    return slot(port_index(outputs(), nb::int_(index), "output"), false);
}

Results PyInferRequest::infer(nb::handle inputs) {
    set_inputs(inputs);
    {
        nb::gil_scoped_release nogil;
        request_.infer();
    }
    return results();
}

void PyInferRequest::start_async(nb::handle inputs, nb::object userdata) {
    set_inputs(inputs);
    if (!userdata.is_none()) callback_->userdata = std::move(userdata);
    nb::gil_scoped_release nogil;
    request_.start_async();
}

void PyInferRequest::wait() {
    nb::gil_scoped_release nogil;
    request_.wait();
}

bool PyInferRequest::wait_for(int64_t milliseconds) {
    nb::gil_scoped_release nogil;
    return request_.wait_for(std::chrono::milliseconds(milliseconds));
}

void PyInferRequest::set_callback(nb::object callback, nb::object userdata) {
    if (!callback.is_none() && !PyCallable_Check(callback.ptr()))
        throw nb::type_error("set_callback: the callback must be callable");
    callback_->function = std::move(callback);
    callback_->userdata = std::move(userdata);
    std::weak_ptr<Callback> weak = callback_;
    request_.set_callback([weak](std::exception_ptr) {
        // The error, if any, is rethrown by wait(); the callback is told only that the run ended.
        auto c = weak.lock();
        if (!c || !python_alive()) return;
        nb::gil_scoped_acquire gil;
        if (c->function.is_none()) return;
        try {
            c->function(c->userdata);
        } catch (nb::python_error& e) {
            e.discard_as_unraisable("the callback of a mosaic.InferRequest");
        }
    });
}

nb::object PyInferRequest::userdata() const { return callback_->userdata; }

int PyInferRequest::traverse(visitproc visit, void* arg) const {
    Py_VISIT(callback_->function.ptr());
    Py_VISIT(callback_->userdata.ptr());
    for (const auto* owners : {&input_owners_, &output_owners_})
        for (const auto& o : *owners) Py_VISIT(o.ptr());
    return 0;
}

void PyInferRequest::clear() {
    callback_->function = nb::none();
    callback_->userdata = nb::none();
}

Results PyInferRequest::results() const {
    Results r{outputs(), {}};
    for (size_t i = 0; i < r.ports.size(); ++i) r.arrays.push_back(numpy_copy(request_.get_output_tensor(i)));
    return r;
}

std::vector<ProfilingInfo> PyInferRequest::profiling_info() const {
    nb::gil_scoped_release nogil;
    return request_.get_profiling_info();
}

}  // namespace mosaic::python
