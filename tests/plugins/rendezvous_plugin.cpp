// RENDEZVOUS: a device whose inferences only finish when enough of them run at the same time. It
// proves overlap without measuring time: every infer() waits on one process-wide meeting point until
// PARTIES inferences (on any RENDEZVOUS-backed device of this process) are inside infer() at once.
// If an orchestrator runs two subgraphs one after the other instead of together, the first waits
// alone and fails after TIMEOUT_MS with an error that says so, instead of hanging the test.
//
// Runs f32 Relu, Sigmoid, Add and Multiply (plus Parameter / Constant / Result) through the
// reference kernels. Properties: FULL_DEVICE_NAME (read-only), PERF_COUNT, PARTIES (default 2),
// TIMEOUT_MS (default 20000).
#include <mosaic/reference/kernels.hpp>
#include <mosaic/sdk/plugin.hpp>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace mosaic;
namespace sp = mosaic::sdk::standard_properties;

const std::set<std::string> kComputeOps = {"Relu", "Sigmoid", "Add", "Multiply"};

// The meeting point: a generation barrier whose size each arrival brings along (its PARTIES), so
// that one process-wide instance serves every device and compiled model.
class MeetingPoint {
public:
    static MeetingPoint& instance() {
        static MeetingPoint point;
        return point;
    }

    // Returns once `parties` arrivals (this one included) have met; throws after `timeout`.
    void meet(int64_t parties, std::chrono::milliseconds timeout, const std::string& who) {
        std::unique_lock<std::mutex> lock(mutex_);
        const uint64_t generation = generation_;
        if (++waiting_ >= parties) {
            waiting_ = 0;
            ++generation_;
            cv_.notify_all();
            return;
        }
        if (cv_.wait_for(lock, timeout, [&] { return generation_ != generation; })) return;
        const int64_t present = waiting_;
        --waiting_;  // leave the meeting point so later arrivals are not miscounted
        throw sdk::Error(MOSAIC_ERROR_GENERAL,
                         who + ": waited " + std::to_string(timeout.count()) + " ms for " + std::to_string(parties) +
                             " inferences to be inside RENDEZVOUS devices at once, but only " + std::to_string(present) +
                             " arrived; whoever runs these inferences did not run them concurrently");
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    int64_t waiting_ = 0;
    uint64_t generation_ = 0;
};

// The graph flattened into steps over numbered values.
struct Value {
    ElementType type = ElementType::undefined;
    Shape shape;
    const void* constant = nullptr;  // the host's bytes, valid while the compiled model lives
};

struct Step {
    std::string name, type, version;
    Attributes attrs;
    std::vector<size_t> inputs;
    size_t output = 0;
};

struct Plan {
    std::vector<Value> values;
    std::vector<Step> steps;
    std::vector<size_t> parameters, results;
    std::string device;
    int64_t parties = 2;
    std::chrono::milliseconds timeout{20000};
    bool perf_count = false;
};

std::string unsupported_reason(const sdk::GraphView& g, size_t n) {
    const std::string type = g.type(n);
    if (!g.is_parameter(n) && !g.is_constant(n) && !g.is_result(n) && !kComputeOps.count(type))
        return "op " + type + " is not run by the RENDEZVOUS test device (it runs Relu, Sigmoid, Add, Multiply)";
    for (size_t o = 0; o < g.output_count(n); ++o)
        if (g.output_type(n, o) != ElementType::f32) return "the RENDEZVOUS test device runs f32 only";
    return "";
}

class RendezvousRequest : public sdk::InferRequest {
public:
    explicit RendezvousRequest(std::shared_ptr<const Plan> plan) : plan_(*plan), keep_(std::move(plan)) {}

