#include "pipeline_cuts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mosaic::hetero {

namespace {

// What the estimate of a range of the op order needs, computed once: positions are indices into
// `ops` (the automatically placed ops, in node order).
class RangeEstimates {
public:
    RangeEstimates(const sdk::GraphView& g, const Placement& p, const HeteroConfig& cfg, const OpTime& time)
        : cfg_(cfg) {
        for (size_t n = 0; n < g.node_count(); ++n)
            if (is_placed_op(g, n) && !p.device[n].empty() && !p.manual[n]) ops_.push_back(n);
        const size_t m = ops_.size();
        position_.assign(g.node_count(), SIZE_MAX);
        for (size_t k = 0; k < m; ++k) position_[ops_[k]] = k;
        live_.assign(m, 0);
        for (size_t kind = 0; kind < 2; ++kind) {
            first_held_[kind].assign(m + 1, 0);
            last_held_[kind].assign(m + 1, 0);
        }
        crossing_.assign(m + 1, 0);
        sweep(g);
        times_.resize(cfg.devices.size());
        for (size_t d = 0; d < cfg.devices.size(); ++d) {
            times_[d].assign(m + 1, 0);
            for (size_t k = 0; k < m; ++k) {
                const bool runs = p.supports(cfg.devices[d], ops_[k]);
                const sdk::OpCost cost = runs ? time(cfg.devices[d], ops_[k]) : sdk::OpCost{};
                times_[d][k + 1] = times_[d][k] + cost.compute_us;
                if (runs && cost.bytes_per_us > 0) rate_ = std::min(rate_, cost.bytes_per_us);
            }
        }
        build_peaks();
    }

    size_t size() const { return ops_.size(); }
    size_t node(size_t position) const { return ops_[position]; }

    // Bytes device `d` (stage index) holds for positions [a, b): weights once, state and the live
    // peak per request in flight (weights and state exact for the first and last stage, by their
    // first reader for those between).
    uint64_t bytes(size_t d, size_t a, size_t b) const {
        if (a >= b) return 0;
        return held(kWeights, d, a, b) + cfg_.requests * (held(kState, d, a, b) + peak(a, b));
    }
    double time(size_t d, size_t a, size_t b) const { return times_[d][b] - times_[d][a]; }
    // Bytes of the tensors produced before position c and read at or after it (0 at the ends).
    uint64_t crossing(size_t c) const { return c == 0 || c >= size() ? 0 : crossing_[c]; }
    double transfer_us(size_t c) const {
        const uint64_t bytes = crossing(c);
        return bytes ? cfg_.transfer_overhead_us + static_cast<double>(bytes) / rate_ : 0;
    }

private:
    enum Kind : size_t { kWeights = 0, kState = 1 };
    uint64_t held(Kind kind, size_t d, size_t a, size_t b) const {
        const size_t last = cfg_.devices.size() - 1;
        const auto& first = first_held_[kind];
        return d == 0 ? first[b] : d == last ? last_held_[kind][a] : first[b] - first[a];
    }

