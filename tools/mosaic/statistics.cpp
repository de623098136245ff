#include "statistics.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace mosaic::cli {

LatencyStats latency_stats(std::vector<double> v) {
    if (v.empty()) throw std::logic_error("latency_stats: no latencies");
    std::sort(v.begin(), v.end());
    LatencyStats s;
    const size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    s.average = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
    s.min = v.front();
    s.max = v.back();
    return s;
}

}  // namespace mosaic::cli