    void infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) override {
        if (inputs.size() != plan_.parameters.size() || outputs.size() != plan_.results.size())
            throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "RENDEZVOUS: expected " + std::to_string(plan_.parameters.size()) +
                                                               " inputs and " + std::to_string(plan_.results.size()) + " outputs");
        MeetingPoint::instance().meet(plan_.parties, plan_.timeout, "RENDEZVOUS device '" + plan_.device + "'");
        std::vector<const void*> data(plan_.values.size(), nullptr);
        for (size_t i = 0; i < plan_.values.size(); ++i) data[i] = plan_.values[i].constant;
        for (size_t i = 0; i < inputs.size(); ++i) data[plan_.parameters[i]] = inputs[i].data;
        scratch_.resize(plan_.steps.size());
        records_.clear();
        for (size_t s = 0; s < plan_.steps.size(); ++s) {
            const Step& step = plan_.steps[s];
            const Value& out = plan_.values[step.output];
            scratch_[s].resize(static_cast<size_t>(shape_size(out.shape)) * element_size(out.type));
            reference::KernelArgs args{step.type, step.version, step.attrs, {}, {}};
            for (size_t in : step.inputs) args.inputs.push_back({plan_.values[in].type, plan_.values[in].shape, data[in]});
            args.outputs.push_back({out.type, out.shape, scratch_[s].data()});
            reference::run_reference_kernel(args);
            data[step.output] = scratch_[s].data();
            if (plan_.perf_count) records_.push_back({step.name, step.type, "rendezvous_ref"});
        }
        for (size_t o = 0; o < outputs.size(); ++o) {
            const size_t bytes = outputs[o].byte_size();
            if (bytes) std::memcpy(outputs[o].data, data[plan_.results[o]], bytes);
        }
    }

    std::vector<sdk::ProfilingRecord> profiling() const override { return records_; }

private:
    const Plan& plan_;
    std::shared_ptr<const Plan> keep_;  // a request may outlive its compiled model's handle
    std::vector<std::vector<unsigned char>> scratch_;
    std::vector<sdk::ProfilingRecord> records_;
};

class RendezvousCompiled : public sdk::CompiledModel {
public:
    explicit RendezvousCompiled(Plan plan) : plan_(std::make_shared<const Plan>(std::move(plan))) {}
    std::unique_ptr<sdk::InferRequest> create_request() override { return std::make_unique<RendezvousRequest>(plan_); }
    nlohmann::json property(const std::string& key) const override {
        if (key == "OPTIMAL_NUMBER_OF_INFER_REQUESTS") return plan_->parties;
        return sdk::CompiledModel::property(key);
    }

private:
    std::shared_ptr<const Plan> plan_;
};

class RendezvousDevice : public sdk::Device {
public:
    explicit RendezvousDevice(const std::string& name)
        : Device(name, {sp::full_device_name("Test device whose inferences wait until PARTIES of them run at once"),
                        sp::perf_count(),
                        {"PARTIES", sdk::PropertyKind::integer, 2, {}, false, 1,
                         "inferences that must be inside RENDEZVOUS devices at once before any finishes"},
                        {"TIMEOUT_MS", sdk::PropertyKind::integer, 20000, {}, false, 1,
                         "how long an inference waits for the others before failing"}}) {}

    std::vector<Support> query(const sdk::GraphView& graph, const nlohmann::json&) override {
        std::vector<Support> result(graph.node_count());
        for (size_t n = 0; n < result.size(); ++n) {
            const std::string why = unsupported_reason(graph, n);
            result[n] = {why.empty(), why};
        }
        return result;
    }

    std::unique_ptr<sdk::CompiledModel> compile(const sdk::GraphView& g, const nlohmann::json& config) override {
        Plan plan;
        plan.device = name();
        plan.parties = config.at("PARTIES").get<int64_t>();
        plan.timeout = std::chrono::milliseconds(config.at("TIMEOUT_MS").get<int64_t>());
        plan.perf_count = config.at("PERF_COUNT").get<bool>();
        std::map<std::pair<size_t, size_t>, size_t> value_of;  // (node, port) -> value
        for (size_t n = 0; n < g.node_count(); ++n) {
            if (std::string why = unsupported_reason(g, n); !why.empty())
                throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "node '" + g.node_name(n) + "': " + why);
            std::vector<size_t> inputs;
            for (size_t i = 0; i < g.input_count(n); ++i) {
                const sdk::PortRef src = g.input(n, i);
                inputs.push_back(value_of.at({src.node, src.port}));
            }
            if (g.is_result(n)) {
                plan.results.push_back(inputs.at(0));
                continue;
            }
            Value v{g.output_type(n, 0), g.output_shape(n, 0), nullptr};
            if (g.is_constant(n)) {
                size_t bytes = 0;
                v.constant = g.constant_data(n, &bytes);
            }
            value_of[{n, 0}] = plan.values.size();
            plan.values.push_back(std::move(v));
            if (g.is_parameter(n)) plan.parameters.push_back(plan.values.size() - 1);
            else if (!g.is_constant(n))
                plan.steps.push_back({g.node_name(n), g.type(n), g.version(n), g.attributes(n), inputs, plan.values.size() - 1});
        }
        return std::make_unique<RendezvousCompiled>(std::move(plan));
    }
};

}  // namespace

MOSAIC_DEFINE_PLUGIN(RendezvousDevice, "mosaic_test_rendezvous", "0.1.0")
