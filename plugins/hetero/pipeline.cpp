#include "pipeline.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

namespace mosaic::hetero {

namespace {

uint64_t value_bytes(const sdk::GraphView& g, size_t n, size_t o) {
    const Shape shape = g.output_shape(n, o);
    return is_static(shape) ? static_cast<uint64_t>(shape_size(shape)) * element_size(g.output_type(n, o)) : 0;
}

std::string mib(uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
    return text;
}

// One device's share as ops are added in order: the constants it holds, and the tensors alive on
// it (each until the last op that reads it has run), whose peak is its activation estimate.
struct DeviceLoad {
    uint64_t weights = 0, live = 0, peak = 0;
    size_t ops = 0;
    std::set<size_t> constants;                          // constant nodes it holds
    std::set<std::pair<size_t, size_t>> resident;        // values alive on it
    std::multimap<size_t, std::pair<size_t, size_t>> until;  // last reader -> value

    uint64_t total() const { return weights + peak; }
};

// What adding op `n` to `load` would make it: its constants, its inputs from elsewhere and its
// outputs alive, the values it is the last to read freed after it.
DeviceLoad with_op(const sdk::GraphView& g, const DeviceLoad& load, size_t n, const std::vector<std::vector<size_t>>& last_reader) {
    DeviceLoad next = load;
    uint64_t during = next.live;
    for (size_t i = 0; i < g.input_count(n); ++i) {
        const sdk::PortRef in = g.input(n, i);
        if (g.is_constant(in.node)) {
            if (next.constants.insert(in.node).second) next.weights += value_bytes(g, in.node, in.port);
        } else if (next.resident.insert({in.node, in.port}).second) {  // read from another device or a model input
            const uint64_t bytes = value_bytes(g, in.node, in.port);
            next.live += bytes, during += bytes;
            next.until.emplace(last_reader[in.node][in.port], std::make_pair(in.node, in.port));
        }
    }
    for (size_t o = 0; o < g.output_count(n); ++o) {
        const uint64_t bytes = value_bytes(g, n, o);
        during += bytes;
        next.live += bytes;
        next.resident.insert({n, o});
        next.until.emplace(last_reader[n][o], std::make_pair(n, o));
    }
    next.peak = std::max(next.peak, during);
    for (auto it = next.until.begin(); it != next.until.end() && it->first <= n;) {
        next.live -= value_bytes(g, it->second.first, it->second.second);
        next.resident.erase(it->second);
        it = next.until.erase(it);
    }
    ++next.ops;
    return next;
}

}  // namespace

MemoryBudgets memory_budgets(const HeteroConfig& cfg, const HostClient& host) {
    MemoryBudgets budgets;
    const HostMemory memory(host.api());
    for (const std::string& d : cfg.devices) {
        const nlohmann::json config = cfg.device_config(d), current = host.device_properties(d);
        int64_t limit = config.value("DEVICE_MEMORY_LIMIT", int64_t{0});
        if (!limit && current.contains("DEVICE_MEMORY_LIMIT") && current["DEVICE_MEMORY_LIMIT"].is_number_integer())
            limit = current["DEVICE_MEMORY_LIMIT"].get<int64_t>();
        if (limit > 0) {
            budgets[d] = static_cast<uint64_t>(limit);
            continue;
        }
        mosaic_memory_info info{};
        if (!memory.info(d, info))
            throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED,
                             "MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL needs each device's memory, and " + d +
                                 " reports none (its plugin has no ABI 1.3 memory_info); give it a DEVICE_MEMORY_LIMIT in "
                                 "DEVICE_PROPERTIES: {\"" + d + "\": {\"DEVICE_MEMORY_LIMIT\": <bytes>}}");
        budgets[d] = info.available_bytes;
    }
    return budgets;
}

void place_pipeline(const sdk::GraphView& g, Placement& p, const HeteroConfig& cfg, const MemoryBudgets& budgets) {
    const size_t count = g.node_count();
    std::vector<std::vector<size_t>> last_reader(count);
    for (size_t n = 0; n < count; ++n) last_reader[n].assign(g.output_count(n), n);
    for (size_t n = 0; n < count; ++n)
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const sdk::PortRef in = g.input(n, i);
            last_reader[in.node][in.port] = std::max(last_reader[in.node][in.port], n);
        }
    std::map<std::string, DeviceLoad> loads;
    size_t stage = 0;  // index into cfg.devices of the device taking ops now
    auto fits = [&](const std::string& d, const DeviceLoad& load) { return load.total() <= budgets.at(d); };
    for (size_t n = 0; n < count; ++n) {
        if (!is_placed_op(g, n) || p.device[n].empty()) continue;
        if (p.manual[n]) {
            loads[p.device[n]] = with_op(g, loads[p.device[n]], n, last_reader);
            continue;
        }
        // The current stage's device, then the later ones, then the earlier ones: the first that runs
        // the op and has room for it. The current device out of room ends its stage.
        bool placed = false;
        while (!placed) {
            bool advance = false;
            for (size_t step = 0; step < cfg.devices.size() && !placed && !advance; ++step) {
                const size_t k = (stage + step) % cfg.devices.size();
                const std::string& d = cfg.devices[k];
                if (!p.supports(d, n)) continue;
                DeviceLoad next = with_op(g, loads[d], n, last_reader);
                if (fits(d, next)) {
                    p.device[n] = d;
                    p.why[n] = "chosen: " + d + ", pipeline stage " + std::to_string(stage + 1) +
                               " (MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL): " + d + " holds " + mib(next.total()) +
                               " of its " + mib(budgets.at(d)) + " so far";
                    loads[d] = std::move(next);
                    placed = true;
                } else if (k == stage && stage + 1 < cfg.devices.size()) {
                    advance = true;
                }
            }
            if (advance) {
                ++stage;
                continue;
            }
            if (placed) break;
            uint64_t placed_bytes = 0, held = 0;
            std::string each;
            for (const std::string& dev : cfg.devices) {
                held += budgets.at(dev);
                each += (each.empty() ? "" : ", ") + dev + " " + mib(budgets.at(dev));
            }
            for (const auto& [dev, load] : loads) placed_bytes += load.total();
            throw sdk::Error(MOSAIC_ERROR_OUT_OF_MEMORY,
                             "model '" + g.name() + "' does not fit HETERO:" + cfg.list_text() +
                                 " with MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL: op '" + g.node_name(n) +
                                 "' and the ops after it find no room once " + mib(placed_bytes) +
                                 " of weights and activations are placed, in devices holding " + mib(held) + " (" + each +
                                 "); add a device, raise DEVICE_MEMORY_LIMIT, or compress the weights");
        }
    }
    p.memory = nlohmann::json::array();
    for (const std::string& d : cfg.devices) {
        const DeviceLoad& load = loads[d];
        p.memory.push_back({{"device", d}, {"budget_bytes", budgets.at(d)}, {"weights_bytes", load.weights},
                            {"activations_bytes", load.peak}, {"ops", load.ops}});
    }
}

}  // namespace mosaic::hetero
