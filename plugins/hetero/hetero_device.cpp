#include "hetero_device.hpp"

#include "constant_expressions.hpp"
#include "crossing_memory.hpp"

#include "dot_dump.hpp"
#include "hetero_compiled.hpp"
#include "min_transfer.hpp"
#include "partition.hpp"
#include "pipeline.hpp"
#include "pipeline_cuts.hpp"
#include "placement.hpp"
#include "plan_estimates.hpp"
#include "split_plan.hpp"

#include <algorithm>
#include <cstdio>

namespace mosaic::hetero {

namespace {

namespace sp = sdk::standard_properties;
using sdk::PropertyKind;

// PIPELINE_PARALLEL: the stages cut by the estimates (pipeline_cuts.hpp), then placed op by op;
// cuts the exact accounting cannot honour give way to the plain fill, which says what does not fit.
void place_stages(const sdk::GraphView& g, Placement& placement, const HeteroConfig& cfg, const HostClient& host,
                  const MemoryBudgets& budgets) {
    const StageCuts cuts = choose_cuts(g, placement, cfg, budgets, [&](const std::string& device, size_t node) {
        return host.estimate_cost(device, g.raw(), node);
    });
    if (!cuts.nodes.empty()) {
        Placement cut = placement;
        try {
            place_pipeline(g, cut, cfg, budgets, cuts.nodes, cuts.rule);
            placement = std::move(cut);
            return;
        } catch (const sdk::Error& e) {
            if (e.code() != MOSAIC_ERROR_OUT_OF_MEMORY) throw;
        }
    }
    place_pipeline(g, placement, cfg, budgets);
}

// Placement as compile and query both do it: affinity, then the pipeline's stages or ONE_DEVICE
// or MIN_TRANSFER when asked. `budgets` are the devices' memory for PIPELINE_PARALLEL.
Placement place_model(const sdk::GraphView& g, const HeteroConfig& cfg, const HostClient& host, bool require_all,
                      const MemoryBudgets& budgets = {}) {
    Placement placement = place(g, cfg, host);
    if (cfg.pipeline) place_stages(g, placement, cfg, host, budgets.empty() ? memory_budgets(cfg, host) : budgets);
    else if (cfg.placement == PlacementMode::one_device) keep_on_one_device(g, placement, cfg);
    settle_constant_expressions(g, placement);
    if (require_all) require_all_placed(g, placement, cfg);
    if (cfg.placement == PlacementMode::min_transfer && !cfg.pipeline) minimize_transfers(g, placement, cfg, host);
    return placement;
}

void check_limits(const sdk::GraphView& g, const Placement& placement, const std::vector<Cluster>& clusters,
                  const HeteroConfig& cfg) {
    size_t ops = 0, fallback = 0;
    for (size_t n = 0; n < g.node_count(); ++n) {
        if (placement.device[n].empty()) continue;
        ++ops;
        if (placement.device[n] != cfg.devices.front()) ++fallback;
    }
    const double ratio = ops ? static_cast<double>(fallback) / static_cast<double>(ops) : 0.0;
    if (ratio > cfg.max_fallback_ratio) {
        char text[160];
        std::snprintf(text, sizeof(text), "%zu of %zu ops (%.2f) fall back from %s, above HETERO_MAX_FALLBACK_RATIO %.2f",
                      fallback, ops, ratio, cfg.devices.front().c_str(), cfg.max_fallback_ratio);
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED, "model '" + g.name() + "': " + text +
                                                         "; raise the limit, or use a device that runs more of the model");
    }
    if (cfg.max_subgraphs > 0 && clusters.size() > static_cast<size_t>(cfg.max_subgraphs))
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED,
                         "model '" + g.name() + "' splits into " + std::to_string(clusters.size()) +
                             " subgraphs, above HETERO_MAX_SUBGRAPHS " + std::to_string(cfg.max_subgraphs) +
                             "; raise the limit, try HETERO_PLACEMENT MIN_TRANSFER, or reorder the device list");
}

// The split compile would build, with its estimates, before anything is compiled.
SplitPlan plan_split(const sdk::GraphView& g, const HeteroConfig& cfg, const HostClient& host, const MemoryBudgets& budgets) {
    const Placement placement = place_model(g, cfg, host, true, budgets);
    const std::vector<Cluster> clusters = partition(g, placement.device);
    check_limits(g, placement, clusters, cfg);
    SplitPlan plan = build_split(g, clusters, placement, cfg, fold_constant_expressions(g, placement.folded));
    add_estimates(g, placement, clusters, cfg, host, budgets, plan);
    return plan;
}

}  // namespace

