#include "pipeline.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

namespace mosaic::hetero {

uint64_t value_bytes(const sdk::GraphView& g, size_t n, size_t o) {
    const Shape shape = g.output_shape(n, o);
    return is_static(shape) ? static_cast<uint64_t>(shape_size(shape)) * element_size(g.output_type(n, o)) : 0;
}

bool is_state(const sdk::GraphView& g, size_t n) { return !g.rt_info(n, "mosaic_variable").empty(); }

uint64_t state_bytes(const sdk::GraphView& g, size_t n) {
    const std::string planned = g.rt_info(n, "mosaic_plan_shape");
    if (planned.empty()) return value_bytes(g, n, 0);
    try {
        const nlohmann::json dims = nlohmann::json::parse(planned);
        uint64_t elements = 1;
        for (const auto& d : dims) {
            if (!d.is_number_integer() || d.get<int64_t>() < 0) return value_bytes(g, n, 0);
            const uint64_t dim = d.get<uint64_t>();
            if (dim && elements > (UINT64_MAX >> 8) / dim) return UINT64_MAX >> 8;  // more than any device holds
            elements *= dim;
        }
        return elements * element_size(g.output_type(n, 0));
    } catch (const nlohmann::json::exception&) {
        return value_bytes(g, n, 0);  // not a shape: as compiled
    }
}

namespace {

std::string mib(uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
    return text;
}

// The last node reading each output of each node (itself when none does).
std::vector<std::vector<size_t>> last_readers(const sdk::GraphView& g) {
    std::vector<std::vector<size_t>> last(g.node_count());
    for (size_t n = 0; n < g.node_count(); ++n) last[n].assign(g.output_count(n), n);
    for (size_t n = 0; n < g.node_count(); ++n)
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const sdk::PortRef in = g.input(n, i);
            last[in.node][in.port] = std::max(last[in.node][in.port], n);
        }
    return last;
}

// One device's share as ops are added in order: the constants and state it holds, and the tensors
// alive on it (each until the last op that reads it has run), whose peak is its activation estimate.
class DeviceLoad {
public:
    explicit DeviceLoad(const std::vector<std::vector<size_t>>& last_reader) : last_reader_(&last_reader) {}

    const MemoryEstimate& estimate() const { return estimate_; }

    // The estimate once op `n` is added, without adding it: its new constants and state, and the
    // peak while it runs (what is alive, its inputs from elsewhere, its outputs).
    MemoryEstimate with(const sdk::GraphView& g, size_t n) const {
        MemoryEstimate next = estimate_;
        uint64_t during = live_;
        std::vector<std::pair<size_t, size_t>> counted;  // an op may read one value twice
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const sdk::PortRef in = g.input(n, i);
            const std::pair<size_t, size_t> value{in.node, in.port};
            if (held(value) || std::find(counted.begin(), counted.end(), value) != counted.end()) continue;
            counted.push_back(value);
            const uint64_t bytes = value_bytes(g, in.node, in.port);
            if (g.is_constant(in.node)) next.weights += bytes;
            else if (is_state(g, in.node)) next.state += state_bytes(g, in.node);
            else during += bytes;  // read from another device or a model input
        }
        for (size_t o = 0; o < g.output_count(n); ++o) during += value_bytes(g, n, o);
        next.activations = std::max(next.activations, during);
        ++next.ops;
        return next;
    }

    // Adds op `n`: what `with` counted, then frees the values it is the last to read.
    void add(const sdk::GraphView& g, size_t n) {
        estimate_ = with(g, n);
        const auto& last = *last_reader_;
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const sdk::PortRef in = g.input(n, i);
            if (!held(in.node, in.port)) hold(g, in.node, in.port, last[in.node][in.port]);
        }
        for (size_t o = 0; o < g.output_count(n); ++o) hold(g, n, o, last[n][o]);
        for (auto it = until_.begin(); it != until_.end() && it->first <= n;) {
            live_ -= value_bytes(g, it->second.first, it->second.second);
            resident_.erase(it->second);
            it = until_.erase(it);
        }
    }

