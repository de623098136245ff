// mosaic.InferRequest: an InferRequest that takes numpy arrays and Python callbacks.
//
// Inputs given as numpy arrays are used in place; the request keeps a reference to each until it is
// replaced, so Python cannot free memory a running inference reads. infer(), wait() and
// wait_for() run without the GIL; the completion callback takes it to call Python.
#pragma once

#include "results.hpp"
#include "tensor_convert.hpp"

#include <mosaic/compiled_model.hpp>

#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace mosaic::python {

namespace nb = nanobind;

class PyInferRequest {
public:
    explicit PyInferRequest(CompiledModel compiled);
    ~PyInferRequest();
    PyInferRequest(const PyInferRequest&) = delete;
    PyInferRequest& operator=(const PyInferRequest&) = delete;

    const std::vector<PortDesc>& inputs() const { return compiled_.inputs(); }
    const std::vector<PortDesc>& outputs() const { return compiled_.outputs(); }

    // `inputs`: None, {index|name|port: array or Tensor}, a list/tuple in input order, or one array
    // or Tensor for a one-input model.
    void set_inputs(nb::handle inputs);
    // `key` names an input or an output (index into inputs when an int).
    void set_tensor(nb::handle key, nb::handle tensor);  // a Tensor or a numpy array
    void set_input_tensor(size_t index, const PyTensor& tensor);
    void set_output_tensor(size_t index, const PyTensor& tensor);
    PyTensor get_tensor(nb::handle key) const;
    PyTensor get_input_tensor(size_t index) const;
    PyTensor get_output_tensor(size_t index) const;

    Results infer(nb::handle inputs);
    void start_async(nb::handle inputs, nb::object userdata);
    void wait();
    bool wait_for(int64_t milliseconds);
    // callback(userdata) runs once each start_async() completes, on a device thread, with the GIL.
    void set_callback(nb::object callback, nb::object userdata);
    nb::object userdata() const;

    // For Python's garbage collector: a callback that refers back to its request forms a cycle
    // through C++, which these let the collector see and break.
    int traverse(visitproc visit, void* arg) const;
    void clear();

    // Copies of the output tensors of the last inference.
    Results results() const;
    std::vector<ProfilingInfo> profiling_info() const;

    // The variables of a stateful model, kept by this request (ReadValue / Assign).
    std::vector<VariableState> query_state() { return request_.query_state(); }
    void reset_state() { request_.reset_state(); }

private:
    struct Callback;

    // The input (second: true) or output a key names: an int indexes the inputs, a name or port
    // may name either.
    std::pair<size_t, bool> locate(nb::handle key) const;
    void set_slot(size_t index, bool is_input, const PyTensor& tensor);
    PyTensor slot(size_t index, bool is_input) const;

    CompiledModel compiled_;
    InferRequest request_;
    // What keeps the memory of each input/output tensor alive when Python owns it.
    std::vector<nb::object> input_owners_, output_owners_;
    std::shared_ptr<Callback> callback_;
};

}  // namespace mosaic::python
