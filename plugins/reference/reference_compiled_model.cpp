#include "reference_compiled_model.hpp"

#include <mosaic/reference/kernels.hpp>
#include <mosaic/sdk/cost_model.hpp>
#include <mosaic/sdk/value_table.hpp>

#include <chrono>
#include <cstring>
#include <ctime>
#include <thread>

namespace mosaic::reference_plugin {

namespace {

uint64_t thread_cpu_us() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000u + static_cast<uint64_t>(ts.tv_nsec) / 1000u;
}

// Every node runs: the oracle folds nothing and keeps no views, so each op's result comes from its
// own kernel call. Graph outputs are slots too; the request copies them out last.
Plan make_plan(const sdk::GraphView& g) {
    sdk::ValueTableOptions options;
    options.fold_constants = false;
    const sdk::ValueTable values(g, options);
    Plan plan;
    for (sdk::ValueId v = 0; v < values.size(); ++v) {
        Slot s;
        s.type = values[v].type;
        s.shape = values[v].shape;
        if (values[v].kind == sdk::Value::Kind::constant) {
            s.kind = Slot::Kind::constant;
            s.constant = values[v].constant;
        } else if (values[v].kind == sdk::Value::Kind::input) {
            s.kind = Slot::Kind::input;
            s.input_index = values[v].io_index;
        }
        plan.slots.push_back(std::move(s));
    }
    for (size_t n = 0; n < g.node_count(); ++n) {
        if (!values.runs(n)) continue;
        Step step{g.node_name(n), g.type(n), g.version(n), g.attributes(n), {}, {}};
        for (size_t i = 0; i < values.input_count(n); ++i) step.inputs.push_back(values.input(n, i));
        for (size_t o = 0; o < g.output_count(n); ++o) step.outputs.push_back(values.output(n, o));
        plan.steps.push_back(std::move(step));
    }
    // Results in node order, as the table numbers them.
    for (size_t n = 0; n < g.node_count(); ++n)
        if (g.type(n) == "Result") plan.result_slots.push_back(values.input(n, 0));
    return plan;
}

}  // namespace

ReferenceCompiledModel::ReferenceCompiledModel(const sdk::GraphView& graph, const nlohmann::json& config,
                                               std::string device, std::shared_ptr<ExecutionGate> gate)
    : plan_(make_plan(graph)), config_(config), device_(std::move(device)), model_name_(graph.name()) {
    plan_.profiling = config_.value("PERF_COUNT", false);
    plan_.gate = std::move(gate);
    plan_.execution_units = config_.value("EXECUTION_UNITS", int64_t{0});
    if (config_.value("SIMULATED_TIME", false)) {
        for (size_t n = 0; n < graph.node_count(); ++n) {
            const std::string type = graph.type(n);
            if (type != "Parameter" && type != "Constant" && type != "Result")
                plan_.simulated_us += sdk::default_op_cost(graph, n).compute_us * config_.value("COST_FACTOR", 1.0);
        }
        if (!(plan_.simulated_us >= 0 && plan_.simulated_us <= 1e9))  // what an import accepts: a thousand seconds
            throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                             "SIMULATED_TIME: model '" + graph.name() + "' would last " + std::to_string(plan_.simulated_us) +
                                 " us an inference, beyond a thousand seconds; lower COST_FACTOR");
    }
}

std::unique_ptr<sdk::InferRequest> ReferenceCompiledModel::create_request() {
    return std::make_unique<ReferenceInferRequest>(plan_);
}

nlohmann::json ReferenceCompiledModel::property(const std::string& key) const {
    if (key == "OPTIMAL_NUMBER_OF_INFER_REQUESTS") return 1;
    if (key == "EXECUTION_DEVICES") {
        const std::string id = config_.value("DEVICE_ID", "");
        return nlohmann::json::array({id.empty() ? device_ : device_ + "." + id});
    }
    if (key == "NETWORK_NAME") return model_name_;
    if (config_.contains(key)) return config_.at(key);
    return sdk::CompiledModel::property(key);
}

