#include "reference_device.hpp"

#include "reference_compiled_model.hpp"

#include <mosaic/reference/kernels.hpp>
#include <mosaic/sdk/cost_model.hpp>

#include <sstream>

namespace mosaic::reference_plugin {

namespace {

namespace sp = sdk::standard_properties;

std::set<std::string> parse_op_list(const std::string& text) {
    std::set<std::string> ops;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (item.find_first_not_of(' ') != std::string::npos)
            ops.insert(item.substr(item.find_first_not_of(' '), item.find_last_not_of(' ') - item.find_first_not_of(' ') + 1));
    return ops;
}

bool is_graph_boundary(const std::string& type) { return type == "Parameter" || type == "Constant" || type == "Result"; }

}  // namespace

ReferenceDevice::ReferenceDevice(const std::string& name)
    : Device(name, {sp::full_device_name("Mosaic reference device (plain C++ kernels, the numerical oracle)"),
                    sp::perf_count(),
                    sp::performance_hint(),
                    sp::num_streams(1),
                    sp::inference_num_threads(1),
                    sp::inference_precision_hint({"f32"}),
                    sp::optimal_number_of_infer_requests(1),
                    {"SUPPORTED_OPS", sdk::PropertyKind::string, "", {}, false, 0,
                     "comma-separated op types this device accepts; empty: every op with a reference kernel"},
                    {"INSTANCES", sdk::PropertyKind::integer, 1, {}, false, 1,
                     "how many instances to emulate (listed as NAME.0, NAME.1, ...), for multi-device tests"},
                    {"DEVICE_ID", sdk::PropertyKind::string, "", {}, false, 0, "the instance a compilation runs on"},
                    {"EXECUTION_UNITS", sdk::PropertyKind::integer, 0, {}, false, 0,
                     "inferences the device runs at once across all its compiled models (0: no limit); 1 emulates "
                     "an accelerator with one execution queue"},
                    {"COST_FACTOR", sdk::PropertyKind::number, 1.0, {}, false, 0,
                     "scales the per-op cost estimates reported to placement (below 1: an emulated faster device)"},
                    {"SIMULATED_TIME", sdk::PropertyKind::boolean, false, {}, false, 0,
                     "each inference lasts at least the sum of its ops' cost estimates (COST_FACTOR applied), "
                     "waiting out the rest off the host's cores: an accelerator that runs at the speed it reports, "
                     "for pipeline figures on a machine with few cores (a simulation)"}}) {}

bool ReferenceDevice::estimate_cost(const sdk::GraphView& graph, size_t node, double& compute_us, double& bytes_per_us) {
    const sdk::OpCost cost = sdk::default_op_cost(graph, node);
    compute_us = cost.compute_us * properties().get("COST_FACTOR").get<double>();
    bytes_per_us = cost.bytes_per_us;
    return true;
}

std::vector<std::string> ReferenceDevice::device_ids() const {
    const int64_t n = properties().get("INSTANCES").get<int64_t>();
    std::vector<std::string> ids;
    for (int64_t i = 0; n > 1 && i < n; ++i) ids.push_back(std::to_string(i));
    return ids;
}

std::string ReferenceDevice::unsupported_reason(const sdk::GraphView& graph, size_t node,
                                                const std::set<std::string>& allowed, const std::string& device) {
    const std::string type = graph.type(node), version = graph.version(node);
    if (is_graph_boundary(type)) return "";
    if (!allowed.empty() && !allowed.count(type)) return "op " + type + " is not in SUPPORTED_OPS of device " + device;
    if (!reference::find_kernel(type, version)) return "no reference kernel for " + type + "-" + version;
    return "";
}

std::vector<sdk::Device::Support> ReferenceDevice::query(const sdk::GraphView& graph, const nlohmann::json& config) {
    const std::set<std::string> allowed = parse_op_list(config.at("SUPPORTED_OPS").get<std::string>());
    std::vector<Support> result(graph.node_count());
    for (size_t n = 0; n < result.size(); ++n) {
        result[n].reason = unsupported_reason(graph, n, allowed, name());
        result[n].supported = result[n].reason.empty();
    }
    return result;
}

std::unique_ptr<sdk::CompiledModel> ReferenceDevice::compile(const sdk::GraphView& graph, const nlohmann::json& config) {
    const std::set<std::string> allowed = parse_op_list(config.at("SUPPORTED_OPS").get<std::string>());
    std::string problems;
    for (size_t n = 0; n < graph.node_count(); ++n) {
        std::string reason = unsupported_reason(graph, n, allowed, name());
        if (!reason.empty()) problems += "\n  '" + graph.node_name(n) + "': " + reason;
    }
    if (!problems.empty())
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "device " + name() + " cannot run these ops of model '" +
                                                         graph.name() + "':" + problems +
                                                         "\nrun them on another device (e.g. HETERO:" + name() +
                                                         ",REFERENCE)");
    return std::make_unique<ReferenceCompiledModel>(graph, config, name(), gate_);
}

std::unique_ptr<sdk::CompiledModel> ReferenceDevice::import_model(const void* blob, size_t size,
                                                                 const nlohmann::json& config) {
    auto model = std::make_unique<ReferenceCompiledModel>(blob, size, config, name(), gate_);
    const std::set<std::string> allowed = parse_op_list(config.at("SUPPORTED_OPS").get<std::string>());
    for (const Step& step : model->plan().steps)
        if (!allowed.empty() && !allowed.count(step.type))
            throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "the imported model runs '" + step.name + "' (" + step.type +
                                                             "), which is not in SUPPORTED_OPS of device " + name());
    return model;
}

}  // namespace mosaic::reference_plugin

MOSAIC_DEFINE_PLUGIN(mosaic::reference_plugin::ReferenceDevice, "mosaic_reference", "0.1.0")
