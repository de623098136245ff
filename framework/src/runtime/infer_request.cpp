// The infer request: what applications give it checked against the model's ports, then handed to
// the runner stack (runtime/runner.hpp); waiting, callbacks and the request's lifetime around an
// asynchronous inference.
#include "runtime/infer_request_impl.hpp"
#include "common/logging.hpp"
#include "runtime/request_reaper.hpp"

#include <algorithm>
#include <stdexcept>

namespace mosaic {

namespace {

// A dynamic port's tensor before one is set or computed: its dynamic dimensions are 0, as OpenVINO's.
Shape placeholder_shape(const Shape& shape) {
    Shape s = shape;
    for (auto& d : s) d = std::max<int64_t>(d, 0);
    return s;
}

// A tensor for `port`: its type, and its shape when static, else one inside the input's ranges
// (an output's dimensions are known only once the inputs are: its rank is checked here, the
// dimensions when the inference runs).
void check_tensor(const PortDesc& port, bool is_input, const Tensor& t) {
    const std::string what = std::string(is_input ? "input '" : "output '") + port.name + "'";
    const std::string given = std::string(to_string(t.get_element_type())) + " " + to_string(t.get_shape());
    if (is_static(port.shape)) {
        if (t.get_element_type() != port.type || t.get_shape() != port.shape)
            throw std::invalid_argument(what + " expects " + to_string(port.type) + " " + to_string(port.shape) +
                                        " but the tensor is " + given);
    } else {
        if (t.get_element_type() != port.type)
            throw std::invalid_argument(what + " expects " + to_string(port.type) + " but the tensor is " + given);
        const bool fits = is_input ? port.bounds.contains(t.get_shape()) : t.get_shape().size() == port.shape.size();
        if (!fits)
            throw std::invalid_argument(what + " accepts shapes " + port.bounds.to_string() + " but the tensor is " +
                                        to_string(t.get_shape()) +
                                        (is_input ? "; give a tensor inside the declared ranges, or reshape the model" : ""));
    }
    if (!t.is_remote() && !t.data() && t.get_byte_size()) throw std::invalid_argument("tensor for '" + port.name + "' has no data");
}

}  // namespace

InferRequest::Impl::Impl(std::shared_ptr<CompiledModel::Impl> model) : model_(std::move(model)) {
    // A variable of dynamic shape gets its first value from the initial model, at the first inference.
    for (const Variable& v : model_->variables())
        state_.push_back({is_static(v.shape) ? Tensor(v.type, v.shape) : Tensor(), true});
    // A port of static shape has its buffer from the start, written in place; a dynamic port's
    // tensor comes from the application or from the inference.
    for (const PortDesc& p : model_->inputs()) tensors_.inputs.push_back(is_static(p.shape) ? Tensor(p.type, p.shape) : Tensor());
    for (const PortDesc& p : model_->outputs()) {
        output_given_.push_back(is_static(p.shape));
        tensors_.outputs.push_back(output_given_.back() ? Tensor(p.type, p.shape) : Tensor());
    }
    runner_ = CompiledModel::Impl::make_runner(model_, state_);
}

InferRequest::Impl::~Impl() {
    // An inference still running owns the request; let it finish first (its error is dropped).
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [&] { return !running_ && callbacks_running_ == 0; });
}

void InferRequest::Impl::check_idle(const char* what) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (running_) throw std::logic_error(std::string(what) + ": the request is running; wait() for it first");
}

std::pair<size_t, bool> InferRequest::Impl::find(const std::string& name) const {
    std::string known;
    for (bool is_input : {true, false}) {
        const auto& ports = is_input ? model_->inputs() : model_->outputs();
        for (size_t i = 0; i < ports.size(); ++i) {
            for (const auto& n : ports[i].names)
                if (n == name) return {i, is_input};
            known += (known.empty() ? "" : ", ") + ports[i].name;
        }
    }
    throw std::invalid_argument("the model has no input or output named '" + name + "' (it has: " + known + ")");
}

const PortDesc& InferRequest::Impl::port(size_t index, bool is_input) const {
    const auto& ports = is_input ? model_->inputs() : model_->outputs();
    if (index >= ports.size())
        throw std::out_of_range(std::string(is_input ? "input" : "output") + " index " + std::to_string(index) +
                                " is out of range; the model has " + std::to_string(ports.size()));
    return ports[index];
}

Tensor InferRequest::Impl::tensor(size_t index, bool is_input) const {
    const PortDesc& p = port(index, is_input);
    const Tensor& t = (is_input ? tensors_.inputs : tensors_.outputs)[index];
    return t ? t : Tensor(p.type, placeholder_shape(p.shape));
}

void InferRequest::Impl::set_tensor(size_t index, bool is_input, const Tensor& t) {
    check_idle("set_tensor");
    check_tensor(port(index, is_input), is_input, t);
    (is_input ? tensors_.inputs : tensors_.outputs)[index] = t;
    if (!is_input) output_given_[index] = true;
}

