// InferRequest's internals: the application's tensors, checked against the model's ports; the
// variables' values; waiting and callbacks. How the model runs is the runner stack's business
// (runtime/runner.hpp), the same calls whatever form the compiled model takes.
#pragma once

#include "runtime/compiled_model_impl.hpp"
#include "runtime/runner.hpp"

#include <mosaic/infer_request.hpp>

#include <condition_variable>
#include <memory>
#include <mutex>

namespace mosaic {

class InferRequest::Impl : public std::enable_shared_from_this<InferRequest::Impl> {
public:
    explicit Impl(std::shared_ptr<CompiledModel::Impl> model);
    ~Impl();

    void set_tensor(size_t index, bool is_input, const Tensor& tensor);
    // The port's tensor: the one set or computed last; for a port of dynamic shape before either,
    // an empty one with its dynamic dimensions 0, as OpenVINO's.
    Tensor tensor(size_t index, bool is_input) const;
    // (index, is_input) of a name; throws listing the names when unknown.
    std::pair<size_t, bool> find(const std::string& name) const;

    void infer();
    void start_async();
    bool wait_for(std::chrono::milliseconds timeout, bool forever);
    void set_callback(std::function<void(std::exception_ptr)> callback);
    std::vector<ProfilingInfo> profiling() const;

    // VariableState's side.
    size_t variable_count() const { return state_.size(); }
    const Variable& variable(size_t index) const;
    Tensor get_state(size_t index) const;
    void set_state(size_t index, const Tensor& value);
    void reset_state(size_t index);
    void reset_state();

private:
    // The model's port; throws naming the count when `index` is out of range.
    const PortDesc& port(size_t index, bool is_input) const;
    void check_idle(const char* what) const;
    // The outputs the application gave, in place; the others filled by the runner.
    void prepare_outputs();
    // Ends an asynchronous inference: runs the callback, then releases waiters.
    void finish(std::exception_ptr error) noexcept;

    std::shared_ptr<CompiledModel::Impl> model_;
    std::vector<VariableValue> state_;
    RunTensors tensors_;              // the model's ports
    std::vector<bool> output_given_;  // an application's tensor, or a static port's own buffer
    std::unique_ptr<Runner> runner_;  // after state_, which it refers to

    mutable std::mutex mutex_;
    std::condition_variable done_cv_;
    bool running_ = false;
    int callbacks_running_ = 0;  // completion callbacks in progress (wait() waits for them too)
    std::exception_ptr error_;
    std::function<void(std::exception_ptr)> callback_;
};

}  // namespace mosaic
