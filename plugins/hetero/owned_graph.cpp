#include "owned_graph.hpp"

#include <mosaic/sdk/status.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>

namespace mosaic::hetero {

namespace {

[[noreturn]] void corrupt(const std::string& what) {
    throw sdk::Error(MOSAIC_ERROR_INVALID_ARGUMENT, "corrupt HETERO subgraph in the imported blob: " + what);
}

}  // namespace

std::shared_ptr<const std::vector<uint64_t>> aligned_copy(const void* data, size_t bytes) {
    auto out = std::make_shared<std::vector<uint64_t>>((bytes + 7) / 8 + 1);
    if (bytes) std::memcpy(out->data(), data, bytes);
    return out;
}

// Layout: u64 JSON length, JSON (structure), then the constants' bytes in node order.
void OwnedGraph::write(std::string& out) const {
    nlohmann::json doc = {{"name", name}, {"nodes", nlohmann::json::array()}};
    for (const OwnedNode& n : nodes) {
        nlohmann::json j = {{"type", n.type}, {"version", n.version}, {"name", n.name}, {"attrs", n.attrs},
                            {"rt_info", n.rt_info}, {"constant_bytes", n.constant ? n.constant_bytes : 0}};
        for (const auto& in : n.inputs) j["inputs"].push_back({in.node, in.port});
        if (n.inputs.empty()) j["inputs"] = nlohmann::json::array();
        for (size_t o = 0; o < n.output_types.size(); ++o)
            j["outputs"].push_back({to_string(n.output_types[o]), n.output_shapes[o]});
        if (n.output_types.empty()) j["outputs"] = nlohmann::json::array();
        doc["nodes"].push_back(std::move(j));
    }
    const std::string text = doc.dump();
    const uint64_t length = text.size();
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
    out += text;
    for (const OwnedNode& n : nodes)
        if (n.constant && n.constant_bytes) out.append(static_cast<const char*>(n.constant), n.constant_bytes);
}

OwnedGraph OwnedGraph::read(const uint8_t* data, size_t size) {
    if (size < 8) corrupt("shorter than its header");
    uint64_t length = 0;
    for (int i = 0; i < 8; ++i) length |= static_cast<uint64_t>(data[i]) << (8 * i);
    if (length > size - 8) corrupt("structure length past the end");
    OwnedGraph g;
    size_t offset = 8 + length;
    try {
        const nlohmann::json doc = nlohmann::json::parse(data + 8, data + 8 + length);
        g.name = doc.at("name");
        for (const auto& j : doc.at("nodes")) {
            OwnedNode n;
            n.type = j.at("type");
            n.version = j.at("version");
            n.name = j.at("name");
            n.attrs = j.at("attrs").get<std::vector<std::pair<std::string, std::string>>>();
            n.rt_info = j.at("rt_info").get<std::vector<std::pair<std::string, std::string>>>();
            for (const auto& in : j.at("inputs")) {
                sdk::PortRef ref{in.at(0).get<size_t>(), in.at(1).get<size_t>()};
                if (ref.node >= g.nodes.size() || ref.port >= g.nodes[ref.node].output_types.size())
                    corrupt("node '" + n.name + "' reads a missing node or port");
                n.inputs.push_back(ref);
            }
            for (const auto& out : j.at("outputs")) {
                const ElementType type = element_type_from_string(out.at(0).get<std::string>());
                const Shape shape = out.at(1).get<Shape>();
                int64_t bytes = 0;
                if (type == ElementType::undefined || !checked_byte_size(shape, type, bytes))
                    corrupt("node '" + n.name + "' has a bad output type or shape");
                n.output_types.push_back(type);
                n.output_shapes.push_back(shape);
            }
            const size_t constant_bytes = j.at("constant_bytes");
            if (n.type == "Constant") {
                if (constant_bytes > size - offset) corrupt("constant '" + n.name + "' runs past the end");
                g.owned_constants.push_back(aligned_copy(data + offset, constant_bytes));
                n.constant = g.owned_constants.back()->data();
                n.constant_bytes = constant_bytes;
                offset += constant_bytes;
            }
            g.nodes.push_back(std::move(n));
        }
    } catch (const sdk::Error&) {
        throw;
    } catch (const std::exception& e) {
        corrupt(e.what());
    }
    return g;
}

}  // namespace mosaic::hetero