void InferRequest::Impl::prepare_outputs() {
    for (size_t i = 0; i < output_given_.size(); ++i)
        if (!output_given_[i]) tensors_.outputs[i] = Tensor();
}

void InferRequest::Impl::infer() {
    check_idle("infer");
    prepare_outputs();
    runner_->run(tensors_);
}

void InferRequest::Impl::start_async() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (running_) throw std::logic_error("start_async: the request is already running; wait() for it first");
        running_ = true;
        error_ = nullptr;
    }
    prepare_outputs();
    runner_->start(tensors_, [this](std::exception_ptr error) { finish(std::move(error)); });
}

void InferRequest::Impl::finish(std::exception_ptr error) noexcept {
    std::function<void(std::exception_ptr)> callback;
    std::shared_ptr<Impl> self;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        running_ = false;
        ++callbacks_running_;
        error_ = error;
        callback = callback_;
        // A callback may drop the application's last handle: the request must outlive it. Null when
        // the request is already being destroyed (its destructor waits for this call).
        if (callback) self = weak_from_this().lock();
    }
    // The callback may start the request again; waiters then keep waiting for that run. They are
    // released only after the callback returns, so what it wrote is visible once wait() returns.
    if (callback) {
        try {
            callback(error);
        } catch (const std::exception& e) {
            log_message(MOSAIC_LOG_ERROR, model_->device().name(), std::string("infer request callback threw: ") + e.what());
        } catch (...) {
            log_message(MOSAIC_LOG_ERROR, model_->device().name(), "infer request callback threw");
        }
    }
    callback = nullptr;
    // Our reference to the error goes before waiters are released: one may rethrow it and drop the
    // last other reference, and the exception must then be freed by that thread alone.
    error = nullptr;
    // Ours may be the last reference, and destruction joins this (device) thread: the reaper drops
    // it. Handed over before waiters are released, so a waiter that returns and ends the process
    // never finds this thread still using the reaper while exit destroys it; the destructor it may
    // run waits for the block below.
    if (self) detail::reap(std::move(self));
    {
        // Notified under the lock: once it is released a waiting destructor may free the request,
        // so nothing of it is touched after this block.
        std::lock_guard<std::mutex> lock(mutex_);
        --callbacks_running_;
        done_cv_.notify_all();
    }
}

bool InferRequest::Impl::wait_for(std::chrono::milliseconds timeout, bool forever) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto idle = [&] { return !running_ && callbacks_running_ == 0; };
    if (forever)
        done_cv_.wait(lock, idle);
    else if (!done_cv_.wait_for(lock, timeout, idle))
        return false;
    if (error_) {
        std::exception_ptr e = error_;
        error_ = nullptr;
        std::rethrow_exception(e);
    }
    return true;
}

void InferRequest::Impl::set_callback(std::function<void(std::exception_ptr)> callback) {
    std::lock_guard<std::mutex> lock(mutex_);
    callback_ = std::move(callback);
}

std::vector<ProfilingInfo> InferRequest::Impl::profiling() const {
    check_idle("get_profiling_info");
    return runner_->profiling();
}

// ---- public wrapper ----

namespace {
InferRequest::Impl& checked(const std::shared_ptr<InferRequest::Impl>& impl) {
    if (!impl) throw std::logic_error("InferRequest is empty; get one from CompiledModel::create_infer_request");
    return *impl;
}
}  // namespace

void InferRequest::set_tensor(const std::string& name, const Tensor& tensor) {
    auto [index, is_input] = checked(impl_).find(name);
    impl_->set_tensor(index, is_input, tensor);
}
Tensor InferRequest::get_tensor(const std::string& name) const {
    auto [index, is_input] = checked(impl_).find(name);
    return impl_->tensor(index, is_input);
}
void InferRequest::set_tensor(const PortDesc& port, const Tensor& tensor) { set_tensor(port.name, tensor); }
Tensor InferRequest::get_tensor(const PortDesc& port) const { return get_tensor(port.name); }
void InferRequest::set_input_tensor(size_t index, const Tensor& tensor) { checked(impl_).set_tensor(index, true, tensor); }
Tensor InferRequest::get_input_tensor(size_t index) const { return checked(impl_).tensor(index, true); }
Tensor InferRequest::get_output_tensor(size_t index) const { return checked(impl_).tensor(index, false); }
void InferRequest::infer() { checked(impl_).infer(); }
void InferRequest::start_async() { checked(impl_).start_async(); }
void InferRequest::wait() { checked(impl_).wait_for(std::chrono::milliseconds(0), true); }
bool InferRequest::wait_for(std::chrono::milliseconds timeout) { return checked(impl_).wait_for(timeout, false); }
void InferRequest::set_callback(std::function<void(std::exception_ptr)> callback) {
    checked(impl_).set_callback(std::move(callback));
}
std::vector<ProfilingInfo> InferRequest::get_profiling_info() const { return checked(impl_).profiling(); }

}  // namespace mosaic