HeteroDevice::HeteroDevice(const std::string& name)
    : Device(name, {sp::full_device_name("Mosaic HETERO: one model split across several devices"),
                    sp::perf_count(),
                    {"MULTI_DEVICE_PRIORITIES", PropertyKind::string, "", {}, false, 0,
                     "devices to split over, highest priority first: \"ACCEL,REFERENCE\""},
                    {"DEVICE_PROPERTIES", PropertyKind::object, nlohmann::json::object(), {}, false, 0,
                     "properties per device: {\"ACCEL\": {\"PERF_COUNT\": \"YES\"}}"},
                    {"HETERO_PLACEMENT", PropertyKind::choice, "GREEDY", {"GREEDY", "MIN_TRANSFER", "ONE_DEVICE"}, false, 0,
                     "GREEDY: first device that supports each op; MIN_TRANSFER: then move islands of ops to cut "
                     "transfers; ONE_DEVICE: the whole model on the first device that runs every op, else GREEDY"},
                    {"MODEL_DISTRIBUTION_POLICY", PropertyKind::string, "", {}, false, 0,
                     "PIPELINE_PARALLEL: consecutive stages, one per device in priority order, each holding what fits "
                     "in its DEVICE_MEMORY_LIMIT or free memory; empty: placement by support"},
                    {"PERFORMANCE_HINT_NUM_REQUESTS", PropertyKind::integer, 0, {}, false, 0,
                     "requests the application keeps in flight (0: one): the plan gives each device room for this "
                     "many requests' state and activations beside its weights (PIPELINE_PARALLEL)"},
                    {"HETERO_AFFINITY_PATTERNS", PropertyKind::object, nlohmann::json::object(), {}, false, 0,
                     "{\"regex\": \"DEVICE\"}: ops whose name the ECMAScript regex finds go to DEVICE, as if set by "
                     "hand, before the placement and the memory split place the rest"},
                    {"HETERO_MAX_SUBGRAPHS", PropertyKind::integer, 0, {}, false, 0,
                     "refuse a split into more subgraphs than this (0: no limit)"},
                    {"HETERO_MAX_FALLBACK_RATIO", PropertyKind::number, 1.0, {}, false, 0,
                     "refuse a split where more than this fraction of ops leaves the first device"},
                    {"HETERO_VISUALIZE", PropertyKind::boolean, false, {}, false, 0,
                     "write hetero_affinity_<model>.dot and hetero_subgraphs_<model>.dot when compiling"},
                    {"HETERO_DUMP_DIR", PropertyKind::string, "", {}, false, 0,
                     "where the dot files go (empty: the working directory)"},
                    {"HETERO_TRANSFER_OVERHEAD_US", PropertyKind::number, 20.0, {}, false, 0,
                     "MIN_TRANSFER's fixed cost of one tensor crossing devices, in microseconds"},
                    {"HETERO_CROSSING_MEMORY", PropertyKind::choice, "AUTO", {"AUTO", "DEVICE", "HOST"}, false, 0,
                     "where a tensor crossing between subgraphs lives: AUTO keeps it on devices with memory apart "
                     "from the host's where they reach each other, DEVICE also on devices sharing host memory, "
                     "HOST always in host memory"}}) {
    properties().forward_unknown_keys(true);
}

std::vector<std::string> HeteroDevice::own_keys() const {
    std::vector<std::string> keys;
    for (const auto& s : properties().specs()) keys.push_back(s.name);
    return keys;
}

std::vector<sdk::Device::Support> HeteroDevice::query(const sdk::GraphView& graph, const nlohmann::json& config) {
    HostClient host(this->host());
    HeteroConfig cfg(config, own_keys(), host);
    const Placement placement = place_model(graph, cfg, host, false);
    std::vector<Support> result(graph.node_count());
    for (size_t n = 0; n < graph.node_count(); ++n) {
        if (!placement.unsupported[n].empty()) {
            result[n] = {false, "no device of HETERO:" + cfg.list_text() + " runs it: " + placement.unsupported[n]};
            continue;
        }
        std::string device = placement.reported_device(graph, n);
        if (device.empty() && placement.folded[n]) device = cfg.devices.front();  // read by model outputs only
        if (device.empty() && !is_placed_op(graph, n)) {
            // A boundary node whose ops run nowhere shares their fate; one joined to no op at all
            // (Parameter -> Result) needs no device and is reported on the first.
            std::string blocked;
            for (size_t m = 0; m < graph.node_count() && blocked.empty(); ++m) {
                const bool linked = graph.is_result(n) ? graph.input(n, 0).node == m : [&] {
                    for (size_t i = 0; i < graph.input_count(m); ++i)
                        if (graph.input(m, i).node == n) return true;
                    return false;
                }();
                if (linked && !placement.unsupported[m].empty()) blocked = graph.node_name(m);
            }
            if (!blocked.empty()) {
                result[n] = {false, "it is joined to op '" + blocked + "', which no device of HETERO:" +
                                        cfg.list_text() + " runs"};
                continue;
            }
            device = cfg.devices.front();
        }
        const std::string why = is_placed_op(graph, n) ? placement.explanation(n)
                                                       : "chosen: " + device + ", with the op it connects to";
        result[n] = {true, device + "\n" + why};
    }
    return result;
}

