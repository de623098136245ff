#include "placement.hpp"

#include <mosaic/reference/constant_folding.hpp>

#include <algorithm>

namespace mosaic::hetero {

bool is_placed_op(const sdk::GraphView& g, size_t node) {
    const std::string type = g.type(node);
    return type != "Parameter" && type != "Constant" && type != "Result";
}

std::string Placement::reported_device(const sdk::GraphView& g, size_t node) const {
    if (!device[node].empty()) return device[node];
    if (g.is_result(node)) {
        const size_t producer = g.input(node, 0).node;
        return producer < device.size() ? reported_device(g, producer) : "";
    }
    // Parameters and Constants: the first consumer that is placed (nodes are in topological order).
    for (size_t m = node + 1; m < g.node_count(); ++m)
        for (size_t i = 0; i < g.input_count(m); ++i)
            if (g.input(m, i).node == node && !device[m].empty()) return device[m];
    return "";
}

std::string Placement::explanation(size_t node) const {
    return passed_over[node] + why[node];
}

namespace {
// As OpenVINO documents it, the automatic mode is off as soon as one op carries an affinity: then
// every op must carry one, and each must name a device of the list.
void check_manual_mode(const sdk::GraphView& g, const HeteroConfig& cfg) {
    std::string with, without;
    size_t missing = 0;
    for (size_t n = 0; n < g.node_count(); ++n) {
        if (!is_placed_op(g, n)) continue;
        const std::string affinity = g.rt_info(n, "affinity");
        const std::string op = "'" + g.node_name(n) + "' (" + g.type(n) + ")";
        if (affinity.empty()) {
            if (++missing <= 3) without += (without.empty() ? "" : ", ") + op;
            continue;
        }
        if (with.empty()) with = op + " has affinity '" + affinity + "'";
        if (std::find(cfg.devices.begin(), cfg.devices.end(), affinity) == cfg.devices.end())
            throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                             "op " + op + " has affinity '" + affinity + "', which is not in the HETERO device list " +
                                 cfg.list_text() + "; give it one of " + cfg.list_text() +
                                 " or add the device to the list");
    }
    if (with.empty() || missing == 0) return;
    if (missing > 3) without += " and " + std::to_string(missing - 3) + " more";
    throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                     "op " + with + ", so the automatic mode is off and every op needs an affinity, but " + without +
                         (missing == 1 ? " has" : " have") +
                         " none; set them all (start from core.query_model(model, \"HETERO:" + cfg.list_text() +
                         "\"), which ignores affinities) or remove them all to let HETERO choose");
}
// The device of the patterns that find op `n`'s name ("" for none), counting each pattern's finds;
// patterns naming different devices for one op are an error, as no order among them is given.
std::string pattern_affinity(const sdk::GraphView& g, size_t n, const HeteroConfig& cfg, std::vector<size_t>& found) {
    const std::string name = g.node_name(n);
    std::string device, first;
    for (size_t k = 0; k < cfg.affinity_patterns.size(); ++k) {
        const HeteroConfig::AffinityPattern& pattern = cfg.affinity_patterns[k];
        if (!std::regex_search(name, pattern.regex)) continue;
        ++found[k];
        if (!device.empty() && device != pattern.device)
            throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT,
                             "op '" + name + "' matches HETERO_AFFINITY_PATTERNS '" + first + "' (" + device + ") and '" +
                                 pattern.text + "' (" + pattern.device + "); make the patterns exclusive");
        if (device.empty()) device = pattern.device, first = pattern.text;
    }
    return device;
}

// A device that fails while answering the query (MOSAIC_ERROR_DEVICE: its isolated process died,
// its driver broke) is taken as one that runs none of the ops, said in a warning and in each op's
// reason, as compile treats a device that fails there; any other error of the query stays an error.
std::vector<sdk::Device::Support> query_or_none(const sdk::GraphView& g, const std::string& dev,
                                                const HeteroConfig& cfg, const HostClient& host) {
    try {
        return host.query(dev, g.raw(), cfg.device_config(dev));
    } catch (const sdk::Error& e) {
        if (e.code() != MOSAIC_ERROR_DEVICE) throw;
        const std::string what = dev + " failed while answering which ops of model '" + g.name() + "' it runs: " + e.what();
        sdk::Host::log(MOSAIC_LOG_WARNING, "HETERO",
                       what + "; HETERO goes on as if " + dev + " supported none of them");
        return std::vector<sdk::Device::Support>(g.node_count(), {false, what});
    }
}

}  // namespace

