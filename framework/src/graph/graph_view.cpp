#include "graph/graph_view.hpp"

#include <algorithm>
#include <cstdint>

namespace mosaic {

// Accessors are called from plugin code through C function pointers, so nothing may throw:
// out-of-range indices give the empty answers plugin_abi.h documents.
struct HostGraphAccess {
    static const HostGraph& g(const mosaic_graph* graph) { return *reinterpret_cast<const HostGraph*>(graph); }
    static const Node& node(const mosaic_graph* graph, size_t n) {
        static const Node none;
        const auto& nodes = g(graph).nodes_;
        return n < nodes.size() ? *nodes[n] : none;
    }
};

namespace {

using A = HostGraphAccess;

const mosaic_graph_api kGraphApi = [] {
    mosaic_graph_api t{};
    t.struct_size = sizeof(mosaic_graph_api);
    t.version = (MOSAIC_ABI_VERSION_MAJOR << 16) | MOSAIC_ABI_VERSION_MINOR;
    t.name = [](const mosaic_graph* g) { return A::g(g).model().get_friendly_name().c_str(); };
    t.node_count = [](const mosaic_graph* g) { return A::g(g).get_ops().size(); };
    t.node_type = [](const mosaic_graph* g, size_t n) { return A::node(g, n).get_type_name().c_str(); };
    t.node_version = [](const mosaic_graph* g, size_t n) { return A::node(g, n).version().c_str(); };
    t.node_name = [](const mosaic_graph* g, size_t n) { return A::node(g, n).get_friendly_name().c_str(); };
    t.input_count = [](const mosaic_graph* g, size_t n) { return A::node(g, n).input_count(); };
    t.input_source = [](const mosaic_graph* g, size_t n, size_t i) {
        const Node& node = A::node(g, n);
        if (i >= node.input_count()) return mosaic_port_ref{SIZE_MAX, SIZE_MAX};
        const Output& src = node.input(i);
        return mosaic_port_ref{A::g(g).index_of(src.node), src.index};
    };
    t.output_count = [](const mosaic_graph* g, size_t n) { return A::node(g, n).output_count(); };
    t.output_type = [](const mosaic_graph* g, size_t n, size_t o) {
        const Node& node = A::node(g, n);
        return o < node.output_count() ? static_cast<mosaic_element_type>(node.output_type(o)) : MOSAIC_ELEMENT_UNDEFINED;
    };
    t.output_shape = [](const mosaic_graph* g, size_t n, size_t o, uint32_t* rank) -> const int64_t* {
        const Node& node = A::node(g, n);
        if (o >= node.output_count()) {
            if (rank) *rank = 0;
            return nullptr;
        }
        const Shape& s = node.output_shape(o);
        if (rank) *rank = static_cast<uint32_t>(s.size());
        return s.data();
    };
    t.attr_count = [](const mosaic_graph* g, size_t n) { return A::node(g, n).attrs().size(); };
    t.attr_name = [](const mosaic_graph* g, size_t n, size_t a) {
        const auto& e = A::node(g, n).attrs().entries();
        return a < e.size() ? e[a].first.c_str() : "";
    };
    t.attr_value = [](const mosaic_graph* g, size_t n, size_t a) {
        const auto& e = A::node(g, n).attrs().entries();
        return a < e.size() ? e[a].second.c_str() : "";
    };
    t.rt_info = [](const mosaic_graph* g, size_t n, const char* key) -> const char* {
        if (!key) return nullptr;
        const auto& info = A::node(g, n).get_rt_info();
        auto it = info.find(key);
        // HostGraph stores every value as a string (see its constructor).
        return it == info.end() ? nullptr : it->second.value().get_ref<const std::string&>().c_str();
    };
    t.constant_data = [](const mosaic_graph* g, size_t n, size_t* size) -> const void* {
        const auto& data = A::node(g, n).constant_data();
        if (size) *size = data ? data->size() : 0;
        return data ? data->data() : nullptr;
    };
    return t;
}();

}  // namespace

HostGraph::HostGraph(const Model& model, Affinities affinities) : HostGraph(model.clone(), affinities) {}

HostGraph::HostGraph(std::shared_ptr<Model> owned, Affinities affinities) : model_(std::move(owned)) {
    // Runtime information crosses the ABI as text; an empty affinity is no affinity (what
    // `rt_info["affinity"]` leaves behind when indexing a query result that lacks the op).
    for (Node* n : model_->get_ops()) {
        RTMap& info = n->get_rt_info();
        for (auto& [key, value] : info) value = Any(value.as<std::string>());
        auto it = info.find("affinity");
        if (it != info.end() && (affinities == Affinities::ignore || it->second.as<std::string>().empty())) info.erase(it);
    }
    std::vector<Node*> order = model_->get_ordered_ops();
    // Results go last, in the model's output order, so plugins see outputs in a stable order.
    std::stable_partition(order.begin(), order.end(), [](const Node* n) { return !n->is_result(); });
    const std::vector<Node*> results = model_->get_results();
    std::copy(results.begin(), results.end(), order.end() - static_cast<std::ptrdiff_t>(results.size()));
    for (const Node* n : order) {
        for (size_t o = 0; o < n->output_count(); ++o)
            if (!is_static(n->output_shape(o)))
                throw ModelError("model '" + model_->get_friendly_name() + "' has a dynamic shape " + to_string(n->output_shape(o)) +
                                 " at node '" + n->get_friendly_name() + "'; set static input shapes with Model::reshape (CLI: --shape) before compiling");
        if (n->output_count() == 0 && !n->is_result())
            throw ModelError("model '" + model_->get_friendly_name() + "' is not validated: node '" + n->get_friendly_name() +
                             "' has no inferred outputs; call Model::validate()");
        index_[n] = nodes_.size();
        nodes_.push_back(n);
    }
}

mosaic_graph_view HostGraph::view() const {
    return {&kGraphApi, reinterpret_cast<const mosaic_graph*>(this)};
}

}  // namespace mosaic
