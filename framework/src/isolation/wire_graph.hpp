// A graph view sent to an isolated plugin's process: written from any mosaic_graph_view through the
// ABI's own accessors (so a subgraph view HETERO builds travels like a Core's), read back in
// mosaic-plugin-host as a mosaic_graph_view whose node indices are the sender's, one for one.
//
//   {"name": "m", "nodes": [{"type", "version", "name", "inputs": [[node, port]...],
//     "outputs": [[element_type, [dims...]]...], "attrs": [[name, value]...], "rt_info": {key: value},
//     "constant": [offset, byte_size]}]}
//
// Constant bytes go into one shared-memory region (offsets 64-byte aligned), not into the JSON.
// Runtime info crosses for the keys Mosaic defines (kWireRtInfoKeys); a plugin asking for another
// key in its own process gets NULL, as for a node without it.
#pragma once

#include "isolation/shared_memory.hpp"

#include <mosaic/plugin_abi.h>
#include <mosaic/sdk/owned_graph.hpp>

#include <nlohmann/json.hpp>


namespace mosaic {

struct WireGraphOut {
    nlohmann::json structure;
    SharedMemory constants;
};

WireGraphOut write_wire_graph(mosaic_graph_view graph);

// The host side: owns the structure (as an sdk::OwnedGraph, which lends the view) and the constants'
// mapping. Kept alive with the compiled model built from it, as the ABI promises constant data
// lives that long.
class WireGraph : public sdk::OwnedGraph {
public:
    // Throws std::runtime_error when `structure` does not have the shape above.
    WireGraph(const nlohmann::json& structure, SharedMemory constants);

private:
    SharedMemory constants_;
};

}  // namespace mosaic
