#include "profiling.hpp"

namespace mosaic::cli {

const char* status_name(ProfilingInfo::Status status) {
    switch (status) {
        case ProfilingInfo::Status::executed: return "EXECUTED";
        case ProfilingInfo::Status::not_run: return "NOT_RUN";
        case ProfilingInfo::Status::optimized_out: return "OPTIMIZED_OUT";
    }
    return "NOT_RUN";
}

void print_profiling(std::ostream& out, const std::vector<ProfilingInfo>& records) {
    long long total = 0;
    for (const auto& r : records) {
        out << r.node_name << ": " << status_name(r.status) << " layerType: " << r.node_type
            << " realTime: " << r.real_time.count() << " cpu: " << r.cpu_time.count() << " execType: " << r.exec_type
            << "\n";
        total += r.real_time.count();
    }
    out << "Total time: " << total << " microseconds\n";
}

}  // namespace mosaic::cli
