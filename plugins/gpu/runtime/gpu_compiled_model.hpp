// A graph compiled for one OpenCL device: its values (constants in device memory), the executors in
// topological order and the memory plan. Immutable after construction and shared by every infer
// request; requests run concurrently, each on its own command queue.
#pragma once

#include "opencl/cl_engine.hpp"
#include "runtime/completion_queue.hpp"
#include "runtime/executor.hpp"
#include "runtime/gpu_config.hpp"
#include "runtime/memory_plan.hpp"

#include <mosaic/sdk/fake_quantize_rewrite.hpp>
#include <mosaic/sdk/plugin.hpp>

#include <memory>
#include <string>
#include <vector>

namespace mosaic::gpu_plugin {

class GpuCompiledModel : public sdk::CompiledModel {
public:
    // `default_id`: the device's DEVICE_ID, the instance a memory_device without id ("GPU") names.
    GpuCompiledModel(const sdk::GraphView& graph, const nlohmann::json& properties, const GpuConfig& config,
                     const ClDeviceInfo& device, std::string device_name, std::string default_id);
    ~GpuCompiledModel() override;

    std::unique_ptr<sdk::InferRequest> create_request() override;
    nlohmann::json property(const std::string& key) const override;
    bool memory(sdk::CompiledMemory& out) const override;
    // Buffers of its own instance (allocate_buffer's cl_mem): kernels read and write them in place.
    bool takes_memory_of(const std::string& memory_device) const override;
    // Device bytes each request holds (its plan's buffers, scratch, staging), counted by the engine.
    uint64_t request_bytes() const { return request_bytes_; }

    const GpuConfig& config() const { return config_; }
    // Whether the caller's tensors and the weights are device buffers over host memory, not copies:
    // on devices sharing host memory, unless GPU_ZERO_COPY is off.
    bool zero_copy() const { return engine_->info().integrated && config_.zero_copy; }
    ClEngine& engine() const { return *engine_; }
    const cl::Program& program() const { return program_; }
    const ValueTable& values() const { return values_; }
    const std::vector<std::unique_ptr<Executor>>& executors() const { return executors_; }
    const MemoryPlan& memory_plan() const { return plan_; }
    size_t scratch_bytes() const { return scratch_bytes_; }
    // The device copy of a constant value (a view of one included); null buffer otherwise.
    const cl::Buffer& constant_buffer(ValueId v) const { return constants_.at(values_.storage_of(v)); }
    // "GPU.0": the instance, for messages and EXECUTION_DEVICES.
    const std::string& device_label() const { return label_; }
    // Where the model's asynchronous inferences end (completion_queue.hpp).
    CompletionQueue& completions() const { return completions_; }

private:
    void upload_constants(const sdk::GraphView& graph);
    void count_request_bytes();

    nlohmann::json properties_;
    GpuConfig config_;
    std::shared_ptr<ClEngine> engine_;
    cl::Program program_;
    std::unique_ptr<sdk::RewrittenGraph> rewritten_;  // kept: the values point at its constants
    ValueTable values_;
    std::vector<cl::Buffer> constants_;  // per value
    // The device copies it reads, shared with the models compiled from the same weights.
    std::vector<std::shared_ptr<DeviceConstant>> device_constants_;
    std::vector<std::unique_ptr<Executor>> executors_;
    MemoryPlan plan_;
    size_t scratch_bytes_ = 0;
    uint64_t model_bytes_ = 0, request_bytes_ = 0;
    std::string device_name_, default_id_, label_, model_name_;
    double compile_ms_ = 0, program_ms_ = 0;
    mutable CompletionQueue completions_;  // last: its thread stops before the rest goes
};

}  // namespace mosaic::gpu_plugin
