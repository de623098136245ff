// One inference's state: its input and output tensors and a request on the device.
// An InferRequest is used by one thread at a time; different requests of one CompiledModel may
// run concurrently from different threads.
#pragma once

#include <mosaic/export.hpp>

#include <mosaic/tensor.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mosaic {

struct PortDesc;

struct ProfilingInfo {
    enum class Status { executed, not_run, optimized_out };
    std::string node_name;
    std::string node_type;
    std::string exec_type;
    Status status = Status::executed;
    std::chrono::microseconds real_time{0};
    std::chrono::microseconds cpu_time{0};
};

class VariableState;

class MOSAIC_API InferRequest {
public:
    InferRequest() = default;

    // By input/output name (tensor name or friendly name). set_tensor checks the element type and
    // shape against the compiled model and throws std::invalid_argument naming both when they differ.
    void set_tensor(const std::string& name, const Tensor& tensor);
    Tensor get_tensor(const std::string& name) const;
    // By a port of the compiled model (compiled.input(), compiled.output(1)).
    void set_tensor(const PortDesc& port, const Tensor& tensor);
    Tensor get_tensor(const PortDesc& port) const;
    void set_input_tensor(size_t index, const Tensor& tensor);
    void set_input_tensor(const Tensor& tensor) { set_input_tensor(0, tensor); }
    Tensor get_input_tensor(size_t index = 0) const;
    Tensor get_output_tensor(size_t index = 0) const;

    void infer();
    // Starts inference and returns; wait() or the callback learns the outcome.
    void start_async();
    // Waits for the running inference and its callback; rethrows its error. Returns at once when
    // none runs. Not to be called from the callback itself.
    void wait();
    // Returns false when `timeout` elapsed first.
    bool wait_for(std::chrono::milliseconds timeout);
    // Called on completion of each start_async() with nullptr or the error; runs on a device thread.
    void set_callback(std::function<void(std::exception_ptr)> callback);

    std::vector<ProfilingInfo> get_profiling_info() const;

    // The variables of a stateful model (ReadValue / Assign), each kept per request; empty for a
    // model without state. reset_state() resets them all, as OpenVINO's.
    std::vector<VariableState> query_state();
    void reset_state();

    explicit operator bool() const { return impl_ != nullptr; }

    class MOSAIC_INTERNAL Impl;
    explicit InferRequest(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

private:
    std::shared_ptr<Impl> impl_;
};

// One variable of a stateful model (ReadValue / Assign) in one infer request, as OpenVINO's
// ov::VariableState: its value carries from one inference to the next. Not to be used while the
// request runs.
class MOSAIC_API VariableState {
public:
    // The variable_id.
    const std::string& get_name() const;
    // The value the next inference reads. After a reset it is the initial value (zeros, or the
    // ReadValue's constant initializer); one computed from the inputs is known after an inference.
    Tensor get_state() const;
    // Copies `state` in; throws std::invalid_argument when its type or shape differ.
    void set_state(const Tensor& state);
    // The next inference reads the initial value.
    void reset();

private:
    friend class InferRequest;
    VariableState(std::shared_ptr<InferRequest::Impl> request, size_t index) : request_(std::move(request)), index_(index) {}
    std::shared_ptr<InferRequest::Impl> request_;
    size_t index_ = 0;
};


}  // namespace mosaic