private:
    bool held(const std::pair<size_t, size_t>& value) const { return kept_.count(value.first) || resident_.count(value); }
    bool held(size_t node, size_t port) const { return held({node, port}); }
    void hold(const sdk::GraphView& g, size_t node, size_t port, size_t last) {
        if (g.is_constant(node) || is_state(g, node)) {  // for the compiled model's or the request's life
            kept_.insert(node);
            return;
        }
        resident_.insert({node, port});
        live_ += value_bytes(g, node, port);
        until_.emplace(last, std::make_pair(node, port));
    }

    const std::vector<std::vector<size_t>>* last_reader_;
    MemoryEstimate estimate_;
    uint64_t live_ = 0;
    std::set<size_t> kept_;                                   // constants and state it holds
    std::set<std::pair<size_t, size_t>> resident_;            // values alive on it
    std::multimap<size_t, std::pair<size_t, size_t>> until_;  // last reader -> value
};

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

std::map<std::string, MemoryEstimate> estimate_memory(const sdk::GraphView& g, const std::vector<std::string>& device) {
    const std::vector<std::vector<size_t>> last = last_readers(g);
    std::map<std::string, DeviceLoad> loads;
    for (size_t n = 0; n < g.node_count(); ++n) {
        if (!is_placed_op(g, n) || device[n].empty()) continue;
        loads.try_emplace(device[n], last).first->second.add(g, n);
    }
    std::map<std::string, MemoryEstimate> out;
    for (const auto& [d, load] : loads) out[d] = load.estimate();
    return out;
}

void place_pipeline(const sdk::GraphView& g, Placement& p, const HeteroConfig& cfg, const MemoryBudgets& budgets,
                    const std::vector<size_t>& stage_ends, const std::string& rule) {
    const std::vector<std::vector<size_t>> last = last_readers(g);
    std::map<std::string, DeviceLoad> loads;
    for (const std::string& d : cfg.devices) loads.emplace(d, DeviceLoad(last));
    size_t stage = 0;  // index into cfg.devices of the device taking ops now
    for (size_t n = 0; n < g.node_count(); ++n) {
        if (!is_placed_op(g, n) || p.device[n].empty()) continue;
        if (p.manual[n]) {  // its device may have left the list (drop_failed_device): counted all the same
            loads.try_emplace(p.device[n], last).first->second.add(g, n);
            continue;
        }
        while (stage < stage_ends.size() && n >= stage_ends[stage]) ++stage;
        // The current stage's device, then the later ones, then the earlier ones: the first that runs
        // the op and has room for it. The current device out of room ends its stage.
        bool placed = false;
        while (!placed) {
            bool advance = false;
            for (size_t step = 0; step < cfg.devices.size() && !placed && !advance; ++step) {
                const size_t k = (stage + step) % cfg.devices.size();
                const std::string& d = cfg.devices[k];
                if (!p.supports(d, n)) continue;
                const uint64_t total = loads.at(d).with(g, n).total(cfg.requests);
                if (total <= budgets.at(d)) {
                    p.device[n] = d;
                    p.why[n] = "chosen: " + d + ", pipeline stage " + std::to_string(stage + 1) +
                               " (MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL" + (rule.empty() ? "" : ", " + rule) +
                               "): " + d + " holds " + mib(total) + " of its " + mib(budgets.at(d)) + " so far";
                    loads.at(d).add(g, n);
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
            for (const auto& [dev, load] : loads) placed_bytes += load.estimate().total(cfg.requests);
            throw sdk::Error(MOSAIC_ERROR_OUT_OF_MEMORY,
                             "model '" + g.name() + "' does not fit HETERO:" + cfg.list_text() +
                                 " with MODEL_DISTRIBUTION_POLICY PIPELINE_PARALLEL: op '" + g.node_name(n) +
                                 "' and the ops after it find no room once " + mib(placed_bytes) +
                                 " of weights, state and activations" +
                                 (cfg.requests > 1 ? " (for " + std::to_string(cfg.requests) + " requests in flight)" : "") +
                                 " are placed, in devices holding " + mib(held) + " (" + each +
                                 "); add a device, raise DEVICE_MEMORY_LIMIT, " +
                                 (cfg.requests > 1 ? "lower PERFORMANCE_HINT_NUM_REQUESTS, " : "") + "or compress the weights");
        }
    }
}

}  // namespace mosaic::hetero
