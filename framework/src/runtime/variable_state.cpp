// The infer request's side of stateful models (state.hpp): each variable's value, read and set
// by applications between inferences (the stateful runner feeds and takes it around them).
#include "runtime/infer_request_impl.hpp"

#include <stdexcept>

namespace mosaic {

const Variable& InferRequest::Impl::variable(size_t index) const {
    if (index >= state_.size())
        throw std::out_of_range("variable index " + std::to_string(index) + " is out of range; the model has " +
                                std::to_string(state_.size()));
    return model_->variables()[index];
}

Tensor InferRequest::Impl::get_state(size_t index) const {
    check_idle("get_state");
    const Variable& v = variable(index);
    if (!state_[index].reset) return state_[index].value;
    if (v.initial) return v.initial;
    throw std::logic_error("variable '" + v.id + "' is reset to an initial value computed from the model's inputs; "
                           "its value is known after the next inference");
}

void InferRequest::Impl::set_state(size_t index, const Tensor& value) {
    check_idle("set_state");
    const Variable& v = variable(index);
    // A dimension the variable declares dynamic takes any length (a KV cache's).
    if (value.get_element_type() != v.type || !PartialShape(v.shape).contains(value.get_shape()))
        throw std::invalid_argument("variable '" + v.id + "' holds " + to_string(v.type) + " " + PartialShape(v.shape).to_string() +
                                    " but the tensor is " + to_string(value.get_element_type()) + " " +
                                    to_string(value.get_shape()));
    // A device tensor's elements come to the host, where the request keeps its variables.
    Tensor kept(value.get_element_type(), value.get_shape());
    value.copy_to(kept);
    state_[index] = {kept, false};
}

void InferRequest::Impl::reset_state(size_t index) {
    check_idle("reset_state");
    variable(index);
    state_[index].reset = true;
}

void InferRequest::Impl::reset_state() {
    check_idle("reset_state");
    for (auto& s : state_) s.reset = true;
}

// ---- public wrapper ----

const std::string& VariableState::get_name() const { return request_->variable(index_).id; }
Tensor VariableState::get_state() const { return request_->get_state(index_); }
void VariableState::set_state(const Tensor& state) { request_->set_state(index_, state); }
void VariableState::reset() { request_->reset_state(index_); }

std::vector<VariableState> InferRequest::query_state() {
    if (!impl_) throw std::logic_error("InferRequest is empty; get one from CompiledModel::create_infer_request");
    std::vector<VariableState> out;
    for (size_t k = 0; k < impl_->variable_count(); ++k) out.push_back(VariableState(impl_, k));
    return out;
}

void InferRequest::reset_state() {
    if (!impl_) throw std::logic_error("InferRequest is empty; get one from CompiledModel::create_infer_request");
    impl_->reset_state();
}

}  // namespace mosaic
