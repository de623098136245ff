// The runner of a model cut at an op the host runs (cut_model.hpp): the prefix's runner, the op's,
// then the suffix's (a dynamic model's, specialized per shape the op gives). Asynchronously the
// parts chain through their completions, so no thread waits; the op runs on the thread that
// completed the prefix.
#include "runtime/runners.hpp"

#include "runtime/compiled_model_impl.hpp"

#include <chrono>

namespace mosaic {

namespace {

class CutRunner final : public Runner {
public:
    CutRunner(std::shared_ptr<CompiledModel::Impl> model, std::unique_ptr<Runner> op, std::vector<VariableValue>& state)
        : model_(std::move(model)), op_(std::move(op)),
          prefix_(CompiledModel::Impl::make_runner(model_->cut().prefix, state)),
          suffix_(CompiledModel::Impl::make_runner(model_->cut().suffix, state)) {
        prefix_tensors_.outputs.resize(model_->cut().prefix->graph_outputs().size());
        op_tensors_.outputs.resize(model_->cut().suffix->graph_inputs().size() - model_->graph_inputs().size());
    }

    void run(RunTensors& tensors) override {
        feed_prefix(tensors);
        prefix_->run(prefix_tensors_);
        run_op(tensors);
        suffix_->run(suffix_tensors_);
        take_suffix(tensors);
    }

    void start(RunTensors& tensors, Done done) noexcept override {
        done_ = std::move(done);
        outer_ = &tensors;
        try {
            feed_prefix(tensors);
        } catch (...) {
            return end(std::current_exception());
        }
        prefix_->start(prefix_tensors_, [this](std::exception_ptr error) {
            if (error) return end(std::move(error));
            try {
                run_op(*outer_);
            } catch (...) {
                return end(std::current_exception());
            }
            suffix_->start(suffix_tensors_, [this](std::exception_ptr error) {
                if (!error) take_suffix(*outer_);
                end(std::move(error));
            });
        });
    }

    std::vector<ProfilingInfo> profiling() const override {
        std::vector<ProfilingInfo> out = prefix_->profiling();
        for (const auto* part : {op_.get(), suffix_.get()}) {
            std::vector<ProfilingInfo> more = part->profiling();
            out.insert(out.end(), more.begin(), more.end());
        }
        return out;
    }

private:
    void feed_prefix(const RunTensors& tensors) {
        prefix_tensors_.inputs = tensors.inputs;
        for (Tensor& t : prefix_tensors_.outputs) t = Tensor();
    }

    // The prefix's outputs through the op into the suffix's inputs: the model's, then the op's outputs.
    void run_op(const RunTensors& tensors) {
        op_tensors_.inputs = prefix_tensors_.outputs;
        for (Tensor& t : op_tensors_.outputs) t = Tensor();
        op_->run(op_tensors_);
        suffix_tensors_.inputs = tensors.inputs;
        suffix_tensors_.inputs.insert(suffix_tensors_.inputs.end(), op_tensors_.outputs.begin(), op_tensors_.outputs.end());
        suffix_tensors_.outputs = tensors.outputs;
    }

    void take_suffix(RunTensors& tensors) noexcept {
        for (size_t i = 0; i < tensors.outputs.size(); ++i) tensors.outputs[i] = suffix_tensors_.outputs[i];
    }

    void end(std::exception_ptr error) noexcept { Runner::end(done_, std::move(error)); }

    std::shared_ptr<CompiledModel::Impl> model_;
    std::unique_ptr<Runner> op_, prefix_, suffix_;
    RunTensors prefix_tensors_, op_tensors_, suffix_tensors_;
    RunTensors* outer_ = nullptr;  // the caller's, while an inference runs
    Done done_;
};

// A data-dependent op (NonZero, TopK with a computed k...) on its reference kernel.
class DataDependentOpRunner final : public HostRunner {
public:
    explicit DataDependentOpRunner(std::shared_ptr<CompiledModel::Impl> model) : model_(std::move(model)) {}

    void run(RunTensors& tensors) override {
        const auto start = std::chrono::steady_clock::now();
        tensors.outputs = run_data_dependent_op(model_->cut().model, tensors.inputs);
        time_ = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    }

    std::vector<ProfilingInfo> profiling() const override {
        const CutModel& op = model_->cut().model;
        return {{op.name, op.type, "host", ProfilingInfo::Status::executed, time_, time_}};
    }

private:
    std::shared_ptr<CompiledModel::Impl> model_;
    std::chrono::microseconds time_{0};
};

}  // namespace

std::unique_ptr<Runner> make_cut_runner(std::shared_ptr<CompiledModel::Impl> model, std::unique_ptr<Runner> op,
                                        std::vector<VariableValue>& state) {
    return std::make_unique<CutRunner>(std::move(model), std::move(op), state);
}

std::unique_ptr<Runner> make_data_dependent_op_runner(std::shared_ptr<CompiledModel::Impl> model,
                                                      std::vector<VariableValue>&) {
    return std::make_unique<DataDependentOpRunner>(std::move(model));
}

}  // namespace mosaic
