#include "dot_dump.hpp"

#include <mosaic/sdk/status.hpp>

#include <filesystem>
#include <fstream>
#include <map>

namespace mosaic::hetero {

namespace {

const char* kPalette[] = {"#8dd3c7", "#fdb462", "#bebada", "#fb8072", "#80b1d3", "#b3de69", "#fccde5", "#d9d9d9"};

std::string colour(const std::vector<std::string>& devices, const std::string& device) {
    if (device.empty()) return "#ffffff";
    size_t i = 0;
    while (i < devices.size() && devices[i] != device) ++i;  // unlisted devices (affinity) take the next colours
    return kPalette[i % (sizeof(kPalette) / sizeof(kPalette[0]))];
}

std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

std::string node_line(const sdk::GraphView& g, size_t n, const std::string& device, const std::string& fill) {
    const std::string shape = g.is_parameter(n) || g.is_result(n) ? "ellipse" : (g.is_constant(n) ? "note" : "box");
    return "  n" + std::to_string(n) + " [label=" +
           quoted(g.node_name(n) + "\n" + g.type(n) + (device.empty() ? "" : "\n" + device)) + ", shape=" + shape +
           ", style=filled, fillcolor=" + quoted(fill) + "];\n";
}

std::string edges(const sdk::GraphView& g) {
    std::string out;
    for (size_t n = 0; n < g.node_count(); ++n)
        for (size_t i = 0; i < g.input_count(n); ++i)
            out += "  n" + std::to_string(g.input(n, i).node) + " -> n" + std::to_string(n) + ";\n";
    return out;
}

std::string legend(const std::vector<std::string>& devices) {
    std::string out = "  subgraph cluster_legend { label=\"devices\"; style=dashed;\n";
    for (size_t i = 0; i < devices.size(); ++i)
        out += "    legend" + std::to_string(i) + " [label=" + quoted(devices[i]) +
               ", shape=box, style=filled, fillcolor=" + quoted(colour(devices, devices[i])) + "];\n";
    return out + "  }\n";
}

}  // namespace

std::string affinity_dot(const sdk::GraphView& g, const Placement& placement, const std::vector<std::string>& devices) {
    std::string out = "digraph " + quoted("affinity: " + g.name()) + " {\n  rankdir=TB;\n";
    out += legend(devices);
    for (size_t n = 0; n < g.node_count(); ++n) {
        const std::string device = placement.reported_device(g, n);
        out += node_line(g, n, device, colour(devices, device));
    }
    return out + edges(g) + "}\n";
}

std::string subgraphs_dot(const sdk::GraphView& g, const std::vector<Cluster>& clusters,
                          const std::vector<std::string>& devices) {
    std::string out = "digraph " + quoted("subgraphs: " + g.name()) + " {\n  rankdir=TB;\n  compound=true;\n";
    out += legend(devices);
    std::vector<bool> inside(g.node_count(), false);
    for (size_t c = 0; c < clusters.size(); ++c) {
        const std::string fill = colour(devices, clusters[c].device);
        out += "  subgraph cluster_" + std::to_string(c) + " {\n    label=" +
               quoted("subgraph" + std::to_string(c) + " (" + clusters[c].device + ")") +
               ";\n    style=filled;\n    fillcolor=" + quoted(fill) + ";\n";
        for (size_t n : clusters[c].nodes) {
            out += "  " + node_line(g, n, "", "#ffffff");
            inside[n] = true;
        }
        out += "  }\n";
    }
    for (size_t n = 0; n < g.node_count(); ++n)
        if (!inside[n]) out += node_line(g, n, "", "#ffffff");
    return out + edges(g) + "}\n";
}

void write_dot_files(const std::string& dir, const std::string& model, const std::string& affinity,
                     const std::string& subgraphs) {
    std::string safe = model;
    for (char& c : safe)
        if (c == '/' || c == '\\' || c == ' ') c = '_';
    const std::filesystem::path base = dir.empty() ? std::filesystem::current_path() : std::filesystem::path(dir);
    std::error_code ec;
    std::filesystem::create_directories(base, ec);
    for (const auto& [name, text] : {std::pair<std::string, const std::string*>{"hetero_affinity_", &affinity},
                                     {"hetero_subgraphs_", &subgraphs}}) {
        const std::filesystem::path path = base / (name + safe + ".dot");
        std::ofstream out(path);
        out << *text;
        if (!out)
            throw sdk::Error(MOSAIC_ERROR_GENERAL, "cannot write the HETERO dump '" + path.string() +
                                                       "'; check HETERO_DUMP_DIR and its permissions");
    }
}

}  // namespace mosaic::hetero
