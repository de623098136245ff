#include "isolation/wire_graph.hpp"

#include <cstring>
#include <stdexcept>
#include <utility>

namespace mosaic {

namespace {

// The runtime-info keys Mosaic itself sets and reads (affinity from the user or HETERO).
const char* const kWireRtInfoKeys[] = {"affinity"};

std::string text(const char* s) { return s ? s : ""; }

size_t aligned(size_t n) { return (n + 63) / 64 * 64; }

}  // namespace

WireGraphOut write_wire_graph(mosaic_graph_view graph) {
    const mosaic_graph_api& g = *graph.api;
    const mosaic_graph* h = graph.graph;
    const size_t count = g.node_count(h);
    WireGraphOut out;
    nlohmann::json nodes = nlohmann::json::array();
    size_t constant_bytes = 0;
    for (size_t n = 0; n < count; ++n) {
        size_t bytes = 0;
        if (g.constant_data(h, n, &bytes)) constant_bytes += aligned(bytes);
    }
    out.constants = SharedMemory::create(constant_bytes, "the weights of model '" + text(g.name(h)) + "'");
    size_t offset = 0;
    for (size_t n = 0; n < count; ++n) {
        nlohmann::json node = {{"type", text(g.node_type(h, n))},
                               {"version", text(g.node_version(h, n))},
                               {"name", text(g.node_name(h, n))}};
        nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array(),
                       attrs = nlohmann::json::array(), rt = nlohmann::json::object();
        for (size_t i = 0; i < g.input_count(h, n); ++i) {
            const mosaic_port_ref src = g.input_source(h, n, i);
            inputs.push_back({src.node, src.port});
        }
        for (size_t o = 0; o < g.output_count(h, n); ++o) {
            uint32_t rank = 0;
            const int64_t* dims = g.output_shape(h, n, o, &rank);
            outputs.push_back({static_cast<int>(g.output_type(h, n, o)), std::vector<int64_t>(dims, dims + rank)});
        }
        for (size_t a = 0; a < g.attr_count(h, n); ++a) attrs.push_back({text(g.attr_name(h, n, a)), text(g.attr_value(h, n, a))});
        for (const char* key : kWireRtInfoKeys)
            if (const char* value = g.rt_info(h, n, key)) rt[key] = value;
        node["inputs"] = std::move(inputs);
        node["outputs"] = std::move(outputs);
        node["attrs"] = std::move(attrs);
        node["rt_info"] = std::move(rt);
        size_t bytes = 0;
        if (const void* data = g.constant_data(h, n, &bytes)) {
            if (bytes) std::memcpy(out.constants.data() + offset, data, bytes);
            node["constant"] = {offset, bytes};
            offset += aligned(bytes);
        }
        nodes.push_back(std::move(node));
    }
    out.structure = {{"name", text(g.name(h))}, {"nodes", std::move(nodes)}};
    return out;
}

WireGraph::WireGraph(const nlohmann::json& structure, SharedMemory shared) : constants_(std::move(shared)) {
    // An empty constant still reads as a constant (non-null data), as an empty region may have none.
    static const uint64_t empty_constant = 0;
    try {
        name = structure.at("name").get<std::string>();
        for (const auto& j : structure.at("nodes")) {
            sdk::OwnedNode node;
            node.type = j.at("type").get<std::string>();
            node.version = j.at("version").get<std::string>();
            node.name = j.at("name").get<std::string>();
            for (const auto& in : j.at("inputs")) node.inputs.push_back({in.at(0).get<size_t>(), in.at(1).get<size_t>()});
            for (const auto& o : j.at("outputs")) {
                node.output_types.push_back(static_cast<ElementType>(o.at(0).get<int>()));
                node.output_shapes.push_back(o.at(1).get<Shape>());
            }
            for (const auto& a : j.at("attrs")) node.attrs.emplace_back(a.at(0).get<std::string>(), a.at(1).get<std::string>());
            for (const auto& [k, v] : j.at("rt_info").items()) node.rt_info.emplace_back(k, v.get<std::string>());
            if (j.contains("constant")) {
                const size_t offset = j["constant"].at(0).get<size_t>(), size = j["constant"].at(1).get<size_t>();
                if (offset > constants_.size() || size > constants_.size() - offset)
                    throw std::runtime_error("constant of node '" + node.name + "' lies outside the shared weights");
                node.constant = size ? static_cast<const void*>(constants_.data() + offset) : &empty_constant;
                node.constant_bytes = size;
            }
            nodes.push_back(std::move(node));
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(std::string("the graph sent to the plugin host is malformed: ") + e.what());
    }
}

}  // namespace mosaic
