// The ACME device: a vendor plugin written with Mosaic's C++ plugin layer. It runs f32 Relu and Add
// (with numpy broadcasting) through the reference kernels Mosaic ships for vendors to reuse.
#include <mosaic/reference/kernels.hpp>
#include <mosaic/sdk/plugin.hpp>

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace acme {

namespace sdk = mosaic::sdk;

bool is_supported(const std::string& type) {
    return type == "Parameter" || type == "Constant" || type == "Result" || type == "Relu" || type == "Add";
}

// The graph, flattened into steps over numbered values when compiled.
struct Plan {
    struct Value {
        mosaic::ElementType type;
        mosaic::Shape shape;
        const void* constant = nullptr;  // the host's weights: valid as long as the compiled model
    };
    struct Step {
        std::string type, version;
        mosaic::Attributes attrs;
        std::vector<size_t> inputs;
        size_t output;
    };
    std::vector<Value> values;
    std::vector<Step> steps;
    std::vector<size_t> parameters, results;
};

class AcmeRequest : public sdk::InferRequest {
public:
    explicit AcmeRequest(const Plan& plan) : plan_(plan), scratch_(plan.steps.size()) {}

    void infer(const std::vector<mosaic::ConstTensorView>& inputs, const std::vector<mosaic::TensorView>& outputs) override {
        std::vector<const void*> data(plan_.values.size());
        for (size_t v = 0; v < plan_.values.size(); ++v) data[v] = plan_.values[v].constant;
        for (size_t i = 0; i < inputs.size(); ++i) data[plan_.parameters[i]] = inputs[i].data;
        for (size_t s = 0; s < plan_.steps.size(); ++s) {
            const Plan::Step& step = plan_.steps[s];
            const Plan::Value& out = plan_.values[step.output];
            scratch_[s].resize(static_cast<size_t>(mosaic::shape_size(out.shape)));
            mosaic::reference::KernelArgs args{step.type, step.version, step.attrs, {}, {}};
            for (size_t in : step.inputs) args.inputs.push_back({plan_.values[in].type, plan_.values[in].shape, data[in]});
            args.outputs.push_back({out.type, out.shape, scratch_[s].data()});
            mosaic::reference::run_reference_kernel(args);
            data[step.output] = scratch_[s].data();
        }
        for (size_t o = 0; o < outputs.size(); ++o)
            std::memcpy(outputs[o].data, data[plan_.results[o]], outputs[o].byte_size());
    }

private:
    const Plan& plan_;
    std::vector<std::vector<float>> scratch_;
};

class AcmeCompiledModel : public sdk::CompiledModel {
public:
    explicit AcmeCompiledModel(Plan plan) : plan_(std::move(plan)) {}
    std::unique_ptr<sdk::InferRequest> create_request() override { return std::make_unique<AcmeRequest>(plan_); }
    nlohmann::json property(const std::string& key) const override {
        if (key == "OPTIMAL_NUMBER_OF_INFER_REQUESTS") return 1;
        return sdk::CompiledModel::property(key);
    }

private:
    Plan plan_;
};

class AcmeDevice : public sdk::Device {
public:
    explicit AcmeDevice(const std::string& name)
        : Device(name, {sdk::standard_properties::full_device_name("ACME Relu/Add accelerator (out-of-tree test)"),
                        sdk::standard_properties::perf_count()}) {}

    std::vector<Support> query(const sdk::GraphView& g, const nlohmann::json&) override {
        std::vector<Support> out(g.node_count());
        for (size_t n = 0; n < out.size(); ++n) {
            out[n].reason = why_not(g, n);
            out[n].supported = out[n].reason.empty();
        }
        return out;
    }

    std::unique_ptr<sdk::CompiledModel> compile(const sdk::GraphView& g, const nlohmann::json&) override {
        Plan plan;
        std::map<std::pair<size_t, size_t>, size_t> value_of;
        for (size_t n = 0; n < g.node_count(); ++n) {
            if (std::string why = why_not(g, n); !why.empty())
                throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "ACME cannot run '" + g.node_name(n) + "': " + why);
            std::vector<size_t> inputs;
            for (size_t i = 0; i < g.input_count(n); ++i) {
                sdk::PortRef r = g.input(n, i);
                inputs.push_back(value_of.at({r.node, r.port}));
            }
            if (g.is_result(n)) {
                plan.results.push_back(inputs.at(0));
                continue;
            }
            Plan::Value v{g.output_type(n, 0), g.output_shape(n, 0)};
            if (g.is_constant(n)) {
                size_t bytes = 0;
                v.constant = g.constant_data(n, &bytes);
            }
            value_of[{n, 0}] = plan.values.size();
            plan.values.push_back(v);
            if (g.is_parameter(n))
                plan.parameters.push_back(plan.values.size() - 1);
            else if (!g.is_constant(n))
                plan.steps.push_back({g.type(n), g.version(n), g.attributes(n), inputs, plan.values.size() - 1});
        }
        return std::make_unique<AcmeCompiledModel>(std::move(plan));
    }

private:
    static std::string why_not(const sdk::GraphView& g, size_t n) {
        if (!is_supported(g.type(n))) return "ACME runs Relu and Add only, not " + g.type(n);
        if (!g.is_result(n) && g.output_type(n, 0) != mosaic::ElementType::f32) return "ACME runs f32 only";
        return "";
    }
};

}  // namespace acme

MOSAIC_DEFINE_PLUGIN(acme::AcmeDevice, "acme", "1.0.0")
