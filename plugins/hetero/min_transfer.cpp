#include "min_transfer.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

namespace mosaic::hetero {

namespace {

class CostModel {
public:
    CostModel(const sdk::GraphView& g, const HostClient& host, double overhead_us)
        : g_(g), host_(host), overhead_(overhead_us) {
        consumers_.resize(g.node_count());
        for (size_t n = 0; n < g.node_count(); ++n)
            for (size_t i = 0; i < g.input_count(n); ++i) {
                const sdk::PortRef src = g.input(n, i);
                if (src.node < g.node_count()) consumers_[src.node].push_back({n, src.port});
            }
    }

    const sdk::OpCost& estimate(const std::string& device, size_t node) {
        auto key = std::make_pair(device, node);
        auto it = cache_.find(key);
        if (it == cache_.end()) it = cache_.emplace(key, host_.estimate_cost(device, g_.raw(), node)).first;
        return it->second;
    }

    double compute(const std::string& device, size_t node) { return estimate(device, node).compute_us; }

    // The transfers of output `port` of `node` under `device` (per node).
    double tensor(size_t node, size_t port, const std::vector<std::string>& device) {
        const std::string& from = device[node];
        if (from.empty()) return 0;  // model inputs and weights are in host memory already
        const double bytes = static_cast<double>(shape_size(g_.output_shape(node, port))) *
                             element_size(g_.output_type(node, port));
        std::map<std::string, size_t> readers;  // other device -> one of its reading ops
        for (const sdk::PortRef& c : consumers_[node])
            if (c.port == port && !device[c.node].empty() && device[c.node] != from) readers.emplace(device[c.node], c.node);
        double cost = 0;
        for (const auto& [to, reader] : readers) {
            const double rate = std::min(estimate(from, node).bytes_per_us, estimate(to, reader).bytes_per_us);
            cost += overhead_ + (rate > 0 ? bytes / rate : 0);
        }
        return cost;
    }

    const std::vector<sdk::PortRef>& consumers(size_t node) const { return consumers_[node]; }

private:
    const sdk::GraphView& g_;
    const HostClient& host_;
    double overhead_;
    std::vector<std::vector<sdk::PortRef>> consumers_;  // per node: (consumer, port read)
    std::map<std::pair<std::string, size_t>, sdk::OpCost> cache_;
};

// Connected ops on one device; ops with no device (boundary) are not in any island.
std::vector<std::vector<size_t>> islands(const sdk::GraphView& g, const std::vector<std::string>& device) {
    std::vector<size_t> parent(g.node_count());
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](size_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    for (size_t n = 0; n < g.node_count(); ++n)
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const size_t src = g.input(n, i).node;
            if (src < g.node_count() && !device[n].empty() && device[src] == device[n]) parent[find(src)] = find(n);
        }
    std::map<size_t, std::vector<size_t>> groups;
    for (size_t n = 0; n < g.node_count(); ++n)
        if (!device[n].empty()) groups[find(n)].push_back(n);
    std::vector<std::vector<size_t>> out;
    for (auto& [root, members] : groups) out.push_back(std::move(members));
    return out;
}

}  // namespace

void minimize_transfers(const sdk::GraphView& g, Placement& placement, const HeteroConfig& cfg,
                        const HostClient& host) {
    CostModel costs(g, host, cfg.transfer_overhead_us);
    std::vector<std::string>& device = placement.device;
    const size_t limit = 4 * g.node_count() + 4;  // each move strictly lowers the cost; this only bounds the work
    for (size_t round = 0; round < limit; ++round) {
        struct Move {
            std::vector<size_t> island;
            std::string to;
            double delta = 0;
        } best;
        for (const std::vector<size_t>& island : islands(g, device)) {
            if (std::any_of(island.begin(), island.end(), [&](size_t n) { return placement.manual[n]; })) continue;
            const std::string from = device[island.front()];
            std::set<std::string> neighbours;
            std::set<std::pair<size_t, size_t>> tensors;  // every tensor the island reads or writes
            for (size_t n : island) {
                for (size_t i = 0; i < g.input_count(n); ++i) {
                    const sdk::PortRef src = g.input(n, i);
                    tensors.insert({src.node, src.port});
                    if (!device[src.node].empty() && device[src.node] != from) neighbours.insert(device[src.node]);
                }
                for (const sdk::PortRef& c : costs.consumers(n)) {
                    tensors.insert({n, c.port});
                    if (!device[c.node].empty() && device[c.node] != from) neighbours.insert(device[c.node]);
                }
            }
            for (const std::string& to : neighbours) {
                if (!std::all_of(island.begin(), island.end(), [&](size_t n) { return placement.supports(to, n); }))
                    continue;
                double before = 0, after = 0;
                for (size_t n : island) before += costs.compute(from, n), after += costs.compute(to, n);
                for (const auto& [node, port] : tensors) before += costs.tensor(node, port, device);
                for (size_t n : island) device[n] = to;
                for (const auto& [node, port] : tensors) after += costs.tensor(node, port, device);
                for (size_t n : island) device[n] = from;
                const double delta = after - before;
                if (delta < -1e-6 && delta < best.delta) best = {island, to, delta};
            }
        }
        if (best.island.empty()) return;
        const std::string from = device[best.island.front()];
        char saved[64];
        std::snprintf(saved, sizeof(saved), "%.1f", -best.delta);
        for (size_t n : best.island) {
            device[n] = best.to;
            placement.why[n] = "chosen: " + best.to + ", moved from " + from + " by MIN_TRANSFER with its " +
                               std::to_string(best.island.size()) + "-op island (saves an estimated " + saved +
                               " us of transfers and compute)";
        }
    }
}

}  // namespace mosaic::hetero
