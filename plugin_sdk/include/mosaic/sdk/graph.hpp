// C++ accessors over the read-only graph view a plugin receives (mosaic_graph_view).
// Cheap to copy; valid as long as the underlying view (see plugin_abi.h).
#pragma once

#include <mosaic/attributes.hpp>
#include <mosaic/element_type.hpp>
#include <mosaic/plugin_abi.h>

#include <string>
#include <vector>

namespace mosaic::sdk {

struct PortRef {
    size_t node = 0;
    size_t port = 0;
};

class GraphView {
public:
    explicit GraphView(mosaic_graph_view view) : v_(view) {}

    mosaic_graph_view raw() const { return v_; }
    std::string name() const { return v_.api->name(v_.graph); }
    size_t node_count() const { return v_.api->node_count(v_.graph); }

    std::string type(size_t n) const { return v_.api->node_type(v_.graph, n); }
    std::string version(size_t n) const { return v_.api->node_version(v_.graph, n); }
    std::string node_name(size_t n) const { return v_.api->node_name(v_.graph, n); }

    size_t input_count(size_t n) const { return v_.api->input_count(v_.graph, n); }
    PortRef input(size_t n, size_t i) const {
        mosaic_port_ref r = v_.api->input_source(v_.graph, n, i);
        return {r.node, r.port};
    }
    size_t output_count(size_t n) const { return v_.api->output_count(v_.graph, n); }
    ElementType output_type(size_t n, size_t o) const {
        return static_cast<ElementType>(v_.api->output_type(v_.graph, n, o));
    }
    Shape output_shape(size_t n, size_t o) const {
        uint32_t rank = 0;
        const int64_t* dims = v_.api->output_shape(v_.graph, n, o, &rank);
        return Shape(dims, dims + rank);
    }
    ElementType input_type(size_t n, size_t i) const { auto r = input(n, i); return output_type(r.node, r.port); }
    Shape input_shape(size_t n, size_t i) const { auto r = input(n, i); return output_shape(r.node, r.port); }

    Attributes attributes(size_t n) const {
        Attributes a;
        for (size_t i = 0, c = v_.api->attr_count(v_.graph, n); i < c; ++i)
            a.set(v_.api->attr_name(v_.graph, n, i), std::string(v_.api->attr_value(v_.graph, n, i)));
        return a;
    }

    // Empty string when absent.
    std::string rt_info(size_t n, const char* key) const {
        const char* v = v_.api->rt_info(v_.graph, n, key);
        return v ? v : "";
    }

    const void* constant_data(size_t n, size_t* byte_size) const { return v_.api->constant_data(v_.graph, n, byte_size); }

    bool is_parameter(size_t n) const { return type(n) == "Parameter"; }
    bool is_constant(size_t n) const { return type(n) == "Constant"; }
    bool is_result(size_t n) const { return type(n) == "Result"; }

    std::vector<size_t> parameters() const { return nodes_of("Parameter"); }
    std::vector<size_t> results() const { return nodes_of("Result"); }

private:
    std::vector<size_t> nodes_of(const char* t) const {
        std::vector<size_t> out;
        for (size_t n = 0, c = node_count(); n < c; ++n)
            if (type(n) == t) out.push_back(n);
        return out;
    }

    mosaic_graph_view v_;
};

}  // namespace mosaic::sdk