    // One pass in node order: the bytes alive while each op runs (produced and not yet read for the
    // last time, its outputs included); weights and state at their first and last reader among the
    // ops; tensors crossing each position.
    void sweep(const sdk::GraphView& g) {
        const size_t m = ops_.size();
        std::vector<size_t> last_reader(g.node_count(), 0), first_op(g.node_count(), SIZE_MAX), last_op(g.node_count(), 0);
        std::vector<std::vector<uint64_t>> out_bytes(g.node_count());
        for (size_t n = 0; n < g.node_count(); ++n) {
            for (size_t o = 0; o < g.output_count(n); ++o) out_bytes[n].push_back(value_bytes(g, n, o));
            for (size_t i = 0; i < g.input_count(n); ++i) {
                const size_t src = g.input(n, i).node;
                last_reader[src] = std::max(last_reader[src], n);
                if (position_[n] != SIZE_MAX) {
                    first_op[src] = std::min(first_op[src], position_[n]);
                    last_op[src] = std::max(last_op[src], position_[n]);
                }
            }
        }
        std::vector<int64_t> delta(m + 2, 0);
        std::vector<uint64_t> first_add[2] = {std::vector<uint64_t>(m + 1, 0), std::vector<uint64_t>(m + 1, 0)};
        std::vector<uint64_t> last_add[2] = {std::vector<uint64_t>(m + 1, 0), std::vector<uint64_t>(m + 1, 0)};
        uint64_t live = 0;
        std::vector<std::vector<size_t>> frees(g.node_count());
        for (size_t n = 0; n < g.node_count(); ++n) {
            uint64_t outputs = 0;
            for (uint64_t b : out_bytes[n]) outputs += b;
            const bool kept = g.is_constant(n) || is_state(g, n);
            if (kept && first_op[n] != SIZE_MAX) {  // weights and state, by the ops reading them
                const Kind kind = g.is_constant(n) ? kWeights : kState;
                const uint64_t bytes = kind == kWeights ? outputs : state_bytes(g, n);
                first_add[kind][first_op[n]] += bytes;
                last_add[kind][last_op[n]] += bytes;
            }
            if (position_[n] != SIZE_MAX) live_[position_[n]] = live + outputs;
            if (!kept) {
                live += outputs;
                frees[last_reader[n] > n ? last_reader[n] : n].push_back(n);
            }
            // Crossing: an op's output read by ops at later positions crosses every cut between.
            if (position_[n] != SIZE_MAX && last_op[n] > position_[n]) {
                delta[position_[n] + 1] += static_cast<int64_t>(outputs);
                delta[last_op[n] + 1] -= static_cast<int64_t>(outputs);
            }
            for (size_t dead : frees[n])
                for (uint64_t b : out_bytes[dead]) live -= b;
        }
        int64_t running = 0;
        for (size_t c = 0; c <= m; ++c) {
            running += delta[c];
            crossing_[c] = static_cast<uint64_t>(std::max<int64_t>(running, 0));
        }
        for (size_t kind = 0; kind < 2; ++kind) {
            for (size_t k = 0; k < m; ++k) first_held_[kind][k + 1] = first_held_[kind][k] + first_add[kind][k];
            // last_held_[kind][a]: what ops at positions >= a read, counted at their last reader.
            for (size_t k = m; k-- > 0;) last_held_[kind][k] = last_held_[kind][k + 1] + last_add[kind][k];
        }
    }

    // A sparse table over live_ for the peak of any range in constant time.
    void build_peaks() {
        const size_t m = live_.size();
        table_.push_back(live_);
        for (size_t span = 1; (span << 1) <= m; span <<= 1) {
            const std::vector<uint64_t>& prev = table_.back();
            std::vector<uint64_t> next(m - (span << 1) + 1);
            for (size_t i = 0; i < next.size(); ++i) next[i] = std::max(prev[i], prev[i + span]);
            table_.push_back(std::move(next));
        }
    }
    uint64_t peak(size_t a, size_t b) const {  // max of live_[a, b), a < b
        size_t level = 0;
        while ((size_t{2} << level) <= b - a) ++level;
        return std::max(table_[level][a], table_[level][b - (size_t{1} << level)]);
    }

