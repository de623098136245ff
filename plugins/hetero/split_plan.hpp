// The plan of a split model: its subgraphs (each a graph for one device), the tensors that join
// them (slots), and how model inputs and outputs map onto those tensors. Built once at compile
// time, or read back from an exported blob; every infer request follows it.
#pragma once

#include "owned_graph.hpp"
#include "partition.hpp"
#include "placement.hpp"
#include "constant_expressions.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace mosaic::hetero {

// A tensor that crosses a subgraph boundary, or a model input or output: each infer request gives
// it one buffer, shared by its producer and all its consumers.
struct Slot {
    enum class Kind { model_input = 0, produced = 1, constant = 2 };
    Kind kind = Kind::produced;
    ElementType type = ElementType::undefined;
    Shape shape;
    size_t model_input = 0;            // Kind::model_input
    size_t subgraph = 0, output = 0;   // Kind::produced: the subgraph and its result index
    const void* constant = nullptr;    // Kind::constant (a Constant feeding a model output)
    std::string tensor;                // "<node>:<port>", for reports
    std::vector<size_t> model_outputs; // model outputs that read this slot
    size_t bytes() const { return static_cast<size_t>(shape_size(shape)) * element_size(type); }
};

struct Transfer {
    size_t slot = 0, from = 0, to = 0;  // from/to: subgraph indices
    double predicted_us = 0;            // plan_estimates.hpp
};

struct SubgraphPlan {
    std::string device;
    nlohmann::json properties = nlohmann::json::object();  // what it compiles with
    std::vector<std::string> ops;                            // friendly names, for reports
    std::vector<size_t> depends_on;                          // earlier subgraphs it reads from
    std::vector<size_t> inputs, outputs;                     // slot per Parameter / Result of `graph`
    double predicted_us = 0;                                 // plan_estimates.hpp
    OwnedGraph graph;
};

struct SplitPlan {
    std::string model_name;
    std::vector<std::string> devices;     // the priority list
    std::string placement = "GREEDY";
    bool perf_count = false;
    std::string crossing_memory = "AUTO";  // HETERO_CROSSING_MEMORY
    nlohmann::json memory;                 // per device what it holds and has (plan_estimates.hpp)
    std::vector<SubgraphPlan> subgraphs;  // topological order
    std::vector<Slot> slots;
    std::vector<size_t> model_outputs;    // slot per model Result
    std::vector<Transfer> transfers;      // slots read by a subgraph on another device than their producer
    nlohmann::json affinity = nlohmann::json::object();  // op -> device
    std::string affinity_dot, subgraphs_dot;
    // Imported constant slots, and the values HETERO folded (constant_expressions.hpp).
    std::vector<std::shared_ptr<const std::vector<uint64_t>>> owned_constants;

    // HETERO_SPLIT, and the plan `mosaic plan` shows (see docs/hetero.md).
    nlohmann::json summary() const;
    // Everything but the subgraph graphs and constant bytes (the export blob carries those).
    nlohmann::json to_json() const;
    static SplitPlan from_json(const nlohmann::json& j);
};

SplitPlan build_split(const sdk::GraphView& g, const std::vector<Cluster>& clusters, const Placement& placement,
                      const HeteroConfig& cfg, const FoldedValues& folded);

}  // namespace mosaic::hetero
