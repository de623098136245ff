#include "runtime/gpu_compiled_model.hpp"

#include "runtime/executor_builder.hpp"
#include "runtime/gpu_infer_request.hpp"

#include <mosaic/reference/constant_folding.hpp>
#include <algorithm>
#include <chrono>

namespace mosaic::gpu_plugin {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// GPU_HALF_CONVERSIONS: AUTO converts by integer arithmetic on OpenCL CPU devices, where PoCL's
// vload_halfn/vstore_halfn go lane by lane; a GPU's builtins are conversion instructions.
bool half_by_bits(const GpuConfig& config, const ClDeviceInfo& device) {
    return config.half_conversions == "BITS" || (config.half_conversions == "AUTO" && device.prefers_sixteen_wide());
}

}  // namespace

GpuCompiledModel::GpuCompiledModel(const sdk::GraphView& given, const nlohmann::json& properties, const GpuConfig& config,
                                   const ClDeviceInfo& device, std::string device_name, std::string default_id)
    : properties_(properties),
      config_(config),
      engine_(engine_for(device)),
      rewritten_(sdk::rewrite_fake_quantize(given, reference::compile_time_nodes(given))),
      values_(sdk::compiled_view(rewritten_, given), config.precision == "f16"),
      device_name_(std::move(device_name)),
      default_id_(std::move(default_id)),
      label_(device_name_ + "." + config.device_id),
      model_name_(given.name()) {
    const sdk::GraphView graph = sdk::compiled_view(rewritten_, given);
    const auto t0 = std::chrono::steady_clock::now();
    // Denormal floats flushed to zero: on an OpenCL CPU device each operation on one costs a
    // microcode assist, and a 1x1 convolution over denormal inputs ran 84 ms instead of 0.73 on
    // PoCL. Values below 1.2e-38 are far inside every tolerance REFERENCE is held to.
    // Under the f16 hint the same kernels load and store halves (kernels/common/storage.cl's `real`).
    program_ = engine_->program(std::string("-cl-std=CL1.2 -cl-denorms-are-zero") +
                                    (values_.half_floats() ? " -DMOSAIC_HALF" : "") +
                                    (values_.half_floats() && half_by_bits(config, device) ? " -DMOSAIC_HALF_BY_BITS" : ""),
                                config_.cache_dir);
    program_ms_ = ms_since(t0);
    upload_constants(graph);
    executors_ = build_executors(graph, values_, *engine_, config_.gemm_kernel);
    plan_ = plan_memory(values_, executors_);
    for (const auto& e : executors_) scratch_bytes_ = std::max(scratch_bytes_, e->scratch_bytes());
    count_request_bytes();
    // The weights are held for the model's life; one request's buffers must fit beside them too.
    const uint64_t budget = config_.memory_budget(device);
    if (model_bytes_ + request_bytes_ > budget)
        throw sdk::Error(MOSAIC_ERROR_OUT_OF_MEMORY,
                         "model '" + graph.name() + "' needs " + std::to_string(model_bytes_) + " bytes of weights and " +
                             std::to_string(request_bytes_) + " bytes per request on " + device_name_ + " ('" + device.name +
                             "'), more than its " + std::to_string(budget) +
                             " bytes (DEVICE_MEMORY_LIMIT, or the device's memory); raise DEVICE_MEMORY_LIMIT or split the "
                             "model over more devices (HETERO with MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL)");
    for (const auto& c : device_constants_) c->commit(budget, "model '" + graph.name() + "' (its weights)");
    // Weights shared with models compiled before are held already: one request must still fit
    // beside everything held, or the model is refused now (an orchestrator may then plan again)
    // rather than its first request later.
    if (engine_->held() + request_bytes_ > budget)
        throw sdk::Error(MOSAIC_ERROR_OUT_OF_MEMORY,
                         "model '" + graph.name() + "' needs " + std::to_string(request_bytes_) + " bytes per request on " +
                             device_name_ + " ('" + device.name + "'), but " + std::to_string(engine_->held()) + " of its " +
                             std::to_string(budget) + " bytes are held (its weights and other models); raise "
                             "DEVICE_MEMORY_LIMIT, release other models, or split the model over more devices");
    compile_ms_ = ms_since(t0);
}

