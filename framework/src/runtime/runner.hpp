// How an infer request runs its compiled model: through a stack of runners, one class per form the
// model takes, which the compiled model's builder (CompiledModel::Impl::create) chose when it
// compiled it. From the bottom:
//   device runner        the plugin's request (device_runner.cpp);
//   dynamic runner       picks the specialization compiled for the input shapes (dynamic_runner.cpp);
//   cut runner           prefix, an op the host runs, suffix (cut_model.hpp, cut_runner.cpp), the op
//                        itself a runner: a data-dependent op, an If or a Loop (control_flow_runner.cpp);
//   stateful runner      variables in and out around the graph (state.hpp, stateful_runner.cpp).
// The request (infer_request.cpp) checks what applications give it, keeps their tensors and
// handles waiting and callbacks; it never asks which form it runs.
#pragma once

#include <mosaic/infer_request.hpp>
#include <mosaic/tensor.hpp>

#include <exception>
#include <functional>
#include <memory>
#include <vector>

namespace mosaic {

// The tensors of one inference, in the order of the compiled graph's inputs and outputs. An input
// is empty only when the application set none for a port of dynamic shape. An output that holds a
// tensor is written in place (the application's, or a buffer the caller keeps); an empty one is
// replaced by a tensor of the runner's own, valid until its next inference.
struct RunTensors {
    std::vector<Tensor> inputs, outputs;
};

class Runner {
public:
    // Called exactly once when a started inference ends: nullptr, or what it failed with.
    using Done = std::function<void(std::exception_ptr)>;

    virtual ~Runner() = default;
    // Throws what the inference failed with.
    virtual void run(RunTensors& tensors) = 0;
    // Starts an inference and returns; `done` ends it, on this thread or another, also when it
    // cannot start (start never throws). The caller leaves `tensors` alone until then. The
    // runner may be started again from within `done`; it is not touched after `done` returns.
    virtual void start(RunTensors& tensors, Done done) noexcept = 0;
    // The records of the last inference.
    virtual std::vector<ProfilingInfo> profiling() const = 0;

protected:
    // Ends a started inference through the `done` it was given (kept in `pending`): taken out
    // first, since `done` may start the runner again and store the next one there.
    static void end(Done& pending, std::exception_ptr error) noexcept {
        Done done = std::move(pending);
        pending = nullptr;
        done(std::move(error));
    }
};

// A runner whose work is the host's own (an op between the parts of a cut model): start runs it
// on the calling thread, which is the thread that completed the part before.
class HostRunner : public Runner {
public:
    void start(RunTensors& tensors, Done done) noexcept override {
        std::exception_ptr error;
        try {
            run(tensors);
        } catch (...) {
            error = std::current_exception();
        }
        done(std::move(error));
    }
};

// A variable's value between the inferences of one request (state.hpp), or a pending reset.
struct VariableValue {
    Tensor value;
    bool reset = true;
};

}  // namespace mosaic
