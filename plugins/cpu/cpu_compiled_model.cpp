#include "cpu_compiled_model.hpp"

#include "compressed_weights.hpp"
#include "cpu_infer_request.hpp"
#include "executor_builder.hpp"

#include <mosaic/reference/constant_folding.hpp>
#include <algorithm>

namespace mosaic::cpu_plugin {

namespace {

// Compressed weights stay compressed (compressed_weights.hpp) where MatMuls compute in f32.
sdk::ValueTableOptions value_options(const sdk::GraphView& graph, const CpuConfig& config) {
    sdk::ValueTableOptions options;
    if (config.precision != "bf16") options.unfolded = sdk::patterns::compressed_decompressions(graph, true);
    return options;
}

}  // namespace

CpuCompiledModel::CpuCompiledModel(const sdk::GraphView& graph, const nlohmann::json& config, std::string device,
                                   std::shared_ptr<sdk::MemoryLedger> ledger, std::shared_ptr<StreamThreads> threads)
    : properties_(config),
      config_(CpuConfig::from(config)),
      engine_(dnnl::engine::kind::cpu, 0),
      rewritten_(sdk::rewrite_fake_quantize(graph, reference::compile_time_nodes(graph))),
      values_(sdk::compiled_view(rewritten_, graph), value_options(sdk::compiled_view(rewritten_, graph), config_)),
      ledger_(std::move(ledger)),
      device_(std::move(device)),
      model_name_(graph.name()),
      limiter_(config_.streams.streams),
      threads_(std::move(threads)) {
    // Primitives size their work partition for the thread count current when they are created:
    // that of one stream, which is what each inference runs with.
    ThreadScope scope(config_.streams.threads_per_stream);
    const auto compute = config_.precision == "bf16" ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f32;
    const sdk::GraphView compiled = sdk::compiled_view(rewritten_, graph);
    executors_ = build_executors(BuildContext{compiled, values_, engine_, compute, config_.dynamic_quantization_group,
                                                          config_.weights_in_place});
    for (const auto& e : executors_) e->count_packed_weights(packed_weights_);
    plan_ = plan_memory(values_, executors_);
    for (const auto& e : executors_) scratch_bytes_ = std::max(scratch_bytes_, e->scratch_bytes());
    // The repacked weights are held for the model's life; one request must fit beside them too.
    const uint64_t limit = config_.memory_limit;
    if (limit && packed_weights_.bytes + request_bytes() + ledger_->held() > limit)
        throw sdk::Error(MOSAIC_ERROR_OUT_OF_MEMORY,
                         "model '" + model_name_ + "' needs " + std::to_string(packed_weights_.bytes) +
                             " bytes of repacked weights and " + std::to_string(request_bytes()) + " bytes per request on " +
                             device_ + ", and " + std::to_string(ledger_->held()) + " of its " + std::to_string(limit) +
                             " bytes (DEVICE_MEMORY_LIMIT) are held already; raise DEVICE_MEMORY_LIMIT or split the model "
                             "over more devices (HETERO with MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL)");
    weights_ = std::make_unique<sdk::Reservation>(ledger_, packed_weights_.bytes, limit,
                                             "model '" + model_name_ + "' (its repacked weights)");
}

bool CpuCompiledModel::memory(sdk::CompiledMemory& out) const {
    out.model_bytes = packed_weights_.bytes;
    out.request_bytes = request_bytes();
    return true;
}

std::unique_ptr<sdk::InferRequest> CpuCompiledModel::create_request() { return std::make_unique<CpuInferRequest>(*this); }

nlohmann::json CpuCompiledModel::property(const std::string& key) const {
    // One request per stream keeps every stream busy; more would only wait for a free one.
    if (key == "OPTIMAL_NUMBER_OF_INFER_REQUESTS" || key == "NUM_STREAMS") return config_.streams.streams;
    if (key == "EXECUTION_DEVICES") return nlohmann::json::array({device_});
    if (key == "NETWORK_NAME") return model_name_;
    // What runs, AUTO and 0 resolved: the threads of all streams together, and of each.
    if (key == "INFERENCE_NUM_THREADS") return config_.streams.total_threads();
    if (key == "CPU_THREADS_PER_STREAM") return config_.streams.threads_per_stream;
    if (key == "CPU_MEMORY_PLAN") return plan_.summary();
    // The weights packed for oneDNN, and the part found packed by another compiled model (a dynamic
    // model's earlier specialization, say) and shared with it.
    if (key == "CPU_PACKED_WEIGHTS")
        return {{"bytes", packed_weights_.bytes}, {"shared_bytes", packed_weights_.shared_bytes}};
    if (key == "CPU_EXECUTORS") {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& e : executors_) list.push_back({{"name", e->name()}, {"type", e->type()}, {"exec_type", e->exec_type()}});
        return list;
    }
    if (properties_.contains(key)) return properties_.at(key);
    return sdk::CompiledModel::property(key);
}

}  // namespace mosaic::cpu_plugin
