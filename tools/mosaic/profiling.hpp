// Printing profiling records in the layout of OpenVINO's benchmark_app -pc, one line per record:
//   <layer>: EXECUTED layerType: <type> realTime: <us> cpu: <us> execType: <impl>
// then "Total time: <N> microseconds", the sum of realTime.
#pragma once

#include <mosaic/infer_request.hpp>

#include <ostream>
#include <vector>

namespace mosaic::cli {

const char* status_name(ProfilingInfo::Status status);
void print_profiling(std::ostream& out, const std::vector<ProfilingInfo>& records);

}  // namespace mosaic::cli
