// Latency figures of a benchmark run, as benchmark_app reports them.
#pragma once

#include <vector>

namespace mosaic::cli {

struct LatencyStats {
    double median = 0, average = 0, min = 0, max = 0;  // milliseconds
};

// `latencies_ms` must not be empty; the median of an even count is the mean of the middle two.
LatencyStats latency_stats(std::vector<double> latencies_ms);

}  // namespace mosaic::cli
