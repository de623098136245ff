#include "partition.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <queue>
#include <set>

namespace mosaic::hetero {

namespace {

// Clusters under construction: union-find over cluster ids, and per cluster the set of clusters
// that reach it (its ancestors), as bit sets indexed by cluster id.
class Clusters {
public:
    size_t create(const std::string& device, size_t capacity) {
        const size_t id = parent_.size();
        parent_.push_back(id);
        device_.push_back(device);
        ancestors_.emplace_back((capacity + 63) / 64, 0);
        return id;
    }
    size_t find(size_t c) {
        while (parent_[c] != c) c = parent_[c] = parent_[parent_[c]];
        return c;
    }
    const std::string& device(size_t c) const { return device_[c]; }
    bool reaches(size_t from, size_t to) const { return (ancestors_[to][from / 64] >> (from % 64)) & 1u; }
    // Adds `from` and its ancestors to the ancestors of `to`.
    void add_ancestry(size_t from, size_t to) {
        auto& a = ancestors_[to];
        const auto& b = ancestors_[from];
        for (size_t w = 0; w < a.size(); ++w) a[w] |= b[w];
        a[from / 64] |= uint64_t{1} << (from % 64);
    }
    // Merges `other` into `into`; every cluster `other` reached now reaches `into`.
    void merge(size_t other, size_t into) {
        parent_[other] = into;
        auto& a = ancestors_[into];
        const auto& b = ancestors_[other];
        for (size_t w = 0; w < a.size(); ++w) a[w] |= b[w];
        for (size_t c = 0; c < parent_.size(); ++c)
            if (reaches(other, c)) ancestors_[c][into / 64] |= uint64_t{1} << (into % 64);
    }
    // After `c` gained ancestors (a merge, a new producer), the clusters it reaches inherit them:
    // ancestor sets stay transitively closed, which is what reaches() relies on.
    void propagate(size_t c) {
        for (size_t d = 0; d < parent_.size(); ++d) {
            if (d == c || parent_[d] != d || !reaches(c, d)) continue;
            auto& a = ancestors_[d];
            const auto& b = ancestors_[c];
            for (size_t w = 0; w < a.size(); ++w) a[w] |= b[w];
        }
    }

private:
    std::vector<size_t> parent_;
    std::vector<std::string> device_;
    std::vector<std::vector<uint64_t>> ancestors_;
};

}  // namespace

std::vector<Cluster> partition(const sdk::GraphView& g, const std::vector<std::string>& device) {
    const size_t count = g.node_count();
    const size_t ops = static_cast<size_t>(std::count_if(device.begin(), device.end(), [](const auto& d) { return !d.empty(); }));
    Clusters clusters;
    std::vector<size_t> cluster_of(count, SIZE_MAX);

    for (size_t n = 0; n < count; ++n) {
        if (device[n].empty()) continue;
        std::set<size_t> producers;  // clusters of the op's producers (current ids)
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const size_t src = g.input(n, i).node;
            if (src < count && cluster_of[src] != SIZE_MAX) producers.insert(clusters.find(cluster_of[src]));
        }
        // A same-device producer cluster can take the op unless it reaches the op through another one.
        std::vector<size_t> joinable;
        for (size_t c : producers) {
            if (clusters.device(c) != device[n]) continue;
            bool through_other = false;
            for (size_t x : producers) through_other = through_other || (x != c && clusters.reaches(c, x));
            if (!through_other) joinable.push_back(c);
        }
        size_t target;
        if (joinable.empty()) {
            target = clusters.create(device[n], ops);
        } else {
            target = joinable.front();
            for (size_t k = 1; k < joinable.size(); ++k) clusters.merge(joinable[k], target);
        }
        for (size_t x : producers)
            if (std::find(joinable.begin(), joinable.end(), x) == joinable.end()) clusters.add_ancestry(x, target);
        if (!joinable.empty()) clusters.propagate(target);
        cluster_of[n] = target;
    }

    // Final clusters, their members in topological order, and the edges between them.
    std::map<size_t, size_t> index;  // root id -> position in `result` (by first member)
    std::vector<Cluster> result;
    for (size_t n = 0; n < count; ++n) {
        if (cluster_of[n] == SIZE_MAX) continue;
        const size_t root = clusters.find(cluster_of[n]);
        auto [it, fresh] = index.emplace(root, result.size());
        if (fresh) result.push_back({device[n], {}, {}});
        result[it->second].nodes.push_back(n);
    }
    std::vector<std::set<size_t>> deps(result.size());
    for (size_t n = 0; n < count; ++n) {
        if (cluster_of[n] == SIZE_MAX) continue;
        const size_t to = index.at(clusters.find(cluster_of[n]));
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const size_t src = g.input(n, i).node;
            if (src >= count || cluster_of[src] == SIZE_MAX) continue;
            const size_t from = index.at(clusters.find(cluster_of[src]));
            if (from != to) deps[to].insert(from);
        }
    }
    // Topological order of the clusters (Kahn), earliest first member first.
    std::vector<size_t> pending(result.size(), 0);
    std::vector<std::vector<size_t>> users(result.size());
    for (size_t c = 0; c < result.size(); ++c) {
        pending[c] = deps[c].size();
        for (size_t d : deps[c]) users[d].push_back(c);
    }
    std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
    for (size_t c = 0; c < result.size(); ++c)
        if (!pending[c]) ready.push(c);
    std::vector<size_t> order, position(result.size());
    while (!ready.empty()) {
        const size_t c = ready.top();
        ready.pop();
        position[c] = order.size();
        order.push_back(c);
        for (size_t u : users[c])
            if (--pending[u] == 0) ready.push(u);
    }
    if (order.size() != result.size())
        throw std::logic_error("HETERO partition produced a cyclic subgraph graph (a bug; please report the model)");
    std::vector<Cluster> sorted;
    for (size_t c : order) {
        Cluster cl = std::move(result[c]);
        for (size_t d : deps[c]) cl.depends_on.push_back(position[d]);
        std::sort(cl.depends_on.begin(), cl.depends_on.end());
        sorted.push_back(std::move(cl));
    }
    return sorted;
}

}  // namespace mosaic::hetero
