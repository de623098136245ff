#include "profiling.hpp"

#include "common.hpp"

#include <algorithm>
#include <cstdio>

namespace mosaic::cli {

PcSort parse_pcsort(const std::string& text) {
    if (text == "no_sort") return PcSort::no_sort;
    if (text == "sort") return PcSort::sort;
    if (text == "simple_sort") return PcSort::simple_sort;
    throw UsageError("-pcsort '" + text + "' is not a sort order; use sort, no_sort or simple_sort");
}

const char* status_name(ProfilingInfo::Status status) {
    switch (status) {
        case ProfilingInfo::Status::executed: return "EXECUTED";
        case ProfilingInfo::Status::not_run: return "NOT_RUN";
        case ProfilingInfo::Status::optimized_out: return "OPTIMIZED_OUT";
    }
    return "NOT_RUN";
}

std::vector<ProfilingInfo> sort_profiling(std::vector<ProfilingInfo> records, PcSort order) {
    if (order == PcSort::no_sort) return records;
    if (order == PcSort::simple_sort)
        records.erase(std::remove_if(records.begin(), records.end(),
                                     [](const ProfilingInfo& r) { return r.status != ProfilingInfo::Status::executed; }),
                      records.end());
    std::stable_sort(records.begin(), records.end(),
                     [](const ProfilingInfo& a, const ProfilingInfo& b) { return a.real_time > b.real_time; });
    return records;
}

void print_profiling(std::ostream& out, const std::vector<ProfilingInfo>& records, bool proportion) {
    long long total = 0;
    for (const auto& r : records) total += r.real_time.count();
    for (const auto& r : records) {
        out << r.node_name << ": " << status_name(r.status) << " layerType: " << r.node_type
            << " realTime: " << r.real_time.count() << " cpu: " << r.cpu_time.count() << " execType: " << r.exec_type;
        if (proportion) {
            char share[32] = "N/A";
            if (total > 0) std::snprintf(share, sizeof(share), "%.2f", 100.0 * static_cast<double>(r.real_time.count()) / static_cast<double>(total));
            out << " proportion: " << (std::string(share) == "0.00" ? "N/A" : share) << "%";
        }
        out << "\n";
    }
    out << "Total time: " << total << " microseconds\n";
}

std::vector<ProfilingInfo> average_profiling(const std::vector<std::vector<ProfilingInfo>>& per_request) {
    std::vector<ProfilingInfo> sums;
    for (const auto& records : per_request)
        for (const auto& r : records) {
            auto it = std::find_if(sums.begin(), sums.end(), [&](const ProfilingInfo& s) { return s.node_name == r.node_name; });
            if (it == sums.end()) {
                sums.push_back(r);
            } else {
                it->real_time += r.real_time;
                it->cpu_time += r.cpu_time;
            }
        }
    const auto n = static_cast<long long>(std::max<size_t>(per_request.size(), 1));
    for (auto& s : sums) {
        s.real_time /= n;
        s.cpu_time /= n;
    }
    return sums;
}

}  // namespace mosaic::cli
