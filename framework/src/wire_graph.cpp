#include "wire_graph.hpp"

#include <cstring>
#include <stdexcept>

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

WireGraph::WireGraph(const nlohmann::json& structure, SharedMemory shared) : constants(std::move(shared)) {
    try {
        name = structure.at("name").get<std::string>();
        for (const auto& j : structure.at("nodes")) {
            Node node;
            node.type = j.at("type").get<std::string>();
            node.version = j.at("version").get<std::string>();
            node.name = j.at("name").get<std::string>();
            for (const auto& in : j.at("inputs")) node.inputs.push_back({in.at(0).get<size_t>(), in.at(1).get<size_t>()});
            for (const auto& o : j.at("outputs"))
                node.outputs.push_back({static_cast<mosaic_element_type>(o.at(0).get<int>()), o.at(1).get<std::vector<int64_t>>()});
            for (const auto& a : j.at("attrs")) node.attrs.emplace_back(a.at(0).get<std::string>(), a.at(1).get<std::string>());
            for (const auto& [k, v] : j.at("rt_info").items()) node.rt_info.emplace_back(k, v.get<std::string>());
            if (j.contains("constant")) {
                node.is_constant = true;
                node.constant_offset = j["constant"].at(0).get<size_t>();
                node.constant_size = j["constant"].at(1).get<size_t>();
                if (node.constant_offset + node.constant_size > constants.size())
                    throw std::runtime_error("constant of node '" + node.name + "' lies outside the shared weights");
            }
            nodes.push_back(std::move(node));
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(std::string("the graph sent to the plugin host is malformed: ") + e.what());
    }
}

namespace {

const WireGraph& wire(const mosaic_graph* g) { return *reinterpret_cast<const WireGraph*>(g); }
const WireGraph::Node* node_at(const mosaic_graph* g, size_t n) {
    return n < wire(g).nodes.size() ? &wire(g).nodes[n] : nullptr;
}
const WireGraph::Output* output_at(const mosaic_graph* g, size_t n, size_t o) {
    const WireGraph::Node* node = node_at(g, n);
    return node && o < node->outputs.size() ? &node->outputs[o] : nullptr;
}
// Attribute name or value: out-of-range answers "", as the ABI asks.
const char* attr_part(const mosaic_graph* g, size_t n, size_t a, bool value) {
    const WireGraph::Node* node = node_at(g, n);
    if (!node || a >= node->attrs.size()) return "";
    return value ? node->attrs[a].second.c_str() : node->attrs[a].first.c_str();
}

const mosaic_graph_api kWireGraphApi = [] {
    mosaic_graph_api api{};
    api.struct_size = sizeof(mosaic_graph_api);
    api.version = (MOSAIC_ABI_VERSION_MAJOR << 16) | MOSAIC_ABI_VERSION_MINOR;
    api.name = [](const mosaic_graph* g) { return wire(g).name.c_str(); };
    api.node_count = [](const mosaic_graph* g) { return wire(g).nodes.size(); };
    api.node_type = [](const mosaic_graph* g, size_t n) { return node_at(g, n) ? node_at(g, n)->type.c_str() : ""; };
    api.node_version = [](const mosaic_graph* g, size_t n) { return node_at(g, n) ? node_at(g, n)->version.c_str() : ""; };
    api.node_name = [](const mosaic_graph* g, size_t n) { return node_at(g, n) ? node_at(g, n)->name.c_str() : ""; };
    api.input_count = [](const mosaic_graph* g, size_t n) { return node_at(g, n) ? node_at(g, n)->inputs.size() : 0; };
    api.input_source = [](const mosaic_graph* g, size_t n, size_t i) {
        const WireGraph::Node* node = node_at(g, n);
        return node && i < node->inputs.size() ? node->inputs[i] : mosaic_port_ref{SIZE_MAX, SIZE_MAX};
    };
    api.output_count = [](const mosaic_graph* g, size_t n) { return node_at(g, n) ? node_at(g, n)->outputs.size() : 0; };
    api.output_type = [](const mosaic_graph* g, size_t n, size_t o) {
        return output_at(g, n, o) ? output_at(g, n, o)->type : MOSAIC_ELEMENT_UNDEFINED;
    };
    api.output_shape = [](const mosaic_graph* g, size_t n, size_t o, uint32_t* rank) -> const int64_t* {
        const WireGraph::Output* out = output_at(g, n, o);
        if (rank) *rank = out ? static_cast<uint32_t>(out->dims.size()) : 0;
        return out ? out->dims.data() : nullptr;
    };
    api.attr_count = [](const mosaic_graph* g, size_t n) { return node_at(g, n) ? node_at(g, n)->attrs.size() : 0; };
    api.attr_name = [](const mosaic_graph* g, size_t n, size_t a) { return attr_part(g, n, a, false); };
    api.attr_value = [](const mosaic_graph* g, size_t n, size_t a) { return attr_part(g, n, a, true); };
    api.rt_info = [](const mosaic_graph* g, size_t n, const char* key) -> const char* {
        const WireGraph::Node* node = node_at(g, n);
        if (!node || !key) return nullptr;
        for (const auto& [k, v] : node->rt_info)
            if (k == key) return v.c_str();
        return nullptr;
    };
    api.constant_data = [](const mosaic_graph* g, size_t n, size_t* byte_size) -> const void* {
        const WireGraph::Node* node = node_at(g, n);
        if (byte_size) *byte_size = node && node->is_constant ? node->constant_size : 0;
        if (!node || !node->is_constant) return nullptr;
        return wire(g).constants.data() + node->constant_offset;
    };
    return api;
}();

}  // namespace

mosaic_graph_view WireGraph::view() const {
    return {&kWireGraphApi, reinterpret_cast<const mosaic_graph*>(this)};
}

}  // namespace mosaic
