#include "split_plan.hpp"

#include "dot_dump.hpp"

#include <map>
#include <set>

namespace mosaic::hetero {

namespace {

using PortKey = std::pair<size_t, size_t>;  // (node, output)

std::string shape_attr(const Shape& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
    return out;
}

size_t add_parameter(OwnedGraph& graph, const std::string& name, const Slot& slot) {
    OwnedNode p;
    p.type = "Parameter";
    p.version = "opset1";
    p.name = name;
    p.attrs = {{"shape", shape_attr(slot.shape)}, {"element_type", to_string(slot.type)}};
    p.output_types = {slot.type};
    p.output_shapes = {slot.shape};
    graph.nodes.push_back(std::move(p));
    return graph.nodes.size() - 1;
}

void add_result(OwnedGraph& graph, const std::string& name, sdk::PortRef source) {
    OwnedNode r;
    r.type = "Result";
    r.version = "opset1";
    r.name = name;
    r.inputs = {source};
    graph.nodes.push_back(std::move(r));
}

// A folded port of the model as a Constant of a subgraph.
size_t add_folded(OwnedGraph& graph, const sdk::GraphView& g, PortKey port, const FoldedValues& folded) {
    const auto& value = folded.ports.at(port);
    OwnedNode c;
    c.type = "Constant";
    c.version = "opset1";
    c.name = g.node_name(port.first) + (g.output_count(port.first) > 1 ? ":" + std::to_string(port.second) : "");
    const ElementType type = g.output_type(port.first, port.second);
    const Shape shape = g.output_shape(port.first, port.second);
    c.attrs = {{"element_type", to_string(type)}, {"shape", shape_attr(shape)}};
    c.output_types = {type};
    c.output_shapes = {shape};
    c.constant = value->data();
    c.constant_bytes = static_cast<size_t>(shape_size(shape)) * element_size(type);
    graph.nodes.push_back(std::move(c));
    return graph.nodes.size() - 1;
}

// One subgraph's graph: Parameters for the slots it reads, the Constants it uses (the model's and
// those HETERO folded), its ops, and Results for the slots it produces.
void build_graph(const sdk::GraphView& g, const Cluster& cluster, SubgraphPlan& sub, std::vector<Slot>& slots,
                 const std::map<PortKey, size_t>& slot_of, size_t self, const FoldedValues& folded) {
    OwnedGraph& graph = sub.graph;
    graph.name = g.name() + "/subgraph" + std::to_string(self);
    std::map<PortKey, sdk::PortRef> local;  // model port -> port in `graph`
    std::set<size_t> members(cluster.nodes.begin(), cluster.nodes.end());
    for (size_t n : cluster.nodes)
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const sdk::PortRef src = g.input(n, i);
            const PortKey key{src.node, src.port};
            if (members.count(src.node) || local.count(key) || folded.is_constant_like(g, src.node)) continue;
            const size_t slot = slot_of.at(key);
            sub.inputs.push_back(slot);
            local[key] = {add_parameter(graph, slots[slot].tensor, slots[slot]), 0};
        }
    for (size_t n : cluster.nodes)
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const sdk::PortRef src = g.input(n, i);
            if (!folded.is_constant_like(g, src.node) || local.count({src.node, src.port})) continue;
            local[{src.node, src.port}] = {folded.is_folded(src.node) ? add_folded(graph, g, {src.node, src.port}, folded)
                                                                       : graph.add_copy(g, src.node),
                                           0};
        }
    for (size_t n : cluster.nodes) {
        const size_t copy = graph.add_copy(g, n);
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const sdk::PortRef src = g.input(n, i);
            graph.nodes[copy].inputs.push_back(local.at({src.node, src.port}));
        }
        for (size_t o = 0; o < g.output_count(n); ++o) local[{n, o}] = {copy, o};
        sub.ops.push_back(g.node_name(n));
    }
    // Ports read outside the subgraph become its outputs, in node order.
    for (size_t n : cluster.nodes)
        for (size_t o = 0; o < g.output_count(n); ++o) {
            auto it = slot_of.find({n, o});
            if (it == slot_of.end()) continue;
            slots[it->second].kind = Slot::Kind::produced;
            slots[it->second].subgraph = self;
            slots[it->second].output = sub.outputs.size();
            sub.outputs.push_back(it->second);
            add_result(graph, slots[it->second].tensor + "/to_host", local.at({n, o}));
        }
}

}  // namespace

