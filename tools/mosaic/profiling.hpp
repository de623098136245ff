// Printing profiling records in the layout of OpenVINO's benchmark_app -pc, one line per record:
//   <layer>: EXECUTED layerType: <type> realTime: <us> cpu: <us> execType: <impl>
// then "Total time: <N> microseconds", the sum of realTime. With -pcsort each line also ends in
// " proportion: <P>%" (its share of the total, N/A when it rounds to 0.00), as benchmark_app's
// sorted table does.
#pragma once

#include <mosaic/infer_request.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace mosaic::cli {

// -pcsort: no_sort keeps the device's order, sort puts the longest realTime first, simple_sort
// does too and leaves out records that did not run.
enum class PcSort { no_sort, sort, simple_sort };

// Throws UsageError for anything but the three names.
PcSort parse_pcsort(const std::string& text);

const char* status_name(ProfilingInfo::Status status);
std::vector<ProfilingInfo> sort_profiling(std::vector<ProfilingInfo> records, PcSort order);
void print_profiling(std::ostream& out, const std::vector<ProfilingInfo>& records, bool proportion = false);

// The mean of each node's times over several requests, nodes in the order first seen (records are
// matched by node name), as benchmark_app's average_counters report computes it.
std::vector<ProfilingInfo> average_profiling(const std::vector<std::vector<ProfilingInfo>>& per_request);

}  // namespace mosaic::cli
