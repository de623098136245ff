#include "benchmark_report.hpp"

#include "common.hpp"
#include "profiling.hpp"

#include <filesystem>
#include <sstream>

namespace mosaic::cli {

namespace {

struct TypeName {
    ReportType type;
    const char* name;  // as -report_type spells it, and as the counters file names it
};
constexpr TypeName kTypeNames[] = {{ReportType::no_counters, "no_counters"},
                                   {ReportType::average_counters, "average_counters"},
                                   {ReportType::detailed_counters, "detailed_counters"}};

const char* type_name(ReportType t) {
    for (const auto& tn : kTypeNames)
        if (tn.type == t) return tn.name;
    return "no_counters";
}

// A value as benchmark_app's StatisticsVariant::to_string writes it: numbers with std::to_string.
std::string csv_value(const PropertyValue& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
    if (v.is_number()) return std::to_string(v.get<double>());
    return v.dump();
}

double ms(std::chrono::microseconds us) { return static_cast<double>(us.count()) / 1000.0; }

void csv_section(std::ostream& out, const char* title, const std::vector<ReportItem>& items) {
    out << title << ";\n";
    for (const auto& item : items) out << item.csv_name << ";" << csv_value(item.value) << ";\n";
    out << "\n";
}

void csv_counters(std::ostream& out, const std::vector<ProfilingInfo>& records) {
    std::chrono::microseconds total{0}, total_cpu{0};
    out << "layerName;execStatus;layerType;execType;realTime (ms);cpuTime (ms);\n";
    for (const auto& r : records) {
        out << r.node_name << ";" << status_name(r.status) << ";" << r.node_type << ";" << r.exec_type << ";"
            << std::to_string(ms(r.real_time)) << ";" << std::to_string(ms(r.cpu_time)) << ";\n";
        total += r.real_time;
        total_cpu += r.cpu_time;
    }
    out << "Total;;;;" << ms(total) << ";" << ms(total_cpu) << ";\n\n";
}

PropertyValue json_section(const std::vector<ReportItem>& items) {
    PropertyValue out = PropertyValue::object();
    for (const auto& item : items) out[item.json_name] = item.value;
    return out;
}

PropertyValue json_counters(const std::vector<ProfilingInfo>& records) {
    std::chrono::microseconds total{0}, total_cpu{0};
    PropertyValue nodes = PropertyValue::array();
    for (const auto& r : records) {
        nodes.push_back({{"name", r.node_name},
                         {"status", status_name(r.status)},
                         {"node_type", r.node_type},
                         {"exec_type", r.exec_type},
                         {"real_time", ms(r.real_time)},
                         {"cpu_time", ms(r.cpu_time)}});
        total += r.real_time;
        total_cpu += r.cpu_time;
    }
    return {{"nodes", nodes}, {"total_real_time", ms(total)}, {"total_cpu_time", ms(total_cpu)}};
}

std::string statistics_text(bool json, const StatisticsReport& stats) {
    if (json)
        return PropertyValue{{"cmd_options", json_section(stats.command_line)},
                             {"configuration_setup", json_section(stats.configuration)},
                             {"execution_results", json_section(stats.results)}}
                   .dump(4) +
               "\n";
    std::ostringstream out;
    csv_section(out, "Command line parameters", stats.command_line);
    csv_section(out, "Configuration setup", stats.configuration);
    csv_section(out, "Execution results", stats.results);
    return out.str();
}

std::string counters_text(ReportType type, bool json, const std::vector<std::vector<ProfilingInfo>>& per_request) {
    const bool average = type == ReportType::average_counters;
    const std::vector<std::vector<ProfilingInfo>> tables =
        average ? std::vector<std::vector<ProfilingInfo>>{average_profiling(per_request)} : per_request;
    if (json) {
        PropertyValue out = {{"report_type", average ? "average" : "detailed"}};
        if (average) {
            out["avg_performance"] = json_counters(tables.front());
        } else {
            out["detailed_performance"] = PropertyValue::array();
            for (const auto& t : tables) out["detailed_performance"].push_back(json_counters(t));
        }
        return out.dump(4) + "\n";
    }
    std::ostringstream out;
    for (const auto& t : tables) csv_counters(out, t);
    return out.str();
}

}  // namespace

ReportType parse_report_type(const std::string& text) {
    for (const auto& tn : kTypeNames)
        if (text == tn.name) return tn.type;
    throw UsageError("-report_type '" + text +
                     "' is not a report type; use no_counters, average_counters or detailed_counters");
}

std::vector<std::string> write_reports(const std::string& folder, ReportType type, bool json,
                                       const StatisticsReport& stats,
                                       const std::vector<std::vector<ProfilingInfo>>& counters_per_request) {
    const std::filesystem::path dir = folder.empty() ? std::filesystem::path(".") : std::filesystem::path(folder);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw UsageError("cannot create the -report_folder '" + dir.string() + "': " + ec.message());
    const std::string ext = json ? ".json" : ".csv";
    std::vector<std::string> written;
    const std::string statistics = (dir / ("benchmark_report" + ext)).string();
    write_text_file(statistics, statistics_text(json, stats));
    written.push_back(statistics);
    if (has_counters(type)) {
        const std::string counters = (dir / (std::string("benchmark_") + type_name(type) + "_report" + ext)).string();
        write_text_file(counters, counters_text(type, json, counters_per_request));
        written.push_back(counters);
    }
    return written;
}

}  // namespace mosaic::cli