SplitPlan build_split(const sdk::GraphView& g, const std::vector<Cluster>& clusters, const Placement& placement,
                      const HeteroConfig& cfg, const FoldedValues& folded) {
    SplitPlan plan;
    plan.model_name = g.name();
    plan.devices = cfg.devices;
    plan.placement = cfg.pipeline                                  ? "PIPELINE_PARALLEL"
                     : cfg.placement == PlacementMode::min_transfer ? "MIN_TRANSFER"
                     : cfg.placement == PlacementMode::one_device   ? "ONE_DEVICE"
                                                                    : "GREEDY";
    plan.perf_count = cfg.perf_count;
    plan.crossing_memory = cfg.crossing_memory;
    const size_t count = g.node_count();
    std::vector<size_t> cluster_of(count, SIZE_MAX);
    for (size_t c = 0; c < clusters.size(); ++c)
        for (size_t n : clusters[c].nodes) cluster_of[n] = c;

    // Slots: model inputs, then every op port read by another subgraph or a model output, then
    // constants that are model outputs.
    std::map<PortKey, size_t> slot_of;
    auto slot_for = [&](size_t node, size_t port, Slot::Kind kind) {
        auto [it, fresh] = slot_of.emplace(PortKey{node, port}, plan.slots.size());
        if (fresh) {
            Slot s;
            s.kind = kind;
            s.type = g.output_type(node, port);
            s.shape = g.output_shape(node, port);
            s.tensor = g.node_name(node) + ":" + std::to_string(port);
            if (kind == Slot::Kind::constant) {
                size_t bytes = 0;
                s.constant = folded.is_folded(node) ? folded.ports.at({node, port})->data() : g.constant_data(node, &bytes);
            }
            plan.slots.push_back(std::move(s));
        }
        return it->second;
    };
    size_t input_index = 0;
    for (size_t n = 0; n < count; ++n)
        if (g.is_parameter(n)) plan.slots[slot_for(n, 0, Slot::Kind::model_input)].model_input = input_index++;
    for (size_t n = 0; n < count; ++n) {
        const bool result = g.is_result(n);
        if (!result && cluster_of[n] == SIZE_MAX) continue;
        for (size_t i = 0; i < g.input_count(n); ++i) {
            const sdk::PortRef src = g.input(n, i);
            if (folded.is_constant_like(g, src.node)) {
                if (result) slot_for(src.node, src.port, Slot::Kind::constant);
                continue;
            }
            if (result || g.is_parameter(src.node) || cluster_of[src.node] != cluster_of[n])
                slot_for(src.node, src.port, Slot::Kind::produced);
        }
        if (result) {
            const sdk::PortRef src = g.input(n, 0);
            const size_t slot = slot_of.at({src.node, src.port});
            plan.slots[slot].model_outputs.push_back(plan.model_outputs.size());
            plan.model_outputs.push_back(slot);
        }
    }

    for (size_t c = 0; c < clusters.size(); ++c) {
        SubgraphPlan sub;
        sub.device = clusters[c].device;
        sub.properties = cfg.device_config(sub.device);
        sub.depends_on = clusters[c].depends_on;
        build_graph(g, clusters[c], sub, plan.slots, slot_of, c, folded);
        plan.subgraphs.push_back(std::move(sub));
    }
    // One transfer per slot and consuming subgraph on another device than the producer.
    for (size_t c = 0; c < plan.subgraphs.size(); ++c)
        for (size_t slot : plan.subgraphs[c].inputs) {
            const Slot& s = plan.slots[slot];
            if (s.kind == Slot::Kind::produced && plan.subgraphs[s.subgraph].device != plan.subgraphs[c].device)
                plan.transfers.push_back({slot, s.subgraph, c});
        }
    for (const auto& [port, value] : folded.ports) plan.owned_constants.push_back(value);
    for (size_t n = 0; n < count; ++n)
        if (!placement.device[n].empty()) plan.affinity[g.node_name(n)] = placement.device[n];
    plan.affinity_dot = affinity_dot(g, placement, cfg.devices);
    plan.subgraphs_dot = subgraphs_dot(g, clusters, cfg.devices);
    return plan;
}

nlohmann::json SplitPlan::summary() const {
    nlohmann::json j;
    j["model"] = model_name;
    j["placement"] = placement;
    std::vector<std::string> listed = devices;
    for (const auto& s : subgraphs)
        if (std::find(listed.begin(), listed.end(), s.device) == listed.end()) listed.push_back(s.device);
    j["devices"] = nlohmann::json::array();
    for (const std::string& d : listed) {
        size_t ops = 0, count = 0;
        for (const auto& s : subgraphs)
            if (s.device == d) ops += s.ops.size(), ++count;
        j["devices"].push_back({{"device", d}, {"ops", ops}, {"subgraphs", count}});
    }
    j["subgraphs"] = nlohmann::json::array();
    for (size_t k = 0; k < subgraphs.size(); ++k)
        j["subgraphs"].push_back({{"id", k}, {"device", subgraphs[k].device}, {"ops", subgraphs[k].ops},
                                  {"depends_on", subgraphs[k].depends_on}, {"predicted_us", subgraphs[k].predicted_us}});
    j["transfers"] = nlohmann::json::array();
    size_t total = 0;
    for (const Transfer& t : transfers) {
        const Slot& s = slots[t.slot];
        j["transfers"].push_back({{"tensor", s.tensor}, {"from_subgraph", t.from}, {"to_subgraph", t.to},
                                  {"from_device", subgraphs[t.from].device}, {"to_device", subgraphs[t.to].device},
                                  {"bytes", s.bytes()}, {"predicted_us", t.predicted_us}});
        total += s.bytes();
    }
    j["transfer_bytes"] = total;
    j["affinity"] = affinity;
    if (!memory.is_null()) j["memory"] = memory;
    return j;
}

