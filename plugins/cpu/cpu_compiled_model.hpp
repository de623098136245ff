// A graph compiled for the CPU: its values, the executors in topological order (oneDNN primitives
// with their reordered weights, reference kernels for the rest) and the memory plan. Immutable
// after construction and shared by every infer request, which run concurrently, one per execution
// stream at most: the stream limiter is the one piece of shared state requests change.
#pragma once

#include "cpu_config.hpp"
#include "executor.hpp"
#include <mosaic/sdk/memory_ledger.hpp>
#include "memory_plan.hpp"
#include "stream_limiter.hpp"
#include "stream_threads.hpp"

#include <mosaic/sdk/fake_quantize_rewrite.hpp>
#include <mosaic/sdk/plugin.hpp>

#include <memory>
#include <string>
#include <vector>

namespace mosaic::cpu_plugin {

class CpuCompiledModel : public sdk::CompiledModel {
public:
    // `ledger`: the device's host memory, which the repacked weights and each request reserve;
    // `threads`: the device's threads, which its inferences start their parallel work from.
    CpuCompiledModel(const sdk::GraphView& graph, const nlohmann::json& config, std::string device,
                     std::shared_ptr<sdk::MemoryLedger> ledger, std::shared_ptr<StreamThreads> threads);

    std::unique_ptr<sdk::InferRequest> create_request() override;
    nlohmann::json property(const std::string& key) const override;
    bool memory(sdk::CompiledMemory& out) const override;
    // What one request holds: its activation arena and scratch.
    uint64_t request_bytes() const { return plan_.arena_bytes + scratch_bytes_; }
    const std::shared_ptr<sdk::MemoryLedger>& ledger() const { return ledger_; }

    const CpuConfig& config() const { return config_; }
    const dnnl::engine& engine() const { return engine_; }
    const ValueTable& values() const { return values_; }
    const std::vector<std::unique_ptr<Executor>>& executors() const { return executors_; }
    const MemoryPlan& memory_plan() const { return plan_; }
    size_t scratch_bytes() const { return scratch_bytes_; }
    // Thread-safe: every inference holds one of its slots while it runs.
    StreamLimiter& stream_limiter() const { return limiter_; }
    StreamThreads& stream_threads() const { return *threads_; }

private:
    nlohmann::json properties_;
    CpuConfig config_;
    dnnl::engine engine_;
    std::unique_ptr<sdk::RewrittenGraph> rewritten_;  // kept: the values point at its constants
    ValueTable values_;
    PackedWeightsTotals packed_weights_;
    std::vector<std::unique_ptr<Executor>> executors_;
    MemoryPlan plan_;
    size_t scratch_bytes_ = 0;
    std::shared_ptr<sdk::MemoryLedger> ledger_;
    std::unique_ptr<sdk::Reservation> weights_;  // the repacked weights, held on the ledger
    std::string device_, model_name_;
    mutable StreamLimiter limiter_;
    std::shared_ptr<StreamThreads> threads_;
};

}  // namespace mosaic::cpu_plugin
