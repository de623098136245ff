// The infer request of a staged model (staged_model.hpp): the prefix's request, the data-dependent
// op on the host, then the suffix's request (a dynamic model's, specialized per shape the op gives).
// Asynchronously the stages chain through their completion callbacks, so no thread waits. A
// control-flow op's body runs synchronously in that chain, as the data-dependent op does.
#include "compiled_model_impl.hpp"

#include <chrono>

namespace mosaic {

void InferRequest::Impl::init_stages() {
    prefix_request_ = std::make_shared<Impl>(model_->prefix());
    suffix_request_ = std::make_shared<Impl>(model_->suffix());
    // The stages outlive neither this request (its destructor waits for a running inference before
    // they go) nor each other.
    prefix_request_->set_callback([this](std::exception_ptr error) {
        if (!error) {
            try {
                run_host_stage();
                suffix_request_->start_async();
                return;
            } catch (...) {
                error = std::current_exception();
            }
        }
        finish(error);
    });
    suffix_request_->set_callback([this](std::exception_ptr error) {
        if (!error) {
            try {
                collect_suffix_outputs();
            } catch (...) {
                error = std::current_exception();
            }
        }
        finish(error);
    });
}

void InferRequest::Impl::run_host_stage() {
    std::vector<Tensor> op_inputs;
    for (size_t i = 0; i < prefix_request_->outputs_.size(); ++i) op_inputs.push_back(prefix_request_->outputs_[i]);
    const auto start = std::chrono::steady_clock::now();
    std::vector<Tensor> op_outputs =
        model_->staged().bodies.empty() ? run_data_dependent_op(model_->staged(), op_inputs) : run_body(op_inputs);
    host_time_ = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    // The suffix reads the model's inputs, then the op's outputs.
    for (size_t i = 0; i < inputs_.size(); ++i) suffix_request_->set_tensor(i, true, inputs_[i]);
    for (size_t k = 0; k < op_outputs.size(); ++k) suffix_request_->set_tensor(inputs_.size() + k, true, op_outputs[k]);
}

void InferRequest::Impl::collect_suffix_outputs() {
    for (size_t i = 0; i < outputs_.size(); ++i) outputs_[i] = suffix_request_->outputs_[i];
}

void InferRequest::Impl::infer_staged() {
    for (size_t i = 0; i < inputs_.size(); ++i) prefix_request_->set_tensor(i, true, inputs_[i]);
    prefix_request_->infer();
    run_host_stage();
    suffix_request_->infer();
    collect_suffix_outputs();
}

void InferRequest::Impl::start_staged() {
    try {
        for (size_t i = 0; i < inputs_.size(); ++i) prefix_request_->set_tensor(i, true, inputs_[i]);
        prefix_request_->start_async();
    } catch (...) {
        finish(std::current_exception());
    }
}

}  // namespace mosaic
