// A stateful model's runner (state.hpp): before each inference every variable's value and reset
// flag go in as the graph's extra inputs; the value written comes back as the next state. The
// written value's buffer is the one the state before last had, given as the output to write in
// place, and the tensors are swapped afterwards: the state is never copied.
#include "runtime/runners.hpp"

#include "runtime/compiled_model_impl.hpp"

namespace mosaic {

namespace {

class StatefulRunner final : public Runner {
public:
    StatefulRunner(std::shared_ptr<CompiledModel::Impl> model, std::vector<VariableValue>& state,
                   std::unique_ptr<Runner> inner)
        : model_(std::move(model)), state_(state), inner_(std::move(inner)) {
        graph_.inputs.resize(model_->graph_inputs().size());
        graph_.outputs.resize(model_->graph_outputs().size());
        for (const Variable& v : model_->variables()) {
            spare_.emplace_back(v.type, v.shape);
            reset_.emplace_back(ElementType::boolean, Shape{});
        }
    }

    void run(RunTensors& tensors) override {
        feed(tensors);
        inner_->run(graph_);
        take(tensors);
    }

    void start(RunTensors& tensors, Done done) noexcept override {
        done_ = std::move(done);
        outer_ = &tensors;
        feed(tensors);
        inner_->start(graph_, [this](std::exception_ptr error) {
            if (!error) take(*outer_);
            end(done_, std::move(error));
        });
    }

    std::vector<ProfilingInfo> profiling() const override { return inner_->profiling(); }

private:
    // The model's tensors, then each variable's value, reset flag and the buffer its new value goes to.
    void feed(const RunTensors& tensors) noexcept {
        std::copy(tensors.inputs.begin(), tensors.inputs.end(), graph_.inputs.begin());
        std::copy(tensors.outputs.begin(), tensors.outputs.end(), graph_.outputs.begin());
        const auto& variables = model_->variables();
        for (size_t k = 0; k < variables.size(); ++k) {
            *reset_[k].data<uint8_t>() = state_[k].reset ? 1 : 0;
            graph_.inputs[variables[k].state_input] = state_[k].value;
            graph_.inputs[variables[k].reset_input] = reset_[k];
            graph_.outputs[variables[k].state_output] = spare_[k];
        }
    }

    void take(RunTensors& tensors) noexcept {
        std::copy_n(graph_.outputs.begin(), tensors.outputs.size(), tensors.outputs.begin());
        const auto& variables = model_->variables();
        for (size_t k = 0; k < variables.size(); ++k) {
            // The inference wrote into the spare buffer: it becomes the state, the old state the spare.
            spare_[k] = std::move(state_[k].value);
            state_[k].value = graph_.outputs[variables[k].state_output];
            state_[k].reset = false;
        }
    }

    std::shared_ptr<CompiledModel::Impl> model_;
    std::vector<VariableValue>& state_;
    std::unique_ptr<Runner> inner_;
    RunTensors graph_;                  // the compiled graph's tensors: the model's, then the variables'
    std::vector<Tensor> spare_, reset_;  // per variable
    RunTensors* outer_ = nullptr;       // the caller's, while an inference runs
    Done done_;
};

}  // namespace

std::unique_ptr<Runner> make_stateful_runner(std::shared_ptr<CompiledModel::Impl> model,
                                             std::vector<VariableValue>& state, std::unique_ptr<Runner> inner) {
    return std::make_unique<StatefulRunner>(std::move(model), state, std::move(inner));
}

}  // namespace mosaic
