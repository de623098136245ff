// The infer request of a model compiled with dynamic input shapes: it checks tensors against the
// inputs' ranges and runs each inference on the request of the specialization compiled for the
// shapes it brings (shape_specializer.hpp). The input tensors are handed on, not copied; the
// outputs are the specialization's, so get_output_tensor() after an inference has its shape.
#include "compiled_model_impl.hpp"

#include <stdexcept>

namespace mosaic {

void InferRequest::Impl::check_dynamic_tensor(size_t index, bool is_input, const Tensor& t) const {
    const PortDesc& port = (is_input ? model_->inputs() : model_->outputs())[index];
    const std::string what = std::string(is_input ? "input '" : "output '") + port.name + "'";
    if (t.get_element_type() != port.type)
        throw std::invalid_argument(what + " expects " + to_string(port.type) + " but the tensor is " +
                                    to_string(t.get_element_type()) + " " + to_string(t.get_shape()));
    // An output's shape is known only once the inputs are: its rank is checked here, its
    // dimensions when the inference runs.
    const bool fits = is_input ? port.bounds.contains(t.get_shape()) : t.get_shape().size() == port.shape.size();
    if (!fits)
        throw std::invalid_argument(what + " accepts shapes " + port.bounds.to_string() + " but the tensor is " +
                                    to_string(t.get_shape()) +
                                    (is_input ? "; give a tensor inside the declared ranges, or reshape the model" : ""));
    if (!t.data() && t.get_byte_size()) throw std::invalid_argument("tensor for '" + port.name + "' has no data");
}

std::shared_ptr<InferRequest::Impl> InferRequest::Impl::specialization() {
    InputShapes shapes;
    for (size_t i = 0; i < inputs_.size(); ++i) {
        const PortDesc& port = model_->graph_inputs()[i];
        if (!input_set_[i] && !is_static(port.shape))
            throw std::logic_error("input '" + port.name + "' has the dynamic shape " + port.bounds.to_string() +
                                   "; set a tensor for it (set_tensor / set_input_tensor) before inferring");
        shapes.push_back(inputs_[i].get_shape());
    }
    auto it = specialized_.begin();
    while (it != specialized_.end() && it->shapes != shapes) ++it;
    if (it != specialized_.end()) {
        specialized_.splice(specialized_.begin(), specialized_, it);
    } else {
        auto request = std::make_shared<Impl>(model_->specialize(shapes));
        // The request's own completion ends this request's asynchronous inference.
        request->set_callback([this, raw = request.get()](std::exception_ptr error) {
            if (!error) {
                try {
                    collect_outputs(*raw);
                } catch (...) {
                    error = std::current_exception();
                }
            }
            finish(error);
        });
        specialized_.push_front({shapes, std::move(request)});
        while (specialized_.size() > model_->shape_cache_size()) specialized_.pop_back();
    }
    Impl& chosen = *specialized_.front().request;
    for (size_t i = 0; i < inputs_.size(); ++i) chosen.set_tensor(i, true, inputs_[i]);
    for (size_t i = 0; i < outputs_.size(); ++i) {
        if (!output_set_[i]) continue;
        const PortDesc& port = chosen.model_->graph_outputs()[i];
        if (outputs_[i].get_shape() != port.shape)
            throw std::invalid_argument("output '" + port.name + "' was given a tensor of shape " +
                                        to_string(outputs_[i].get_shape()) + " but at these input shapes it is " +
                                        to_string(port.shape) + "; give a tensor of that shape or none");
        chosen.set_tensor(i, false, outputs_[i]);
    }
    current_ = specialized_.front().request;
    return current_;
}

void InferRequest::Impl::collect_outputs(Impl& specialized) {
    for (size_t i = 0; i < outputs_.size(); ++i)
        if (!output_set_[i]) outputs_[i] = specialized.outputs_[i];
}

void InferRequest::Impl::start_dynamic() {
    std::shared_ptr<Impl> specialized;
    try {
        specialized = specialization();
    } catch (...) {
        finish(std::current_exception());
        return;
    }
    try {
        specialized->start_async();
    } catch (...) {
        finish(std::current_exception());
    }
}

}  // namespace mosaic