ReferenceInferRequest::ReferenceInferRequest(const Plan& plan) : plan_(plan), buffers_(plan.slots.size()) {
    for (size_t i = 0; i < plan.slots.size(); ++i)
        if (plan.slots[i].kind == Slot::Kind::intermediate) buffers_[i].resize(plan.slots[i].byte_size());
}

namespace {

// The host checks tensors against the model it compiled, but an imported plan is checked here too:
// a kernel must never run over buffers of another size than its slots.
void check_tensor(const char* what, size_t index, ElementType type, const Shape& shape, const Slot& slot) {
    if (type != slot.type || shape != slot.shape)
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, std::string(what) + " " + std::to_string(index) + " is " +
                                                            to_string(type) + " " + to_string(shape) + ", expected " +
                                                            to_string(slot.type) + " " + to_string(slot.shape));
}

}  // namespace

void ReferenceInferRequest::infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) {
    if (outputs.size() != plan_.result_slots.size())
        throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "got " + std::to_string(outputs.size()) + " outputs, the model has " +
                                                            std::to_string(plan_.result_slots.size()));
    for (const Slot& s : plan_.slots)
        if (s.kind == Slot::Kind::input) {
            if (s.input_index >= inputs.size())
                throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "got " + std::to_string(inputs.size()) + " inputs, the model needs more");
            check_tensor("input", s.input_index, inputs[s.input_index].type, inputs[s.input_index].shape, s);
        }
    for (size_t i = 0; i < outputs.size(); ++i)
        check_tensor("output", i, outputs[i].type, outputs[i].shape, plan_.slots[plan_.result_slots[i]]);
    auto data_of = [&](size_t slot) -> void* {
        const Slot& s = plan_.slots[slot];
        switch (s.kind) {
            case Slot::Kind::constant: return const_cast<void*>(s.constant);
            case Slot::Kind::input: return const_cast<void*>(inputs.at(s.input_index).data);
            case Slot::Kind::intermediate: return buffers_[slot].data();
        }
        return nullptr;
    };
    records_.clear();
    ExecutionGate::Pass pass(plan_.gate.get(), plan_.execution_units);
    // The device is busy (its queue held) for the simulated time, though the host's core is not.
    const auto simulated_end = std::chrono::steady_clock::now() +
                               std::chrono::microseconds(static_cast<int64_t>(plan_.simulated_us));
    for (const Step& step : plan_.steps) {
        reference::KernelArgs args{step.type, step.version, step.attrs, {}, {}};
        for (size_t s : step.inputs) args.inputs.push_back({plan_.slots[s].type, plan_.slots[s].shape, data_of(s)});
        for (size_t s : step.outputs) args.outputs.push_back({plan_.slots[s].type, plan_.slots[s].shape, data_of(s)});
        const auto wall0 = std::chrono::steady_clock::now();
        const uint64_t cpu0 = plan_.profiling ? thread_cpu_us() : 0;
        try {
            reference::run_reference_kernel(args);
        } catch (const std::exception& e) {
            throw sdk::Error(MOSAIC_ERROR_GENERAL, "node '" + step.name + "' (" + step.type + "-" + step.version +
                                                       "): " + e.what());
        }
        if (plan_.profiling) {
            const auto wall = std::chrono::steady_clock::now() - wall0;
            records_.push_back({step.name, step.type, "ref", MOSAIC_PROFILING_EXECUTED,
                                static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(wall).count()),
                                thread_cpu_us() - cpu0});
        }
    }
    for (size_t i = 0; i < plan_.result_slots.size(); ++i) {
        const size_t slot = plan_.result_slots[i];
        if (const size_t bytes = plan_.slots[slot].byte_size()) std::memcpy(outputs.at(i).data, data_of(slot), bytes);
    }
    if (plan_.simulated_us > 0) {
        const auto waited_from = std::chrono::steady_clock::now();
        std::this_thread::sleep_until(simulated_end);
        // The wait is the device's time too: profiles add up to the inference's.
        if (plan_.profiling) {
            const auto waited = std::chrono::steady_clock::now() - waited_from;
            records_.push_back({"(simulated time)", "SimulatedTime", "simulation", MOSAIC_PROFILING_EXECUTED,
                                static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(waited).count()), 0});
        }
    }
}

}  // namespace mosaic::reference_plugin
