// The runner of a model compiled with dynamic input shapes: each inference runs on the runner of
// the specialization compiled for the shapes it brings (shape_specializer.hpp). The input tensors
// are handed on, not copied; an output the caller gives is written in place, the others are the
// specialization's, so after an inference they have its shapes.
#include "runtime/runners.hpp"

#include "runtime/compiled_model_impl.hpp"

#include <mosaic/sdk/status.hpp>

#include <list>
#include <stdexcept>

namespace mosaic {

namespace {

class DynamicRunner final : public Runner {
public:
    DynamicRunner(std::shared_ptr<CompiledModel::Impl> model, std::vector<VariableValue>& state)
        : model_(std::move(model)), state_(state) {}

    void run(RunTensors& tensors) override { choose(tensors).run(tensors); }

    void start(RunTensors& tensors, Done done) noexcept override {
        Runner* chosen = nullptr;
        try {
            chosen = &choose(tensors);
        } catch (...) {
            done(std::current_exception());
            return;
        }
        chosen->start(tensors, std::move(done));
    }

    std::vector<ProfilingInfo> profiling() const override {
        return current_ ? current_->profiling() : std::vector<ProfilingInfo>{};
    }

private:
    // The runner of the specialization for these tensors' shapes, made on first use; the outputs
    // given are checked against the shapes it computes.
    Runner& choose(const RunTensors& tensors) {
        InputShapes shapes;
        for (size_t i = 0; i < tensors.inputs.size(); ++i) {
            if (!tensors.inputs[i]) {
                const PortDesc& port = model_->graph_inputs()[i];
                throw std::logic_error("input '" + port.name + "' has the dynamic shape " + port.bounds.to_string() +
                                       "; set a tensor for it (set_tensor / set_input_tensor) before inferring");
            }
            shapes.push_back(tensors.inputs[i].get_shape());
        }
        auto it = specialized_.begin();
        while (it != specialized_.end() && it->shapes != shapes) ++it;
        if (it != specialized_.end()) {
            specialized_.splice(specialized_.begin(), specialized_, it);
        } else {
            auto [compiled, runner] = make(shapes);
            specialized_.push_front({shapes, std::move(compiled), std::move(runner)});
            while (specialized_.size() > model_->shape_cache_size()) specialized_.pop_back();
        }
        const Specialized& chosen = specialized_.front();
        for (size_t i = 0; i < tensors.outputs.size(); ++i) {
            const Tensor& given = tensors.outputs[i];
            const PortDesc& port = chosen.model->graph_outputs()[i];
            if (given && given.get_shape() != port.shape)
                throw std::invalid_argument("output '" + port.name + "' was given a tensor of shape " +
                                            to_string(given.get_shape()) + " but at these input shapes it is " +
                                            to_string(port.shape) + "; give a tensor of that shape or none");
        }
        current_ = chosen.runner.get();
        return *current_;
    }

    // A runner holds its devices' requests, their buffers included. Where a device has no room for
    // a new shape's model or request (its DEVICE_MEMORY_LIMIT, a model planned to fit it), the
    // runners of this request's other shapes, idle while this one runs, give theirs back and it is
    // asked again: an LLM's prompt and its cache capacities then take turns in one plan's room.
    std::pair<std::shared_ptr<CompiledModel::Impl>, std::unique_ptr<Runner>> make(const InputShapes& shapes) {
        try {
            std::shared_ptr<CompiledModel::Impl> compiled = model_->specialize(shapes);
            return {compiled, CompiledModel::Impl::make_runner(compiled, state_)};
        } catch (const sdk::Error& e) {
            if (e.code() != MOSAIC_ERROR_OUT_OF_MEMORY || specialized_.empty()) throw;
        }
        specialized_.clear();
        current_ = nullptr;
        std::shared_ptr<CompiledModel::Impl> compiled = model_->specialize(shapes);
        return {compiled, CompiledModel::Impl::make_runner(compiled, state_)};
    }

    struct Specialized {
        InputShapes shapes;
        std::shared_ptr<CompiledModel::Impl> model;
        std::unique_ptr<Runner> runner;
    };
    std::shared_ptr<CompiledModel::Impl> model_;
    std::vector<VariableValue>& state_;  // the request's, for the runners it makes
    std::list<Specialized> specialized_;  // most recently used first, bounded like the model's cache
    Runner* current_ = nullptr;           // the one the last inference ran on (profiling reads it)
};

}  // namespace

std::unique_ptr<Runner> make_dynamic_runner(std::shared_ptr<CompiledModel::Impl> model,
                                            std::vector<VariableValue>& state) {
    return std::make_unique<DynamicRunner>(std::move(model), state);
}

}  // namespace mosaic
