// The host's side of run-time control flow (control_flow.hpp), the op of a cut model: the If's
// condition or the Loop's trip count and condition read from the prefix's outputs, the bodies run
// on runners of their own compiled models (made on first use, kept for the next inference).
#include "runtime/runners.hpp"

#include "runtime/compiled_model_impl.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>

namespace mosaic {

namespace {

// The one value of a condition or trip count (shape inference checked the type and count when
// the shape was static; the tensor is checked here all the same).
template <typename T>
T one_value(const CutModel& op, const Tensor& t, ElementType type, const char* what) {
    if (t.get_element_type() != type || t.get_size() != 1)
        throw ModelError(op.type + " '" + op.name + "': the " + what + " must be one " + to_string(type) +
                         ", got " + to_string(t.get_element_type()) + " " + to_string(t.get_shape()));
    T v{};
    Tensor host(type, t.get_shape());  // the value may be in a device's memory
    t.copy_to(host);
    std::memcpy(&v, host.data(), sizeof(T));
    return v;
}

bool one_bool(const CutModel& op, const Tensor& t, const char* what) {
    return one_value<uint8_t>(op, t, ElementType::boolean, what) != 0;
}

// What the If and the Loop share: the op, its bodies' runners, the host's record.
class ControlFlowRunner : public HostRunner {
public:
    ControlFlowRunner(std::shared_ptr<CompiledModel::Impl> model, std::vector<VariableValue>& state)
        : model_(std::move(model)), state_(state), bodies_(model_->cut().bodies.size()) {}

    void run(RunTensors& tensors) override {
        const auto start = std::chrono::steady_clock::now();
        taken_.reset();
        iterations_ = 0;
        tensors.outputs = run_op(tensors.inputs);
        time_ = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    }

    // The op's record (its exec_type says what ran), then those of the body that ran.
    std::vector<ProfilingInfo> profiling() const override {
        const CutModel& op = model_->cut().model;
        std::vector<ProfilingInfo> out{{op.name, op.type, exec_type(), ProfilingInfo::Status::executed, time_, time_}};
        if (taken_) {
            std::vector<ProfilingInfo> body = bodies_[*taken_]->profiling();
            out.insert(out.end(), body.begin(), body.end());
        }
        return out;
    }

protected:
    virtual std::vector<Tensor> run_op(const std::vector<Tensor>& inputs) = 0;
    virtual std::string exec_type() const = 0;

    const CutModel& op() const { return model_->cut().model; }
    // Body `index`'s runner, made on first use.
    Runner& body(size_t index) {
        std::unique_ptr<Runner>& runner = bodies_.at(index);
        if (!runner) runner = CompiledModel::Impl::make_runner(model_->cut().bodies.at(index), state_);
        return *runner;
    }

    std::shared_ptr<CompiledModel::Impl> model_;
    std::vector<VariableValue>& state_;  // the request's, for the runners it makes
    std::vector<std::unique_ptr<Runner>> bodies_;
    std::optional<size_t> taken_;  // the body the last inference ran
    uint64_t iterations_ = 0;      // a Loop's, in the last inference
    std::chrono::microseconds time_{0};
};

class IfRunner final : public ControlFlowRunner {
public:
    using ControlFlowRunner::ControlFlowRunner;

private:
    std::vector<Tensor> run_op(const std::vector<Tensor>& op_inputs) override {
        const CompiledModel::Impl::Cut& cut = model_->cut();
        const size_t taken = one_bool(op(), op_inputs.at(0), "condition") ? 0 : 1;
        if (!cut.bodies[taken])
            throw ModelError(op().type + " '" + op().name + "': the condition takes its " + body_label(op().type, taken) +
                             ", which does not hold at this model's shapes: " + cut.body_errors[taken]);
        tensors_.inputs.assign(op_inputs.begin() + 1, op_inputs.end());
        tensors_.outputs.assign(cut.bodies[taken]->graph_outputs().size(), Tensor());
        body(taken).run(tensors_);
        taken_ = taken;
        return tensors_.outputs;
    }

    std::string exec_type() const override {
        return taken_ ? "host: " + body_label(op().type, *taken_) : "host: no branch ran";
    }

