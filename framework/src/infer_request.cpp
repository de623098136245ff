#include "compiled_model_impl.hpp"
#include "logging.hpp"
#include "request_reaper.hpp"
#include "sync_request.hpp"

#include <mosaic/sdk/plugin.hpp>
#include <mosaic/sdk/status.hpp>

#include <algorithm>
#include <stdexcept>

namespace mosaic {

namespace {

std::string status_text(mosaic_status* status) {
    std::string message = status->message ? status->message : "(no message)";
    status->release(status);
    return message;
}

}  // namespace

namespace {
// A dynamic port's tensor before one is set or computed: its dynamic dimensions are 0, as OpenVINO's.
Shape placeholder_shape(const Shape& shape) {
    Shape s = shape;
    for (auto& d : s) d = std::max<int64_t>(d, 0);
    return s;
}
}  // namespace

InferRequest::Impl::Impl(std::shared_ptr<CompiledModel::Impl> model) : model_(std::move(model)) {
    if (model_->raw())
        model_->device().check(model_->device().api().create_request(model_->raw(), &request_), "creating an infer request");
    for (const auto& p : model_->graph_inputs()) inputs_.emplace_back(p.type, placeholder_shape(p.shape));
    for (const auto& p : model_->graph_outputs()) outputs_.emplace_back(p.type, placeholder_shape(p.shape));
    input_set_.assign(inputs_.size(), false);
    output_set_.assign(outputs_.size(), false);
    for (const Variable& v : model_->variables()) state_.push_back({Tensor(v.type, v.shape), true});
    if (model_->is_staged()) init_stages();
}

InferRequest::Impl::~Impl() {
    // An inference still running owns the request; let it finish first (its error is dropped).
    {
        std::unique_lock<std::mutex> lock(mutex_);
        done_cv_.wait(lock, [&] { return !running_ && callbacks_running_ == 0; });
    }
    fallback_.reset();  // joins its worker
    if (request_) model_->device().api().release_request(request_);
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

Tensor& InferRequest::Impl::tensor(size_t index, bool is_input) {
    // The model's own ports; a variable's come after them and are the request's business.
    const size_t count = (is_input ? model_->inputs() : model_->outputs()).size();
    if (index >= count)
        throw std::out_of_range(std::string(is_input ? "input" : "output") + " index " + std::to_string(index) +
                                " is out of range; the model has " + std::to_string(count));
    return (is_input ? inputs_ : outputs_)[index];
}

void InferRequest::Impl::set_tensor(size_t index, bool is_input, const Tensor& t) {
    check_idle("set_tensor");
    Tensor& slot = tensor(index, is_input);
    const PortDesc& port = (is_input ? model_->inputs() : model_->outputs())[index];
    if (model_->is_dynamic()) {
        check_dynamic_tensor(index, is_input, t);
        (is_input ? input_set_ : output_set_)[index] = true;
        slot = t;
        return;
    }
    if (t.get_element_type() != port.type || t.get_shape() != port.shape)
        throw std::invalid_argument(std::string(is_input ? "input '" : "output '") + port.name + "' expects " +
                                    to_string(port.type) + " " + to_string(port.shape) + " but the tensor is " +
                                    to_string(t.get_element_type()) + " " + to_string(t.get_shape()));
    if (!t.data() && t.get_byte_size()) throw std::invalid_argument("tensor for '" + port.name + "' has no data");
    slot = t;
}

void InferRequest::Impl::build_descriptors() {
    in_desc_.clear();
    out_desc_.clear();
    for (auto& t : inputs_) in_desc_.push_back(descriptor(t.get_element_type(), t.get_shape(), t.data()));
    for (auto& t : outputs_) out_desc_.push_back(descriptor(t.get_element_type(), t.get_shape(), t.data()));
}

void InferRequest::Impl::infer() {
    check_idle("infer");
    feed_state();
    if (model_->is_staged()) {
        infer_staged();
        take_state();
        return;
    }
    if (model_->is_dynamic()) {
        std::shared_ptr<Impl> specialized = specialization();
        specialized->infer();
        collect_outputs(*specialized);
        take_state();
        return;
    }
    build_descriptors();
    const auto& api = model_->device().api();
    mosaic_status* status = api.infer(request_, in_desc_.data(), in_desc_.size(), out_desc_.data(), out_desc_.size());
    if (status)
        throw std::runtime_error("inference on device '" + model_->device().name() + "' failed: " + status_text(status));
    take_state();
}

void InferRequest::Impl::complete(mosaic_status* status) noexcept {
    std::exception_ptr error;
    if (status) {
        const std::string message = status_text(status);
        try {
            error = std::make_exception_ptr(
                std::runtime_error("inference on device '" + model_->device().name() + "' failed: " + message));
        } catch (...) {
            error = std::current_exception();
        }
    }
    finish(std::move(error));
}

void InferRequest::Impl::finish(std::exception_ptr error) noexcept {
    if (!error) take_state();
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

void InferRequest::Impl::start_async() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (running_) throw std::logic_error("start_async: the request is already running; wait() for it first");
        running_ = true;
        error_ = nullptr;
    }
    feed_state();
    if (model_->is_staged()) return start_staged();
    if (model_->is_dynamic()) return start_dynamic();
    build_descriptors();
    const auto& api = model_->device().api();
    if (model_->device().library().has_start_async()) {
        mosaic_status* status = api.start_async(
            request_, in_desc_.data(), in_desc_.size(), out_desc_.data(), out_desc_.size(),
            [](void* self, mosaic_status* s) { static_cast<Impl*>(self)->complete(s); }, this);
        if (status) complete(status);
        return;
    }
    // No asynchronous path in the plugin: the SDK's request worker runs its synchronous infer().
    if (!fallback_) fallback_ = make_sync_only_worker(api, request_);
    try {
        fallback_->start(in_desc_.data(), in_desc_.size(), out_desc_.data(), out_desc_.size(),
                         [](void* self, mosaic_status* s) { static_cast<Impl*>(self)->complete(s); }, this);
    } catch (const std::exception& e) {
        complete(sdk::make_status(MOSAIC_ERROR_GENERAL, e.what()));
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
    if (model_->is_dynamic()) return current_ ? current_->profiling() : std::vector<ProfilingInfo>{};
    if (model_->is_staged()) {
        std::vector<ProfilingInfo> out = prefix_request_->profiling();
        // The op the host ran between the stages; for control flow, the body it took and its ops.
        const StagedModel& staged = model_->staged();
        ProfilingInfo host{staged.name, staged.type, "host", ProfilingInfo::Status::executed, host_time_, host_time_};
        if (!staged.bodies.empty()) host.exec_type = host_exec_type();
        out.push_back(host);
        if (taken_) {
            std::vector<ProfilingInfo> body = body_requests_[*taken_]->profiling();
            out.insert(out.end(), body.begin(), body.end());
        }
        std::vector<ProfilingInfo> rest = suffix_request_->profiling();
        out.insert(out.end(), rest.begin(), rest.end());
        return out;
    }
    std::vector<ProfilingInfo> out;
    mosaic_profiling_sink sink{&out, [](void* ctx, const mosaic_profiling_record* r) {
                                   ProfilingInfo p;
                                   p.node_name = r->node_name ? r->node_name : "";
                                   p.node_type = r->node_type ? r->node_type : "";
                                   p.exec_type = r->exec_type ? r->exec_type : "";
                                   p.status = r->status == MOSAIC_PROFILING_NOT_RUN ? ProfilingInfo::Status::not_run
                                              : r->status == MOSAIC_PROFILING_OPTIMIZED_OUT
                                                  ? ProfilingInfo::Status::optimized_out
                                                  : ProfilingInfo::Status::executed;
                                   p.real_time = std::chrono::microseconds(r->real_time_us);
                                   p.cpu_time = std::chrono::microseconds(r->cpu_time_us);
                                   static_cast<std::vector<ProfilingInfo>*>(ctx)->push_back(std::move(p));
                               }};
    model_->device().check(model_->device().api().profiling(request_, sink), "reading profiling records");
    return out;
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
