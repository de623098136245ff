// Subgraphs: connected ops with one device, grouped so that the graph of subgraphs stays acyclic.
//
// Grouping every connected same-device region is not enough: in a diamond A(X) -> B(Y) -> D(X),
// A -> D, the region {A, D} would both feed and consume B's subgraph. Ops are visited in
// topological order; an op joins the same-device subgraphs of its producers unless one of them
// already reaches the op through another subgraph (which would close a cycle), and subgraphs an
// op joins are merged. This splits exactly where a cycle would form: the diamond becomes {A}, {B}, {D}.
#pragma once

#include <mosaic/sdk/graph.hpp>

#include <string>
#include <vector>

namespace mosaic::hetero {

struct Cluster {
    std::string device;
    std::vector<size_t> nodes;        // ops, in topological order
    std::vector<size_t> depends_on;   // indices of clusters it reads from (earlier in the list)
};

// `device[n]` is the device of op n, "" for nodes that are not ops (Parameter, Constant, Result).
// Returns the clusters in a topological order of their dependencies.
std::vector<Cluster> partition(const sdk::GraphView& g, const std::vector<std::string>& device);

}  // namespace mosaic::hetero
