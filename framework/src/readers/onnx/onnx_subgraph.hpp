// ONNX subgraphs (If branches, Loop bodies) translated inline into the enclosing model: a
// subgraph's nodes go through the same translators as the main graph's, and the names it does not
// define resolve in the enclosing scopes, as ONNX's scoping rules say.
#pragma once

#include "readers/onnx/onnx_node_context.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mosaic::onnx_import {

// The names that the subgraphs of `node` (attributes holding a graph or graphs, nested to any
// depth) read from outside themselves: the node's implicit inputs, which must be translated
// before the node is. In order of first use, without repeats.
std::vector<std::string> outer_scope_names(const ::onnx::NodeProto& node);

class Scope;  // ONNX names visible to a subgraph; defined in onnx_subgraph.cpp

// Inlines subgraph attributes of the node that `ctx` translates. Construct it inside that node's
// translator: it captures the scope the node sits in (the main graph's tensors, or those of the
// subgraphs being inlined around it) so the subgraph's outer names resolve there.
// Not thread-safe: translation of one model runs on one thread, and nesting is tracked per thread.
class SubgraphInliner {
public:
    explicit SubgraphInliner(NodeContext& ctx);
    ~SubgraphInliner();
    SubgraphInliner(const SubgraphInliner&) = delete;
    SubgraphInliner& operator=(const SubgraphInliner&) = delete;

    // Translates one fresh copy of `graph` (a Loop inlines its body once per iteration): graph
    // input i takes inputs[i]; returns one Output per graph output. `label` names the copy in
    // node names and messages ("then_branch", "body/iteration_2").
    Outputs inline_graph(const ::onnx::GraphProto& graph, const std::vector<Output>& inputs, const std::string& label);

    // The value an outer name that the node's subgraphs read has in the enclosing scopes (or that
    // pass() gave it).
    Output outer(const std::string& name) const;

    // Makes `name` read `value` in the subgraphs this translates, before the enclosing scopes: for a
    // subgraph the translator writes itself around the node's values (a Scan run as a Loop slices
    // the Scan's inputs, which the node's own subgraphs never name).
    void pass(const std::string& name, Output value) { passed_.emplace(name, value); }

    // Translates `graph` into a model of its own, a body that a control-flow node runs when the
    // model runs (an If's branch, a Loop's body): its Parameters are the graph's inputs, of the
    // types and shapes `inputs` gives, then the outer names `captured`; the outer names it reads
    // besides, whose values are known, become Constants. Throws what translating the graph throws.
    std::shared_ptr<Model> translate_body(const ::onnx::GraphProto& graph, const std::vector<ops::PortInfo>& inputs,
                                          const std::vector<std::string>& captured, const std::string& label);

private:
    // Translates the nodes of `graph` into `builder` with names defined in `scope`; returns the
    // values of the graph's outputs.
    Outputs translate(GraphBuilder& builder, Scope& scope, const ::onnx::GraphProto& graph, const std::string& label);

    NodeContext& ctx_;
    std::map<std::string, Output> passed_;
    std::unique_ptr<Scope> main_graph_;  // set when ctx's node is in the main graph
    const Scope* enclosing_;
    std::string model_path_;
};

}  // namespace mosaic::onnx_import