GpuCompiledModel::~GpuCompiledModel() = default;

void GpuCompiledModel::count_request_bytes() {
    // What GpuInferRequest's constructor allocates: the plan's buffers, the scratch buffer, and per
    // caller tensor a staging buffer (without zero-copy) and an f16 one (narrowed values).
    request_bytes_ = plan_.total_bytes() + scratch_bytes_;
    for (ValueId v = 0; v < values_.size(); ++v) {
        const Value& value = values_[v];
        if (value.kind != Value::Kind::input && value.kind != Value::Kind::output) continue;
        if (!zero_copy()) request_bytes_ += value.byte_size();
        if (value.narrowed()) request_bytes_ += value.device_bytes();
    }
    for (const ResultCopy& copy : values_.result_copies())
        if (values_[copy.from].narrowed() && !zero_copy()) request_bytes_ += values_[copy.from].byte_size();
}

bool GpuCompiledModel::memory(sdk::CompiledMemory& out) const {
    out.model_bytes = model_bytes_;
    out.request_bytes = request_bytes_;
    return true;
}

bool GpuCompiledModel::takes_memory_of(const std::string& memory_device) const {
    const std::optional<std::string> id = instance_id(memory_device, device_name_, default_id_);
    return id && *id == config_.device_id;
}

void GpuCompiledModel::upload_constants(const sdk::GraphView& graph) {
    constants_.resize(values_.size());
    const bool shared = zero_copy();
    for (ValueId v = 0; v < values_.size(); ++v) {
        const Value& value = values_[v];
        if (!value.is_constant() || value.byte_size() == 0) continue;
        bool read_at_run_time = false;
        for (const Use& u : value.uses) read_at_run_time |= values_.runs(u.node) || graph.is_result(u.node);
        if (!read_at_run_time) continue;
        // The host's weights outlive the compiled model (plugin_abi.h): a device sharing host memory
        // reads them where they are; another gets one copy (f32 stored as f16: a narrowed one), the
        // same for every model compiled from them.
        if (shared && !value.narrowed()) {
            void* host = const_cast<void*>(value.constant);
            constants_[v] = cl::Buffer(engine_->context(), CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, value.byte_size(), host);
            continue;
        }
        device_constants_.push_back(
            engine_->shared_constant(value.constant, value.byte_size(), value.narrowed(), value.narrowed()));
        constants_[v] = device_constants_.back()->buffer();
        model_bytes_ += device_constants_.back()->bytes();
    }
}

std::unique_ptr<sdk::InferRequest> GpuCompiledModel::create_request() { return std::make_unique<GpuInferRequest>(*this); }

nlohmann::json GpuCompiledModel::property(const std::string& key) const {
    if (key == "OPTIMAL_NUMBER_OF_INFER_REQUESTS") return 2;  // one running while the next is set up
    if (key == "EXECUTION_DEVICES") return nlohmann::json::array({label_});
    if (key == "NETWORK_NAME") return model_name_;
    if (key == "GPU_MEMORY_PLAN")
        return {{"tensors", plan_.tensors}, {"buffers", plan_.buffer_sizes.size()}, {"bytes", plan_.total_bytes()},
                {"unshared_bytes", plan_.unshared_bytes}, {"scratch_bytes", scratch_bytes_}};
    if (key == "GPU_ZERO_COPY") return zero_copy();  // what it does, not what was asked
    if (key == "GPU_FOLDED_NODES") return values_.folded_nodes();
    if (key == "GPU_GEMM_TUNING") return engine_->gemm_tuning();
    if (key == "GPU_COMPILE_TIME_MS") return {{"total", compile_ms_}, {"program", program_ms_}};
    if (key == "GPU_EXECUTORS") {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& e : executors_) list.push_back({{"name", e->name()}, {"type", e->type()}, {"exec_type", e->exec_type()}});
        return list;
    }
    if (properties_.contains(key)) return properties_.at(key);
    return sdk::CompiledModel::property(key);
}

}  // namespace mosaic::gpu_plugin