nlohmann::json SplitPlan::to_json() const {
    nlohmann::json j = {{"model", model_name}, {"devices", devices}, {"placement", placement},
                        {"perf_count", perf_count}, {"crossing_memory", crossing_memory}, {"model_outputs", model_outputs}, {"affinity", affinity},
                        {"affinity_dot", affinity_dot}, {"subgraphs_dot", subgraphs_dot}, {"memory", memory}};
    j["slots"] = nlohmann::json::array();
    for (const Slot& s : slots)
        j["slots"].push_back({{"kind", static_cast<int>(s.kind)}, {"type", to_string(s.type)}, {"shape", s.shape},
                              {"model_input", s.model_input}, {"subgraph", s.subgraph}, {"output", s.output},
                              {"tensor", s.tensor}, {"model_outputs", s.model_outputs}});
    j["subgraphs"] = nlohmann::json::array();
    for (const SubgraphPlan& s : subgraphs)
        j["subgraphs"].push_back({{"device", s.device}, {"properties", s.properties}, {"ops", s.ops},
                                  {"depends_on", s.depends_on}, {"inputs", s.inputs}, {"outputs", s.outputs},
                                  {"predicted_us", s.predicted_us}});
    j["transfers"] = nlohmann::json::array();
    for (const Transfer& t : transfers) j["transfers"].push_back({t.slot, t.from, t.to, t.predicted_us});
    return j;
}

SplitPlan SplitPlan::from_json(const nlohmann::json& j) {
    SplitPlan p;
    p.model_name = j.at("model");
    p.devices = j.at("devices").get<std::vector<std::string>>();
    p.placement = j.at("placement");
    p.perf_count = j.at("perf_count");
    p.crossing_memory = j.value("crossing_memory", std::string("AUTO"));  // absent from blobs of before ABI 1.3
    p.model_outputs = j.at("model_outputs").get<std::vector<size_t>>();
    p.affinity = j.at("affinity");
    p.affinity_dot = j.at("affinity_dot");
    p.memory = j.value("memory", nlohmann::json());
    p.subgraphs_dot = j.at("subgraphs_dot");
    for (const auto& s : j.at("slots")) {
        Slot slot;
        const int kind = s.at("kind");
        if (kind < 0 || kind > 2) throw std::runtime_error("a slot has an unknown kind");
        slot.kind = static_cast<Slot::Kind>(kind);
        slot.type = element_type_from_string(s.at("type").get<std::string>());
        slot.shape = s.at("shape").get<Shape>();
        int64_t bytes = 0;
        if (slot.type == ElementType::undefined || !checked_byte_size(slot.shape, slot.type, bytes))
            throw std::runtime_error("a slot has a bad element type or shape");
        slot.model_input = s.at("model_input");
        slot.subgraph = s.at("subgraph");
        slot.output = s.at("output");
        slot.tensor = s.at("tensor");
        slot.model_outputs = s.at("model_outputs").get<std::vector<size_t>>();
        p.slots.push_back(std::move(slot));
    }
    for (const auto& s : j.at("subgraphs")) {
        SubgraphPlan sub;
        sub.device = s.at("device");
        sub.properties = s.at("properties");
        sub.ops = s.at("ops").get<std::vector<std::string>>();
        sub.depends_on = s.at("depends_on").get<std::vector<size_t>>();
        sub.inputs = s.at("inputs").get<std::vector<size_t>>();
        sub.outputs = s.at("outputs").get<std::vector<size_t>>();
        sub.predicted_us = s.value("predicted_us", 0.0);
        p.subgraphs.push_back(std::move(sub));
    }
    for (const auto& t : j.at("transfers"))
        p.transfers.push_back({t.at(0), t.at(1), t.at(2), t.size() > 3 ? t.at(3).get<double>() : 0.0});
    // Indices come from a file: check them before any request trusts them.
    const size_t slots = p.slots.size(), subs = p.subgraphs.size();
    for (size_t s : p.model_outputs) if (s >= slots) throw std::runtime_error("a model output names a missing slot");
    for (size_t k = 0; k < subs; ++k) {
        for (size_t d : p.subgraphs[k].depends_on) if (d >= k) throw std::runtime_error("subgraphs are not in dependency order");
        for (size_t s : p.subgraphs[k].inputs) if (s >= slots) throw std::runtime_error("a subgraph reads a missing slot");
        for (size_t s : p.subgraphs[k].outputs) if (s >= slots) throw std::runtime_error("a subgraph writes a missing slot");
    }
    for (const Slot& s : p.slots)
        if (s.kind == Slot::Kind::produced && (s.subgraph >= subs || s.output >= p.subgraphs[s.subgraph].outputs.size()))
            throw std::runtime_error("a slot names a missing subgraph output");
    for (const Transfer& t : p.transfers)
        if (t.slot >= slots || t.from >= subs || t.to >= subs) throw std::runtime_error("a transfer names a missing slot or subgraph");
    return p;
}

}  // namespace mosaic::hetero
