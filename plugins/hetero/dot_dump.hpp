// Graphviz views of a split: every node coloured by its device (affinity), and the ops grouped
// into one box per subgraph (subgraphs). Written to hetero_affinity_<model>.dot and
// hetero_subgraphs_<model>.dot when visualisation is on, and readable as compiled-model properties.
#pragma once

#include "partition.hpp"
#include "placement.hpp"

#include <string>
#include <vector>

namespace mosaic::hetero {

std::string affinity_dot(const sdk::GraphView& g, const Placement& placement, const std::vector<std::string>& devices);
std::string subgraphs_dot(const sdk::GraphView& g, const std::vector<Cluster>& clusters,
                          const std::vector<std::string>& devices);

// Writes both files into `dir` ("" = the working directory); throws naming the file on failure.
void write_dot_files(const std::string& dir, const std::string& model, const std::string& affinity,
                     const std::string& subgraphs);

}  // namespace mosaic::hetero