bool HeteroDevice::plan(const sdk::GraphView& graph, const nlohmann::json& config, nlohmann::json& out) {
    HostClient host(this->host());
    HeteroConfig cfg(config, own_keys(), host);
    const MemoryBudgets budgets = cfg.pipeline ? memory_budgets(cfg, host) : MemoryBudgets{};
    const SplitPlan plan = plan_split(graph, cfg, host, budgets);
    out = summary_with_paths(plan, place_slot_memory(plan, HostMemory(host.api()), plan.crossing_memory));
    return true;
}

std::unique_ptr<sdk::CompiledModel> HeteroDevice::compile(const sdk::GraphView& graph, const nlohmann::json& config) {
    HostClient host(this->host());
    HeteroConfig cfg(config, own_keys(), host);
    MemoryBudgets budgets = cfg.pipeline ? memory_budgets(cfg, host) : MemoryBudgets{};
    for (int attempt = 0;; ++attempt) {
        SplitPlan plan = plan_split(graph, cfg, host, budgets);
        if (cfg.visualize) write_dot_files(cfg.dump_dir, plan.model_name, plan.affinity_dot, plan.subgraphs_dot);

        std::vector<std::shared_ptr<HostCompiled>> compiled;
        std::string failed_device;
        for (size_t k = 0; k < plan.subgraphs.size() && failed_device.empty(); ++k) {
            const SubgraphPlan& sub = plan.subgraphs[k];
            try {
                compiled.push_back(host.compile(sub.device, sub.graph.view(), sub.properties));
            } catch (const std::exception& e) {
                const std::string what = "HETERO could not compile subgraph" + std::to_string(k) + " (" +
                                         std::to_string(sub.ops.size()) + " ops, first '" + sub.ops.front() + "') on " +
                                         sub.device + ": " + e.what();
                // The device's own accounting has the last word on what fits: a stage it refuses for
                // memory shrinks its budget by a tenth and the model is cut again.
                const auto* status = dynamic_cast<const sdk::Error*>(&e);
                if (cfg.pipeline && status && status->code() == MOSAIC_ERROR_OUT_OF_MEMORY && attempt < 8 &&
                    budgets.count(sub.device)) {
                    budgets[sub.device] -= budgets[sub.device] / 10;
                    failed_device = sub.device;
                    break;
                }
                if (!drop_failed_device(cfg, sub.device, e, what)) throw sdk::Error(MOSAIC_ERROR_GENERAL, what);
                failed_device = sub.device;
            }
        }
        if (failed_device.empty())
            return std::make_unique<HeteroCompiledModel>(std::move(plan), std::move(compiled), nullptr, host);
    }
}

bool HeteroDevice::drop_failed_device(HeteroConfig& cfg, const std::string& device, const std::exception& error,
                                      const std::string& what) const {
    // Only a device that failed (MOSAIC_ERROR_DEVICE: its isolated process died, its driver broke)
    // is treated as one that does not run those ops; a refusal stays an error, as before.
    const auto* status = dynamic_cast<const sdk::Error*>(&error);
    auto it = std::find(cfg.devices.begin(), cfg.devices.end(), device);
    if (!status || status->code() != MOSAIC_ERROR_DEVICE || it == cfg.devices.end() || cfg.devices.size() < 2)
        return false;
    cfg.devices.erase(it);
    sdk::Host::log(MOSAIC_LOG_WARNING, name(),
                   what + "; falling back: its ops go to the next devices of the list (" + cfg.list_text() +
                       "), as if " + device + " did not support them");
    return true;
}

std::unique_ptr<sdk::CompiledModel> HeteroDevice::import_model(const void* blob, size_t size,
                                                               const nlohmann::json& config) {
    HostClient host(this->host());
    return HeteroCompiledModel::import_blob(blob, size, host, config);
}

}  // namespace mosaic::hetero

MOSAIC_DEFINE_PLUGIN(mosaic::hetero::HeteroDevice, "mosaic_hetero", "0.1.0")
