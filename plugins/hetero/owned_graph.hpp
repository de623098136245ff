// A graph HETERO owns and hands to other devices through the ABI's graph view: one subgraph of the
// model being split, or a subgraph read back from an exported HETERO blob. Constants are never
// copied: `constant` points at the model's weights (kept alive by the host for the lifetime of the
// HETERO compiled model) or into the imported blob (kept alive by the compiled model).
#pragma once

#include <mosaic/sdk/graph.hpp>
#include <mosaic/sdk/owned_graph.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mosaic::hetero {

using OwnedNode = sdk::OwnedNode;

// Copies bytes into 8-byte-aligned storage (enough for every element type).
std::shared_ptr<const std::vector<uint64_t>> aligned_copy(const void* data, size_t bytes);

class OwnedGraph : public sdk::OwnedGraph {
public:
    // Constants read from a blob are copied here: blob offsets carry no alignment, kernels need it.
    std::vector<std::shared_ptr<const std::vector<uint64_t>>> owned_constants;

    // Serialises the graph (constants included) for a HETERO export blob.
    void write(std::string& out) const;
    // Reads what write() wrote from [data, data + size); constants are copied into aligned storage
    // the graph owns (keep the graph alive as long as what is compiled from it). Throws sdk::Error on corrupt input.
    static OwnedGraph read(const uint8_t* data, size_t size);
};

}  // namespace mosaic::hetero