    RunTensors tensors_;
};

class LoopRunner final : public ControlFlowRunner {
public:
    using ControlFlowRunner::ControlFlowRunner;

private:
    std::vector<Tensor> run_op(const std::vector<Tensor>& op_inputs) override;
    std::string exec_type() const override { return "host: " + std::to_string(iterations_) + " iterations of the body"; }
};

std::vector<Tensor> LoopRunner::run_op(const std::vector<Tensor>& op_inputs) {
    const CutModel& op = this->op();
    int64_t trip_count = one_value<int64_t>(op, op_inputs.at(0), ElementType::i64, "trip count M");
    // OpenVINO's Loop runs without bound on a negative trip count; ONNX's runs no iteration.
    if (trip_count < 0 && op.attrs.get_string("negative_trip_count_unbounded", "false") == "true")
        trip_count = std::numeric_limits<int64_t>::max();
    bool keep_going = one_bool(op, op_inputs.at(1), "condition");
    const size_t carried = static_cast<size_t>(op.attrs.get_int("carried"));
    const bool ignore_body_condition = op.attrs.get_string("ignore_body_condition", "false") == "true";
    const CompiledModel::Impl& compiled = *model_->cut().bodies.at(0);
    Runner& runner = body(0);
    const size_t scans = compiled.graph_outputs().size() - 1 - carried;

    // The body's inputs: iteration number, condition, carried values (updated each iteration),
    // then the captured values (the same every iteration). Its outputs are its runner's buffers,
    // written again next iteration.
    RunTensors tensors;
    tensors.inputs.assign(op_inputs.size(), Tensor());
    tensors.outputs.assign(compiled.graph_outputs().size(), Tensor());
    Tensor iteration(ElementType::i64, {}), condition(ElementType::boolean, {});
    std::vector<Tensor> state(op_inputs.begin() + 2, op_inputs.begin() + 2 + static_cast<std::ptrdiff_t>(carried));
    for (size_t i = 2 + carried; i < op_inputs.size(); ++i) tensors.inputs[i] = op_inputs[i];
    std::vector<std::vector<uint8_t>> scanned(scans);
    std::vector<Shape> scan_shapes(scans);  // each iteration's, which must agree
    const uint64_t limit = model_->cut().max_loop_iterations;
    int64_t i = 0;
    for (; keep_going && i < trip_count; ++i) {
        if (static_cast<uint64_t>(i) >= limit)
            throw ModelError(op.type + " '" + op.name + "': still running after " + std::to_string(limit) +
                             " iterations (the compile property " + kMaxLoopIterationsKey +
                             "); if the loop is meant to run longer, raise it");
        *iteration.data<int64_t>() = i;
        *condition.data<uint8_t>() = 1;
        tensors.inputs[0] = iteration;
        tensors.inputs[1] = condition;
        for (size_t k = 0; k < carried; ++k) tensors.inputs[2 + k] = state[k];
        for (Tensor& t : tensors.outputs) t = Tensor();
        runner.run(tensors);
        if (!ignore_body_condition) keep_going = one_bool(op, tensors.outputs[0], "condition the body returns");
        for (size_t k = 0; k < carried; ++k) state[k] = tensors.outputs[1 + k].clone();
        for (size_t s = 0; s < scans; ++s) {
            const Tensor& t = tensors.outputs[1 + carried + s];
            if (i == 0) scan_shapes[s] = t.get_shape();
            else if (t.get_shape() != scan_shapes[s])
                throw ModelError(op.type + " '" + op.name + "': scanned value " + std::to_string(s) + " is " +
                                 to_string(scan_shapes[s]) + " in the first iteration but " + to_string(t.get_shape()) +
                                 " in iteration " + std::to_string(i) + "; the values stacked must agree in shape");
            const auto* bytes = static_cast<const uint8_t*>(t.data());
            scanned[s].insert(scanned[s].end(), bytes, bytes + t.get_byte_size());
        }
    }
    iterations_ = static_cast<uint64_t>(i);
    if (i > 0) taken_ = 0;

    std::vector<Tensor> out = std::move(state);
    for (size_t s = 0; s < scans; ++s) {
        const PortDesc& port = compiled.outputs()[1 + carried + s];
        Shape shape{i};
        // No iteration ran: the body's declared shape, a dimension it does not know being empty.
        if (i == 0)
            for (int64_t d : port.shape) scan_shapes[s].push_back(std::max<int64_t>(d, 0));
        shape.insert(shape.end(), scan_shapes[s].begin(), scan_shapes[s].end());
        Tensor stacked(port.type, shape);
        if (!scanned[s].empty()) std::memcpy(stacked.data(), scanned[s].data(), scanned[s].size());
        out.push_back(std::move(stacked));
    }
    return out;
}

}  // namespace

std::unique_ptr<Runner> make_if_runner(std::shared_ptr<CompiledModel::Impl> model, std::vector<VariableValue>& state) {
    return std::make_unique<IfRunner>(std::move(model), state);
}

std::unique_ptr<Runner> make_loop_runner(std::shared_ptr<CompiledModel::Impl> model, std::vector<VariableValue>& state) {
    return std::make_unique<LoopRunner>(std::move(model), state);
}

}  // namespace mosaic
