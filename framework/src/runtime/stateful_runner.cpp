// A stateful model's runner (state.hpp): before each inference every variable's value and reset
// flag go in as the graph's extra inputs; the value written comes back as the next state. The
// written value's buffer is the one the state before last had, given as the output to write in
// place, and the tensors are swapped afterwards: the state is never copied.
//
// A variable of dynamic shape has no buffer of a known shape to give: the inference writes it into
// one of its own, copied into the state, since the same specialization may write that buffer
// again. On a reset, the initial model computes its first value from the inference's inputs.
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
            spare_.push_back(is_static(v.shape) ? Tensor(v.type, v.shape) : Tensor());
            reset_.emplace_back(ElementType::boolean, Shape{});
        }
        if (model_->initial_model()) initial_ = CompiledModel::Impl::make_runner(model_->initial_model(), no_state_);
    }

    void run(RunTensors& tensors) override {
        feed(tensors);
        inner_->run(graph_);
        take(tensors);
    }

    void start(RunTensors& tensors, Done done) noexcept override {
        done_ = std::move(done);
        outer_ = &tensors;
        try {
            feed(tensors);
        } catch (...) {
            end(done_, std::current_exception());
            return;
        }
        inner_->start(graph_, [this](std::exception_ptr error) {
            if (!error) {
                try {
                    take(*outer_);
                } catch (...) {
                    error = std::current_exception();
                }
            }
            end(done_, std::move(error));
        });
    }

    std::vector<ProfilingInfo> profiling() const override { return inner_->profiling(); }

private:
    // The model's tensors, then each variable's value, reset flag and the buffer its new value goes
    // to. Throws what the initial model fails with.
    void feed(const RunTensors& tensors) {
        std::copy(tensors.inputs.begin(), tensors.inputs.end(), graph_.inputs.begin());
        std::copy(tensors.outputs.begin(), tensors.outputs.end(), graph_.outputs.begin());
        const auto& variables = model_->variables();
        initialize(tensors);
        for (size_t k = 0; k < variables.size(); ++k) {
            graph_.inputs[variables[k].state_input] = state_[k].value;
            graph_.outputs[variables[k].state_output] = spare_[k];
            if (variables[k].reset_input == Variable::kNone) continue;
            *reset_[k].data<uint8_t>() = state_[k].reset ? 1 : 0;
            graph_.inputs[variables[k].reset_input] = reset_[k];
        }
    }

    // The first values of the variables of dynamic shape being reset, from the initial model run on
    // this inference's inputs (the model's own, in its order).
    void initialize(const RunTensors& tensors) {
        const auto& variables = model_->variables();
        bool needed = false;
        for (size_t k = 0; k < variables.size(); ++k)
            needed = needed || (state_[k].reset && variables[k].initial_output != Variable::kNone);
        if (!needed) return;
        RunTensors initial{tensors.inputs, std::vector<Tensor>(model_->initial_model()->outputs().size())};
        initial_->run(initial);
        for (size_t k = 0; k < variables.size(); ++k)
            if (state_[k].reset && variables[k].initial_output != Variable::kNone)
                state_[k].value = initial.outputs.at(variables[k].initial_output).clone();
    }

    // Throws only when a copy of a variable of dynamic shape cannot be allocated.
    void take(RunTensors& tensors) {
        std::copy_n(graph_.outputs.begin(), tensors.outputs.size(), tensors.outputs.begin());
        const auto& variables = model_->variables();
        for (size_t k = 0; k < variables.size(); ++k) {
            const Tensor& written = graph_.outputs[variables[k].state_output];
            if (variables[k].reset_input == Variable::kNone) {
                state_[k].value = written.clone();
            } else {
                // The inference wrote into the spare buffer: it becomes the state, the old state the spare.
                spare_[k] = std::move(state_[k].value);
                state_[k].value = written;
            }
            state_[k].reset = false;
        }
    }

    std::shared_ptr<CompiledModel::Impl> model_;
    std::vector<VariableValue>& state_;
    std::unique_ptr<Runner> inner_;
    std::vector<VariableValue> no_state_;  // the initial model's: it has no variables
    std::unique_ptr<Runner> initial_;      // variables of dynamic shape
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