Placement place(const sdk::GraphView& g, const HeteroConfig& cfg, const HostClient& host) {
    const size_t count = g.node_count();
    Placement p;
    p.device.assign(count, "");
    p.passed_over.assign(count, "");
    p.why.assign(count, "");
    p.manual.assign(count, false);
    p.unsupported.assign(count, "");
    auto answer = [&](const std::string& dev) -> const std::vector<sdk::Device::Support>& {
        auto it = p.answers.find(dev);
        if (it == p.answers.end())
            it = p.answers.emplace(dev, query_or_none(g, dev, cfg, host)).first;
        return it->second;
    };
    for (const std::string& dev : cfg.devices) answer(dev);
    check_manual_mode(g, cfg);
    const std::vector<bool> known = reference::compile_time_nodes(g);

    std::vector<size_t> found(cfg.affinity_patterns.size(), 0);  // ops each pattern found
    for (size_t n = 0; n < count; ++n) {
        if (!is_placed_op(g, n)) continue;
        const std::string name = g.node_name(n), type = g.type(n);
        const std::string affinity = g.rt_info(n, "affinity");
        // A pattern is an affinity set by hand, and one in the op's runtime info comes first.
        const std::string by = affinity.empty() ? pattern_affinity(g, n, cfg, found) : std::string();
        if (!by.empty()) {
            if (!answer(by)[n].supported) {
                if (known[n]) continue;  // computed by HETERO (constant_expressions.hpp)
                throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED,
                                 "op '" + name + "' (" + type + ") matches a HETERO_AFFINITY_PATTERNS pattern for " + by +
                                     ", but " + by + " cannot run it: " + answer(by)[n].reason +
                                     "; narrow the pattern so that it leaves the op out, or map it to a device that runs it");
            }
            p.device[n] = by;
            p.manual[n] = true;
            p.why[n] = "chosen: " + by + ", by HETERO_AFFINITY_PATTERNS";
            continue;
        }
        if (!affinity.empty()) {
            const std::vector<sdk::Device::Support>* support = nullptr;
            try {
                support = &answer(affinity);
            } catch (const std::exception& e) {
                throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "op '" + name + "' (" + type + ") has affinity '" +
                                                                    affinity + "', which cannot be used: " + e.what() +
                                                                    "; fix the op's \"affinity\" runtime info or remove it "
                                                                    "to let HETERO choose");
            }
            // An op over constants its device cannot run is computed by HETERO instead
            // (constant_expressions.hpp), as are those no device runs.
            if (!(*support)[n].supported && known[n]) {
                p.manual[n] = true;
                continue;
            }
            if (!(*support)[n].supported)
                throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED,
                                 "op '" + name + "' (" + type + ") has affinity '" + affinity + "', but " + affinity +
                                     " cannot run it: " + (*support)[n].reason +
                                     "; give it a device that supports it or remove the affinity to let HETERO choose");
            p.device[n] = affinity;
            p.manual[n] = true;
            p.why[n] = "chosen: " + affinity + ", set by the op's affinity runtime info";
            continue;
        }
        std::string reasons;
        for (const std::string& dev : cfg.devices) {
            const sdk::Device::Support& s = answer(dev)[n];
            if (s.supported) {
                p.device[n] = dev;
                p.why[n] = "chosen: " + dev + ", the first device in priority order that supports it";
                break;
            }
            p.passed_over[n] += dev + ": " + s.reason + "\n";
            reasons += (reasons.empty() ? "" : "; ") + dev + ": " + s.reason;
        }
        if (p.device[n].empty()) p.unsupported[n] = reasons;
    }
    // A pattern that finds nothing is likely a typo; it is not an error, as the same properties
    // also compile control-flow bodies, which hold other ops.
    for (size_t k = 0; k < found.size(); ++k)
        if (!found[k])
            sdk::Host::log(MOSAIC_LOG_WARNING, "HETERO",
                           "HETERO_AFFINITY_PATTERNS: '" + cfg.affinity_patterns[k].text + "' finds no op of model '" +
                               g.name() + "'; compare it with the op names `mosaic query` lists");
    return p;
}

void keep_on_one_device(const sdk::GraphView& g, Placement& p, const HeteroConfig& cfg) {
    std::vector<size_t> ops;
    for (size_t n = 0; n < g.node_count(); ++n) {
        if (p.manual[n]) return;
        // Ops no device runs are HETERO's to compute at compile time (constant_expressions.hpp) or an error.
        if (is_placed_op(g, n) && !p.device[n].empty()) ops.push_back(n);
    }
    for (const std::string& dev : cfg.devices) {
        if (!std::all_of(ops.begin(), ops.end(), [&](size_t n) { return p.supports(dev, n); })) continue;
        for (size_t n : ops) {
            if (p.device[n] == dev) continue;
            p.passed_over[n] += p.device[n] + ": runs it, but not every op of the model\n";
            p.device[n] = dev;
        }
        for (size_t n : ops) p.why[n] = "chosen: " + dev + ", the first device that runs every op of the model (ONE_DEVICE)";
        return;
    }
}

void require_all_placed(const sdk::GraphView& g, const Placement& p, const HeteroConfig& cfg) {
    std::string list;
    size_t missing = 0;
    for (size_t n = 0; n < g.node_count(); ++n)
        if (!p.unsupported[n].empty()) {
            ++missing;
            list += "\n  '" + g.node_name(n) + "' (" + g.type(n) + "-" + g.version(n) + "): " + p.unsupported[n];
        }
    if (missing)
        throw sdk::Error(MOSAIC_ERROR_NOT_SUPPORTED,
                         std::to_string(missing) + " op(s) of model '" + g.name() + "' run on none of the devices " +
                             cfg.list_text() + ":" + list +
                             "\nadd a device that supports them to the list (e.g. HETERO:" + cfg.list_text() +
                             ",REFERENCE)");
}

}  // namespace mosaic::hetero
