// The statistics and counters reports of `mosaic benchmark -report_type ... -report_folder DIR`,
// in the files and layouts of OpenVINO's benchmark_app, so that tools reading those carry over:
//   benchmark_report.csv                      sections "Command line parameters", "Configuration
//                                             setup", "Execution results": one "name;value;" a line
//   benchmark_average_counters_report.csv     per-layer counters averaged over the requests
//   benchmark_detailed_counters_report.csv    per-layer counters of every request
// each counters table "layerName;execStatus;layerType;execType;realTime (ms);cpuTime (ms);" with a
// closing "Total" row. With -json_stats the same go to benchmark_report.json and
// benchmark_<type>_report.json instead, keyed by benchmark_app's JSON names.
#pragma once

#include <mosaic/mosaic.hpp>

#include <string>
#include <vector>

namespace mosaic::cli {

enum class ReportType { no_counters, average_counters, detailed_counters };

// Throws UsageError for anything but the three names.
ReportType parse_report_type(const std::string& text);
inline bool has_counters(ReportType t) { return t != ReportType::no_counters; }

struct ReportItem {
    std::string csv_name;   // as benchmark_report.csv names it
    std::string json_name;  // as benchmark_report.json names it
    PropertyValue value;
};

struct StatisticsReport {
    std::vector<ReportItem> command_line;   // the options given, named as on the command line
    std::vector<ReportItem> configuration;  // topology, device, API, batch, requests...
    std::vector<ReportItem> results;        // times, iterations, latencies, throughput
};

// Writes the report files into `folder` (created when missing) and returns their paths. Throws
// UsageError naming a file that cannot be written.
std::vector<std::string> write_reports(const std::string& folder, ReportType type, bool json,
                                       const StatisticsReport& stats,
                                       const std::vector<std::vector<ProfilingInfo>>& counters_per_request);

}  // namespace mosaic::cli
