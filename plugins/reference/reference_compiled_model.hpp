// A graph compiled for the REFERENCE device: a list of kernel calls over numbered buffers.
// Constants are used in place (the host keeps them alive for the compiled model's lifetime).
#pragma once

#include "execution_gate.hpp"

#include <mosaic/sdk/plugin.hpp>

#include <memory>

#include <string>
#include <vector>

namespace mosaic::reference_plugin {

struct Slot {
    enum class Kind { constant, input, intermediate };
    Kind kind = Kind::intermediate;
    ElementType type = ElementType::undefined;
    Shape shape;
    const void* constant = nullptr;  // Kind::constant
    size_t input_index = 0;          // Kind::input
    size_t byte_size() const { return static_cast<size_t>(shape_size(shape)) * element_size(type); }
};

struct Step {
    std::string name, type, version;
    Attributes attrs;
    std::vector<size_t> inputs, outputs;  // slot indices
};

struct Plan {
    std::vector<Slot> slots;
    std::vector<Step> steps;
    std::vector<size_t> result_slots;  // per model output
    bool profiling = false;
    std::shared_ptr<ExecutionGate> gate;  // the device's; EXECUTION_UNITS of the compile is the limit
    int64_t execution_units = 0;
    // SIMULATED_TIME: each inference lasts at least this long, waiting out what computing left
    // (the sum of its ops' cost estimates, the device's COST_FACTOR applied); 0: off.
    double simulated_us = 0;
};

class ReferenceCompiledModel : public sdk::CompiledModel {
public:
    ReferenceCompiledModel(const sdk::GraphView& graph, const nlohmann::json& config, std::string device,
                           std::shared_ptr<ExecutionGate> gate);
    // From a blob written by export_model(); constants are copied into the model.
    ReferenceCompiledModel(const void* blob, size_t size, const nlohmann::json& config, std::string device,
                           std::shared_ptr<ExecutionGate> gate);

    std::unique_ptr<sdk::InferRequest> create_request() override;
    nlohmann::json property(const std::string& key) const override;
    bool can_export() const override { return true; }
    const Plan& plan() const { return plan_; }
    std::string export_model() const override;

private:
    Plan plan_;
    std::vector<std::vector<uint8_t>> imported_constants_;  // owned only for imported models
    nlohmann::json config_;
    std::string device_, model_name_;
};

class ReferenceInferRequest : public sdk::InferRequest {
public:
    explicit ReferenceInferRequest(const Plan& plan);

    void infer(const std::vector<ConstTensorView>& inputs, const std::vector<TensorView>& outputs) override;
    std::vector<sdk::ProfilingRecord> profiling() const override { return records_; }

private:
    const Plan& plan_;
    std::vector<std::vector<uint8_t>> buffers_;  // per intermediate slot, allocated once
    std::vector<sdk::ProfilingRecord> records_;
};

}  // namespace mosaic::reference_plugin
