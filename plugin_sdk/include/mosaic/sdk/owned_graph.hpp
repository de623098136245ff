// A graph held in plain C++ containers and lent to plugins through the ABI's graph view
// (mosaic_graph_view). For code that builds or receives graphs itself and hands them to a plugin:
// HETERO's subgraphs and the graphs an isolated plugin's host process reads off the wire both
// derive from it, and a vendor's own orchestration may do the same.
//
// The view is valid while the OwnedGraph is alive and unchanged. Constant bytes are not owned here:
// `constant` points at storage the deriving class keeps alive (the model's weights, a blob, shared
// memory) for as long as what is compiled from the view, as plugin_abi.h promises.
#pragma once

#include <mosaic/element_type.hpp>
#include <mosaic/plugin_abi.h>
#include <mosaic/sdk/graph.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mosaic::sdk {

struct OwnedNode {
    std::string type, version, name;
    std::vector<PortRef> inputs;  // indices into OwnedGraph::nodes
    std::vector<ElementType> output_types;
    std::vector<Shape> output_shapes;  // one per output type
    std::vector<std::pair<std::string, std::string>> attrs;
    std::vector<std::pair<std::string, std::string>> rt_info;
    const void* constant = nullptr;  // Constant nodes: the bytes of output 0; nullptr for every other node
    size_t constant_bytes = 0;
};

class OwnedGraph {
public:
    std::string name;
    std::vector<OwnedNode> nodes;  // topological: Parameters first, Results last (the view's contract)

    mosaic_graph_view view() const { return {&api(), reinterpret_cast<const mosaic_graph*>(this)}; }

    // Copies node `n` of `source` (type, attributes, its affinity, outputs, a Constant's bytes by
    // pointer; not its inputs) as a new node; returns its index.
    size_t add_copy(const GraphView& source, size_t n) {
        OwnedNode node;
        node.type = source.type(n);
        node.version = source.version(n);
        node.name = source.node_name(n);
        for (size_t o = 0; o < source.output_count(n); ++o) {
            node.output_types.push_back(source.output_type(n, o));
            node.output_shapes.push_back(source.output_shape(n, o));
        }
        const mosaic_graph_view raw = source.raw();
        for (size_t a = 0, c = raw.api->attr_count(raw.graph, n); a < c; ++a)
            node.attrs.emplace_back(raw.api->attr_name(raw.graph, n, a), raw.api->attr_value(raw.graph, n, a));
        if (const char* affinity = raw.api->rt_info(raw.graph, n, "affinity")) node.rt_info.emplace_back("affinity", affinity);
        if (source.is_constant(n)) node.constant = source.constant_data(n, &node.constant_bytes);
        nodes.push_back(std::move(node));
        return nodes.size() - 1;
    }

private:
    // The table is called through C function pointers: nothing in it may throw, and an index out of
    // range gets the empty answers plugin_abi.h documents.
    static const OwnedGraph& graph(const mosaic_graph* g) { return *reinterpret_cast<const OwnedGraph*>(g); }
    static const OwnedNode& node(const mosaic_graph* g, size_t n) {
        static const OwnedNode none;
        return n < graph(g).nodes.size() ? graph(g).nodes[n] : none;
    }
    static const char* attr_part(const mosaic_graph* g, size_t n, size_t a, bool value) {
        const auto& attrs = node(g, n).attrs;
        if (a >= attrs.size()) return "";
        return value ? attrs[a].second.c_str() : attrs[a].first.c_str();
    }

    static const mosaic_graph_api& api() {
        static const mosaic_graph_api table = [] {
            mosaic_graph_api t{};
            t.struct_size = sizeof(t);
            t.version = (MOSAIC_ABI_VERSION_MAJOR << 16) | MOSAIC_ABI_VERSION_MINOR;
            t.name = [](const mosaic_graph* g) { return graph(g).name.c_str(); };
            t.node_count = [](const mosaic_graph* g) { return graph(g).nodes.size(); };
            t.node_type = [](const mosaic_graph* g, size_t n) { return node(g, n).type.c_str(); };
            t.node_version = [](const mosaic_graph* g, size_t n) { return node(g, n).version.c_str(); };
            t.node_name = [](const mosaic_graph* g, size_t n) { return node(g, n).name.c_str(); };
            t.input_count = [](const mosaic_graph* g, size_t n) { return node(g, n).inputs.size(); };
            t.input_source = [](const mosaic_graph* g, size_t n, size_t i) {
                const auto& in = node(g, n).inputs;
                return i < in.size() ? mosaic_port_ref{in[i].node, in[i].port} : mosaic_port_ref{SIZE_MAX, SIZE_MAX};
            };
            t.output_count = [](const mosaic_graph* g, size_t n) { return node(g, n).output_types.size(); };
            t.output_type = [](const mosaic_graph* g, size_t n, size_t o) {
                const auto& types = node(g, n).output_types;
                return o < types.size() ? static_cast<mosaic_element_type>(types[o]) : MOSAIC_ELEMENT_UNDEFINED;
            };
            t.output_shape = [](const mosaic_graph* g, size_t n, size_t o, uint32_t* rank) -> const int64_t* {
                const auto& shapes = node(g, n).output_shapes;
                if (rank) *rank = o < shapes.size() ? static_cast<uint32_t>(shapes[o].size()) : 0;
                return o < shapes.size() ? shapes[o].data() : nullptr;
            };
            t.attr_count = [](const mosaic_graph* g, size_t n) { return node(g, n).attrs.size(); };
            t.attr_name = [](const mosaic_graph* g, size_t n, size_t a) { return attr_part(g, n, a, false); };
            t.attr_value = [](const mosaic_graph* g, size_t n, size_t a) { return attr_part(g, n, a, true); };
            t.rt_info = [](const mosaic_graph* g, size_t n, const char* key) -> const char* {
                if (!key) return nullptr;
                for (const auto& [k, v] : node(g, n).rt_info)
                    if (k == key) return v.c_str();
                return nullptr;
            };
            t.constant_data = [](const mosaic_graph* g, size_t n, size_t* bytes) -> const void* {
                const OwnedNode& c = node(g, n);
                if (bytes) *bytes = c.constant ? c.constant_bytes : 0;
                return c.constant;
            };
            return t;
        }();
        return table;
    }
};

}  // namespace mosaic::sdk