    const HeteroConfig& cfg_;
    std::vector<size_t> ops_, position_;
    std::vector<uint64_t> live_, crossing_;
    std::vector<uint64_t> first_held_[2], last_held_[2];  // by Kind: prefix sums at first readers, suffix at last
    std::vector<std::vector<double>> times_;  // per device: prefix sums of the ops' times
    std::vector<std::vector<uint64_t>> table_;
    double rate_ = std::numeric_limits<double>::infinity();
};

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// can_cover[d][a]: positions [a, m) fit stages d.. (some possibly empty).
std::vector<std::vector<bool>> coverable(const RangeEstimates& e, const MemoryBudgets& budgets, const HeteroConfig& cfg) {
    const size_t k = cfg.devices.size(), m = e.size();
    std::vector<std::vector<bool>> can(k, std::vector<bool>(m + 1, false));
    for (size_t a = 0; a <= m; ++a) can[k - 1][a] = e.bytes(k - 1, a, m) <= budgets.at(cfg.devices[k - 1]);
    for (size_t d = k - 1; d-- > 0;)
        for (size_t a = 0; a <= m; ++a)
            for (size_t b = a; b <= m && !can[d][a]; ++b)
                can[d][a] = can[d + 1][b] && e.bytes(d, a, b) <= budgets.at(cfg.devices[d]);
    return can;
}

// One request: each stage as long as fits (the rest still fitting the devices after it), then
// moved back within its last tenth to the position where the fewest bytes cross.
std::vector<size_t> fill_cuts(const RangeEstimates& e, const MemoryBudgets& budgets, const HeteroConfig& cfg) {
    const size_t k = cfg.devices.size(), m = e.size();
    const auto can = coverable(e, budgets, cfg);
    if (!can[0][0]) return {};
    std::vector<size_t> cuts;
    size_t a = 0;
    for (size_t d = 0; d + 1 < k; ++d) {
        size_t longest = a;
        for (size_t b = a; b <= m; ++b)
            if (can[d + 1][b] && e.bytes(d, a, b) <= budgets.at(cfg.devices[d])) longest = b;
        size_t best = longest;
        const size_t from = longest - (longest - a) / 10;
        for (size_t c = longest; c-- > from;)
            if (can[d + 1][c] && e.crossing(c) < e.crossing(best)) best = c;
        cuts.push_back(best);
        a = best;
    }
    return cuts;
}

// More requests: the slowest stage (its time and the crossing into it) as fast as can be, then the
// fewest bytes crossing.
std::vector<size_t> balanced_cuts(const RangeEstimates& e, const MemoryBudgets& budgets, const HeteroConfig& cfg) {
    const size_t k = cfg.devices.size(), m = e.size();
    struct Best {
        double slowest = kInfinity;
        uint64_t crossing = 0;
        size_t from = 0;
    };
    auto better = [](const Best& x, const Best& y) {
        return x.slowest < y.slowest - 1e-9 || (std::abs(x.slowest - y.slowest) <= 1e-9 && x.crossing < y.crossing);
    };
    std::vector<std::vector<Best>> best(k, std::vector<Best>(m + 1));
    for (size_t b = 0; b <= m; ++b)
        if (e.bytes(0, 0, b) <= budgets.at(cfg.devices[0])) best[0][b] = {e.time(0, 0, b), 0, 0};
    for (size_t d = 1; d < k; ++d) {
        const bool last = d + 1 == k;
        for (size_t b = last ? m : 0; b <= m; ++b)
            for (size_t a = 0; a <= b; ++a) {
                const Best& before = best[d - 1][a];
                if (before.slowest == kInfinity || e.bytes(d, a, b) > budgets.at(cfg.devices[d])) continue;
                const bool crosses = a < b && a > 0;
                const Best here{std::max(before.slowest, e.time(d, a, b) + (crosses ? e.transfer_us(a) : 0)),
                                before.crossing + (crosses ? e.crossing(a) : 0), a};
                if (better(here, best[d][b])) best[d][b] = here;
            }
    }
    if (best[k - 1][m].slowest == kInfinity) return {};
    std::vector<size_t> cuts(k - 1);
    size_t b = m;
    for (size_t d = k - 1; d > 0; --d) {
        cuts[d - 1] = best[d][b].from;
        b = cuts[d - 1];
    }
    return cuts;
}

}  // namespace

StageCuts choose_cuts(const sdk::GraphView& g, const Placement& p, const HeteroConfig& cfg, const MemoryBudgets& budgets,
                      const OpTime& time) {
    if (cfg.devices.size() < 2) return {};
    const RangeEstimates e(g, p, cfg, time);
    if (e.size() == 0) return {};
    const bool balance = cfg.requests > 1;
    const std::vector<size_t> positions = balance ? balanced_cuts(e, budgets, cfg) : fill_cuts(e, budgets, cfg);
    if (positions.empty()) return {};
    StageCuts cuts;
    for (size_t c : positions) cuts.nodes.push_back(c < e.size() ? e.node(c) : g.node_count());
    cuts.rule = balance ? "stages cut so that the slowest is fastest for " + std::to_string(cfg.requests) +
                              " requests in flight (PERFORMANCE_HINT_NUM_REQUESTS)"
                        : "each stage as long as fits, cut where the fewest bytes cross";
    return cuts;
}

}  // namespace mosaic::hetero
