#include "cpu_device.hpp"

#include "cpu_compiled_model.hpp"
#include "cpu_config.hpp"
#include "onednn_util.hpp"

#include <mosaic/reference/kernels.hpp>
#include <mosaic/sdk/cost_model.hpp>

namespace mosaic::cpu_plugin {

namespace {

namespace sp = sdk::standard_properties;

bool is_graph_boundary(const std::string& type) { return type == "Parameter" || type == "Constant" || type == "Result"; }

}  // namespace

CpuDevice::CpuDevice(const std::string& name)
    : Device(name, {sp::full_device_name("Mosaic CPU device (" + onednn_description() + ")"),
                    sp::perf_count(),
                    sp::performance_hint(),
                    sp::num_streams_or_auto(),
                    sp::inference_num_threads(0),
                    sp::inference_precision_hint(cpu_has_bf16() ? std::vector<std::string>{"f32", "bf16"}
                                                                : std::vector<std::string>{"f32"}),
                    sp::optimal_number_of_infer_requests(1),
                    {"DEVICE_MEMORY_LIMIT", sdk::PropertyKind::integer, 0, {}, false, 0,
                     "host bytes the device may hold (weights it repacks, requests' activations); what does not fit "
                     "is refused naming it; 0: no limit"},
                    {"DYNAMIC_QUANTIZATION_GROUP_SIZE", sdk::PropertyKind::integer, 0, {}, false, 0,
                     "MatMuls by compressed int8/int4 weights quantize their activations to int8 in groups of this "
                     "many values (a multiple of 32) for integer dot products; 0: activations stay f32"},
                    {"CPU_WEIGHTS_IN_PLACE", sdk::PropertyKind::boolean, false, {}, false, 0,
                     "f32 MatMul weights are read where the model holds them instead of a packed copy: one copy of "
                     "the weights in memory instead of two (an LLM's), products of many rows 0-5% slower, of 2-16 "
                     "rows up to 2x slower; one row runs the same streaming kernel either way"}}) {
    pin_runtime_libraries();
}

std::string CpuDevice::unsupported_reason(const sdk::GraphView& graph, size_t node) {
    const std::string type = graph.type(node), version = graph.version(node);
    if (is_graph_boundary(type)) return "";
    // Every op with a reference kernel runs: on oneDNN where an executor covers it, else on the kernel.
    if (!reference::find_kernel(type, version)) return "no CPU implementation of " + type + "-" + version;
    return "";
}

std::vector<sdk::Device::Support> CpuDevice::query(const sdk::GraphView& graph, const nlohmann::json& config) {
    std::vector<Support> result(graph.node_count());
    for (size_t n = 0; n < result.size(); ++n) {
        result[n].reason = unsupported_reason(graph, n);
        result[n].supported = result[n].reason.empty();
    }
    return result;
}

std::unique_ptr<sdk::CompiledModel> CpuDevice::compile(const sdk::GraphView& graph, const nlohmann::json& config) {
    std::string problems;
    for (size_t n = 0; n < graph.node_count(); ++n) {
        const std::string reason = unsupported_reason(graph, n);
        if (!reason.empty()) problems += "\n  '" + graph.node_name(n) + "': " + reason;
    }
    if (!problems.empty())
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "device " + name() + " cannot run these ops of model '" +
                                                         graph.name() + "':" + problems +
                                                         "\nrun them on another device (e.g. HETERO:" + name() +
                                                         ",REFERENCE)");
    try {
        // The compile's parallel regions start from one of the device's threads (stream_threads.hpp).
        std::unique_ptr<sdk::CompiledModel> compiled;
        threads_->run_team(CpuConfig::from(config).streams.threads_per_stream,
                           [&] { compiled = std::make_unique<CpuCompiledModel>(graph, config, name(), ledger_, threads_); });
        return compiled;
    } catch (const dnnl::error& e) {
        throw sdk::Error(MOSAIC_ERROR_DEVICE, "device " + name() + ": oneDNN failed while compiling model '" +
                                                  graph.name() + "': " + e.what());
    }
}

bool CpuDevice::estimate_cost(const sdk::GraphView& graph, size_t node, double& compute_us, double& bytes_per_us) {
    const CpuConfig config = CpuConfig::from(properties().merged(nlohmann::json::object()));
    const sdk::OpCost cost = sdk::op_cost(graph, node, sdk::host_core_rates(config.streams.threads_per_stream));
    compute_us = cost.compute_us;
    bytes_per_us = cost.bytes_per_us;
    return true;
}

bool CpuDevice::memory_info(const std::string&, sdk::MemoryInfo& out) {
    const uint64_t limit = CpuConfig::from(properties().merged(nlohmann::json::object())).memory_limit;
    out.used_bytes = ledger_->held();
    out.total_bytes = limit ? limit : physical_memory_bytes();
    const uint64_t free_of_limit = out.total_bytes > out.used_bytes ? out.total_bytes - out.used_bytes : 0;
    out.available_bytes = limit ? std::min(free_of_limit, available_memory_bytes()) : available_memory_bytes();
    out.shares_host_memory = true;
    return true;
}

}  // namespace mosaic::cpu_plugin

MOSAIC_DEFINE_PLUGIN(mosaic::cpu_plugin::CpuDevice, "mosaic_cpu", "0.1.0")
